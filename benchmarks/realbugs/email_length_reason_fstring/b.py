# Copied verbatim from https://github.com/JoshData/python-email-validator at 1e3eeeacbb568c22cb6eb18b1a1ffcd731895089; see meta.json and ../NOTICE.


EMAIL_MAX_LENGTH = 254


def get_length_reason(addr, utf8=False, limit=EMAIL_MAX_LENGTH):
    """Helper function to return an error message related to invalid length."""
    diff = len(addr) - limit
    prefix = "at least " if utf8 else ""
    suffix = "s" if diff > 1 else ""
    return f"({prefix}{diff} character{suffix} too many)"
