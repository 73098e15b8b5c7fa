def identity_matrix(size: int) -> list[list[int]]:
    if size > 1000:
        raise ValueError("matrix too large")
    rows = [[0] * size for _ in range(size)]
    for i in range(size):
        rows[i][i] = 1
    return rows
