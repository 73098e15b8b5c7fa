def user_id(directory: dict[str, int], name: str) -> int:
    return directory[name.strip().lower()]
