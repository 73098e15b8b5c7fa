# Copied verbatim from https://github.com/pypa/packaging at 314effac7413d08926fff93f1570897a55dd07f5; see meta.json and ../NOTICE.
from __future__ import absolute_import, division, print_function


def _parse_letter_version(letter, number):
    if letter:
        # We consider there to be an implicit 0 in a pre-release if there is
        # not a numeral associated with it.
        if number is None:
            number = 0

        # We normalize any letters to their lower case form
        letter = letter.lower()

        # We consider some words to be alternate spellings of other words and
        # in those cases we want to normalize the spellings to our preferred
        # spelling.
        if letter == "alpha":
            letter = "a"
        elif letter == "beta":
            letter = "b"
        elif letter == "rc":
            letter = "c"

        return letter, int(number)
