FREE_FROM = 250.0
REDUCED_FROM = 100.0


def shipping_fee(order_total: float) -> float:
    if order_total > FREE_FROM:
        return 0.0
    if order_total >= REDUCED_FROM:
        return 4.99
    return 9.99
