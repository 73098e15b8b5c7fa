# Copied verbatim from https://github.com/pyparsing/pyparsing at d8fecfadfbb04f9c01e964ceb733dd8940df1ba8; see meta.json and ../NOTICE.


def _escape_re_range_char(c: str) -> str:
    return fr"\{c}" if c in r"\^-][" else c
