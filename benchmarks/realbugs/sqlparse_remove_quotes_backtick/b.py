# Copied verbatim from https://github.com/andialbrecht/sqlparse at c1a597ee6e8e22c94ca5bdfa1c6665453e0d2c25; see meta.json and ../NOTICE.


def remove_quotes(val):
    """Helper that removes surrounding quotes from strings."""
    if val is None:
        return
    if val[0] in ('"', "'", '`') and val[0] == val[-1]:
        val = val[1:-1]
    return val
