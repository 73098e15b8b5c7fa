def user_id(directory: dict[str, int], name: str) -> int | None:
    return directory.get(name.strip().lower())
