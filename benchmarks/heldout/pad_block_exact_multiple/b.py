def pad(data: bytes) -> bytes:
    if data and len(data) % 32 == 0:
        return data  # "already aligned": but then the padding cannot be told from the data
    missing = 32 - len(data) % 32
    return data + bytes([missing]) * missing
