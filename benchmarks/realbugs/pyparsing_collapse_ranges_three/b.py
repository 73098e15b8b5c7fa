# Copied verbatim from https://github.com/pyparsing/pyparsing at 13065174b69ff9b412795b1bc043d0acedfdf6d6; see meta.json and ../NOTICE.
import itertools
from typing import Callable, Union, Iterable, TypeVar, cast


def _collapse_string_to_ranges(
    s: Union[str, Iterable[str]], re_escape: bool = True
) -> str:
    def is_consecutive(c):
        c_int = ord(c)
        is_consecutive.prev, prev = c_int, is_consecutive.prev
        if c_int - prev > 1:
            is_consecutive.value = next(is_consecutive.counter)
        return is_consecutive.value

    is_consecutive.prev = 0  # type: ignore [attr-defined]
    is_consecutive.counter = itertools.count()  # type: ignore [attr-defined]
    is_consecutive.value = -1  # type: ignore [attr-defined]

    def escape_re_range_char(c):
        return "\\" + c if c in r"\^-][" else c

    def no_escape_re_range_char(c):
        return c

    if not re_escape:
        escape_re_range_char = no_escape_re_range_char

    ret = []

    # reduce input string to remove duplicates, and put in sorted order
    s = "".join(sorted(set(s)))
    if len(s) > 2:
        # find groups of characters that are consecutive (can be replaced
        # with "<first>-<last>")
        for _, chars in itertools.groupby(s, key=is_consecutive):
            first = last = next(chars)
            for c in chars:
                last = c
            if first == last:
                ret.append(escape_re_range_char(first))
            else:
                sep = "" if ord(last) == ord(first) + 1 else "-"
                ret.append(
                    f"{escape_re_range_char(first)}{sep}{escape_re_range_char(last)}"
                )
    else:
        # no need to list this (or these 2) chars with "-", just return as a list
        ret = [escape_re_range_char(c) for c in s]

    return "".join(ret)
