def factorial(n: int) -> int:
    if n < 0:
        raise ValueError("factorial of a negative number")
    if n > 200:
        raise ValueError("n too large")
    return _product_down_from(n)


def _product_down_from(n: int) -> int:
    if n <= 1:
        return 1
    return n * _product_down_from(n - 1)
