def slug(title: str) -> str:
    kept = "".join(ch if ch.isalnum() else "-" for ch in title)
    return kept.lower().strip("-")
