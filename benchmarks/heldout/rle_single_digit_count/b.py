def encode(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i] and j - i < 9:
            j += 1
        out.append(f"{j - i}{text[i]}")
        i = j
    return "".join(out)
