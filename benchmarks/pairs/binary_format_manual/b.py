def to_binary(n: int) -> str:
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    bits = []
    while n:
        bits.append("1" if n & 1 else "0")
        n >>= 1
    return sign + "".join(reversed(bits))
