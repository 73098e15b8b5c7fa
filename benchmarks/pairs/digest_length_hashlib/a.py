import hashlib

DIGEST_LENGTH = len(hashlib.sha256(b"").hexdigest())
HEX_DIGITS = frozenset("0123456789abcdef")


def looks_like_digest(text: str) -> bool:
    return len(text) == DIGEST_LENGTH and all(ch in HEX_DIGITS for ch in text)
