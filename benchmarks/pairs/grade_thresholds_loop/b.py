GRADE_THRESHOLDS = ((90, "A"), (80, "B"), (70, "C"))


def grade(score: float) -> str:
    for threshold, letter in GRADE_THRESHOLDS:
        if score >= threshold:
            return letter
    return "F"
