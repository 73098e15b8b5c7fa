# Copied verbatim from https://github.com/andialbrecht/sqlparse at 893d7b2e8075d6867d8a9b377faba7786f28f66d; see meta.json and ../NOTICE.


def remove_quotes(val):
    """Helper that removes surrounding quotes from strings."""
    if val is None:
        return
    if val[0] in ('"', "'") and val[0] == val[-1]:
        val = val[1:-1]
    return val
