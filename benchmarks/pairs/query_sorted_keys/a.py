def to_query(params: dict[str, int]) -> str:
    return "&".join(f"{key}={value}" for key, value in params.items())
