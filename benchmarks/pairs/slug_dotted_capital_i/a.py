def slug(title: str) -> str:
    lowered = title.lower()
    return "".join(ch if ch.isalnum() else "-" for ch in lowered).strip("-")
