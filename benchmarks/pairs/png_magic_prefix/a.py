def sniff_format(header: bytes) -> str:
    if header[:4] == b"\x89PNG":
        return "png"
    if header[:3] == b"GIF":
        return "gif"
    if header[:2] == b"\xff\xd8":
        return "jpeg"
    return "unknown"
