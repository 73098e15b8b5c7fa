def truncate(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    if width < 1:
        return ""
    return text[: width - 1] + "…"
