def to_query(params: dict[str, int]) -> str:
    return "&".join(f"{key}={params[key]}" for key in sorted(params))
