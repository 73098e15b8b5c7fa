def format_amount(cents: int) -> str:
    whole, fraction = divmod(cents, 100)
    return f"{whole:,}.{fraction:02d}"
