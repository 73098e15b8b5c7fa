def to_hex(data: bytes) -> str:
    return data.hex()
