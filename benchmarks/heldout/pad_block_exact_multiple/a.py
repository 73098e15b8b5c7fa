def pad(data: bytes) -> bytes:
    missing = 32 - len(data) % 32
    return data + bytes([missing]) * missing
