def popcount(n: int) -> int:
    return bin(n).count("1")
