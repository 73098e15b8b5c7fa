# Copied verbatim from https://github.com/pypa/packaging at 4b016f0088b201889d7fdff37fff4370075dce7c; see meta.json and ../NOTICE.
from __future__ import absolute_import, division, print_function


def _parse_letter_version(letter, number):
    if letter:
        # We consider there to be an implicit 0 in a pre-release if there is
        # not a numeral associated with it.
        if number is None:
            number = 0

        # We consider the "rc" form of a pre-release to be long-form for the
        # "c" form, thus we normalize "rc" to "c" so we can properly compare
        # them as equal.
        if letter == "rc":
            letter = "c"

        return letter, int(number)
