PREFIX_LEVELS = (("/admin", "restricted"), ("/account", "user"))


def access_level(path: str) -> str:
    for prefix, level in PREFIX_LEVELS:
        if path.startswith(prefix):
            return level
    return "public"
