def price_label(amount: float) -> str:
    return f"{amount:.2f} EUR"
