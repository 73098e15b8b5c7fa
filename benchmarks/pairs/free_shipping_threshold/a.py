def shipping_fee(order_total: float) -> float:
    if order_total >= 250.0:
        return 0.0
    if order_total >= 100.0:
        return 4.99
    return 9.99
