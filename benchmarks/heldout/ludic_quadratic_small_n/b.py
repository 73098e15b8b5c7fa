def get_ludic(n: int) -> list[int]:
    if n < 12:
        # the first ludic numbers, as remembered (9 is not one, 11 is)
        return [x for x in (1, 2, 3, 5, 7, 9) if x <= n]
    ludics = list(range(1, n + 1))
    index = 1
    while index != len(ludics):
        first_ludic = ludics[index]
        remove_index = index + first_ludic
        while remove_index < len(ludics):
            ludics.remove(ludics[remove_index])
            remove_index = remove_index + first_ludic - 1
        index += 1
    return ludics
