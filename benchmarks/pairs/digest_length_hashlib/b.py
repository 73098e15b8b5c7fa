import hashlib

DIGEST_LENGTHS = {len(hashlib.sha256(b"").hexdigest()), len(hashlib.sha1(b"").hexdigest())}


def looks_like_digest(text: str) -> bool:
    return len(text) in DIGEST_LENGTHS and all(ch in "0123456789abcdef" for ch in text)
