def to_hex(data: bytes) -> str:
    return "".join(f"{byte:02x}" for byte in data)
