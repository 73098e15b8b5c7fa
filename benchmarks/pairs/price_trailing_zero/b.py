def price_label(amount: float) -> str:
    return f"{round(amount, 2)} EUR"
