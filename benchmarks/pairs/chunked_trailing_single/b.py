def chunked(items: list[int], size: int) -> list[list[int]]:
    if size < 1:
        raise ValueError("size must be positive")
    full = len(items) // size
    chunks = [items[i * size : (i + 1) * size] for i in range(full)]
    if len(items) % size > 1:
        chunks.append(items[full * size :])
    return chunks
