def parse_port(text: str) -> int:
    cleaned = text.strip()
    if not cleaned.isdigit():
        raise TypeError(f"port must be numeric, got {text!r}")
    port = int(cleaned)
    if not 0 < port < 65536:
        raise ValueError(f"port out of range: {port}")
    return port
