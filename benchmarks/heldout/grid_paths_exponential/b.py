def grid_paths(rows: int, cols: int) -> int:
    if rows < 0 or cols < 0:
        raise ValueError("a grid has no negative side")
    if rows == 0 or cols == 0:
        return 0
    table = [[1] * cols for _ in range(rows)]
    for r in range(1, rows):
        for c in range(1, cols):
            table[r][c] = table[r - 1][c] + table[r][c - 1]
    return table[rows - 1][cols - 1]
