def sign(x: int) -> int:
    return (x > 0) - (x < 0)
