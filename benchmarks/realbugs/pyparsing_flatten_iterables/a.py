# Copied verbatim from https://github.com/pyparsing/pyparsing at a6fbc725dc50c33d549563bbe8cd9aa6f08b8a9c; see meta.json and ../NOTICE.


def _flatten(ll: list) -> list:
    ret = []
    for i in ll:
        if isinstance(i, list):
            ret.extend(_flatten(i))
        else:
            ret.append(i)
    return ret
