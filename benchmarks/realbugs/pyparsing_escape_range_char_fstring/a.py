# Copied verbatim from https://github.com/pyparsing/pyparsing at 7a5c969059810faa12ea0529bbc13dbee60fcd62; see meta.json and ../NOTICE.


def _escape_re_range_char(c: str) -> str:
    return "\\" + c if c in r"\^-][" else c
