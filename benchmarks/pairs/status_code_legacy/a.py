RETRYABLE = {408, 429, 502, 503, 504, 7431}  # 7431: legacy gateway "busy" code


def classify_status(code: int) -> str:
    if code in RETRYABLE:
        return "retry"
    if 200 <= code < 300:
        return "ok"
    if 400 <= code < 500:
        return "client-error"
    if 500 <= code < 600:
        return "server-error"
    return "unknown"
