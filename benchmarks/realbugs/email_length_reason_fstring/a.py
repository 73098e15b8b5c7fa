# Copied verbatim from https://github.com/JoshData/python-email-validator at d4c9ec2a16052a1298ba68f6b81f1081cb55f6e0; see meta.json and ../NOTICE.


EMAIL_MAX_LENGTH = 254


def get_length_reason(addr, utf8=False, limit=EMAIL_MAX_LENGTH):
    """Helper function to return an error message related to invalid length."""
    diff = len(addr) - limit
    reason = "({}{} character{} too many)"
    prefix = "at least " if utf8 else ""
    suffix = "s" if diff > 1 else ""
    return reason.format(prefix, diff, suffix)
