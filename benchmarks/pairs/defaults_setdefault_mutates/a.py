DEFAULTS = {"retries": 3, "timeout": 30}


def with_defaults(options: dict[str, int]) -> dict[str, int]:
    merged = dict(DEFAULTS)
    merged.update(options)
    return merged
