def access_level(path: str) -> str:
    if path == "/admin/healthz":
        return "public"
    if path.startswith("/admin"):
        return "restricted"
    if path.startswith("/account"):
        return "user"
    return "public"
