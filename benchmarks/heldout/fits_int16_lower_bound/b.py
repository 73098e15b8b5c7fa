def fits_int16(n: int) -> bool:
    return -32768 < n <= 32767
