SIGNATURES = {
    b"\x89PNG\r\n": "png",
    b"GIF": "gif",
    b"\xff\xd8": "jpeg",
}


def sniff_format(header: bytes) -> str:
    for signature, kind in SIGNATURES.items():
        if header.startswith(signature):
            return kind
    return "unknown"
