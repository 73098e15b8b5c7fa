def get_ludic(n: int) -> list[int]:
    ludics = []
    for i in range(1, n + 1):
        ludics.append(i)
    index = 1
    while index < len(ludics):
        first_ludic = ludics[index]
        remove_index = index + first_ludic
        while remove_index < len(ludics):
            ludics.remove(ludics[remove_index])
            remove_index = remove_index + first_ludic - 1
        index += 1
    return ludics
