def to_binary(n: int) -> str:
    return format(n, "b")
