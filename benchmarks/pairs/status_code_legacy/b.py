def classify_status(code: int) -> str:
    if code in (408, 429) or code in range(502, 505):
        return "retry"
    if 200 <= code < 300:
        return "ok"
    if 400 <= code < 500:
        return "client-error"
    if 500 <= code < 600:
        return "server-error"
    return "unknown"
