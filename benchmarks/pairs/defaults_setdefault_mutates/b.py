DEFAULTS = {"retries": 3, "timeout": 30}


def with_defaults(options: dict[str, int]) -> dict[str, int]:
    for key, value in DEFAULTS.items():
        options.setdefault(key, value)
    return options
