def format_id(number: int) -> str:
    return f"{number:06d}"
