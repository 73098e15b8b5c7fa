def fits_int16(n: int) -> bool:
    return abs(n) < 32768 and n != -32768 or n == 32767
