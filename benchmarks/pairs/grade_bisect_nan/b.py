import bisect

THRESHOLDS = [70, 80, 90]
LETTERS = "FCBA"


def grade(score: float) -> str:
    return LETTERS[bisect.bisect_right(THRESHOLDS, score)]
