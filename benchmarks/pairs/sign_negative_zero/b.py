def sign_label(value: float) -> str:
    return "-" if value < 0 else "+"
