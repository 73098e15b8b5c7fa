# Copied verbatim from https://github.com/pyparsing/pyparsing at 13065174b69ff9b412795b1bc043d0acedfdf6d6; see meta.json and ../NOTICE.
from typing import Callable, Union, Iterable, TypeVar, cast


def _flatten(ll: Iterable) -> list:
    ret = []
    to_visit = [*ll]
    while to_visit:
        i = to_visit.pop(0)
        if isinstance(i, Iterable) and not isinstance(i, str):
            to_visit[:0] = i
        else:
            ret.append(i)
    return ret
