def fibonacci(n: int) -> int:
    if not 0 <= n <= 25:
        raise ValueError("n must be between 0 and 25")
    return _naive_fibonacci(n)


def _naive_fibonacci(n: int) -> int:
    if n == 0:
        return 0
    if n == 1:
        return 1
    return _naive_fibonacci(n - 1) + _naive_fibonacci(n - 2)
