"""Problem statements of the OJ categories: readable text for prompts, and the sample tests.

EquiBench's OJ rows carry the problem's statement as HTML (CodeNet's copies of AIZU and AtCoder
pages: ``<h2>Sample Input 1</h2><pre>...</pre>``, AtCoder's ``<h3>入力例 1</h3>``, both languages
on one page) or, in the exemplars, as plain text ("Example Input: ..."). Only the standard library's
HTML tokenizer reads them; nothing is fetched or run.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from divergent.formats.statement_text import html_blocks, looks_like_html, statement_text

__all__ = ["SampleTest", "sample_tests", "statement_text"]

_INPUT_HEADING = re.compile(r"(sample|example)\s*input|input\s*(example|sample)|入力例|入力\s*例", re.IGNORECASE)
_OUTPUT_HEADING = re.compile(r"(sample|example)\s*output|output\s*(example|sample)|出力例|出力\s*例", re.IGNORECASE)


@dataclass(frozen=True)
class SampleTest:
    """One sample of the statement: the input text and, when given, the expected output."""

    input: str
    output: str | None = None


def _normalised(block: str) -> str:
    stripped = block.strip("\n")
    return stripped + "\n" if stripped.strip() else ""


def _number(heading: str) -> int | None:
    digits = re.findall(r"\d+", heading)
    return int(digits[-1]) if digits else None


def _html_samples(statement: str) -> list[SampleTest]:
    inputs: list[tuple[int | None, str]] = []
    outputs: list[tuple[int | None, str]] = []
    for heading, block in html_blocks(statement):
        if _INPUT_HEADING.search(heading):
            inputs.append((_number(heading), _normalised(block)))
        elif _OUTPUT_HEADING.search(heading):
            outputs.append((_number(heading), _normalised(block)))
    return _paired(inputs, outputs)


_TEXT_SAMPLE = re.compile(
    r"(?:sample|example)\s*input\s*(?P<n>\d*)\s*:?[ \t]*\n?(?P<input>.*?)"
    r"(?:sample|example)\s*output\s*(?P<m>\d*)\s*:?[ \t]*\n?(?P<output>.*?)"
    r"(?=(?:sample|example)\s*input|\n\s*\n|\Z)",
    re.IGNORECASE | re.DOTALL,
)


def _text_samples(statement: str) -> list[SampleTest]:
    inputs: list[tuple[int | None, str]] = []
    outputs: list[tuple[int | None, str]] = []
    for match in _TEXT_SAMPLE.finditer(statement):
        number = int(match["n"]) if match["n"] else len(inputs) + 1
        inputs.append((number, _normalised(match["input"])))
        outputs.append((number, _normalised(match["output"])))
    return _paired(inputs, outputs)


def _paired(inputs: list[tuple[int | None, str]], outputs: list[tuple[int | None, str]]) -> list[SampleTest]:
    """Inputs matched to outputs by their number, else by position; duplicates (a page in two
    languages) kept once."""
    by_number = {number: text for number, text in outputs if number is not None}
    samples: list[SampleTest] = []
    seen: set[str] = set()
    for position, (number, text) in enumerate(inputs):
        if not text or text in seen:
            continue
        seen.add(text)
        if number is not None and number in by_number:
            expected: str | None = by_number[number]
        elif position < len(outputs):
            expected = outputs[position][1]
        else:
            expected = None
        samples.append(SampleTest(text, expected or None))
    return samples


def sample_tests(statement: str) -> list[SampleTest]:
    """The statement's sample inputs (with their expected outputs when given), in order, without
    duplicates; [] when it has none."""
    if not statement.strip():
        return []
    if looks_like_html(statement):
        return _html_samples(statement)
    return _text_samples(html.unescape(statement))


# the longer forms first: "2 × 10^5" and "10^9" before a bare "10"; a number never spans lines, so
# a constraint at the start of a line is read from its first digit
_SPACE = r"[^\S\n]*"
_NUMBER = (rf"-?{_SPACE}\d+{_SPACE}(?:[×x*]|\\times){_SPACE}10{_SPACE}\^{_SPACE}\{{?{_SPACE}\d+{_SPACE}\}}?"
           rf"|-?{_SPACE}10{_SPACE}\^{_SPACE}\{{?{_SPACE}\d+{_SPACE}\}}?|-?{_SPACE}\d+")
# a list item's marker ("- 1 <= n <= 100" in Markdown or plain text) is not a minus sign
_LIST_MARKER = re.compile(r"^[^\S\n]*[-*•][^\S\n]+", re.MULTILINE)
_LESS = r"(?:≤|<=|&le;|\\leq?|\\le|<|＜|≦)"
_CONSTRAINT = re.compile(rf"({_NUMBER})\s*{_LESS}\s*[^≤<=&\\\n]{{1,40}}?\s*{_LESS}\s*({_NUMBER})")


def _value(text: str) -> int | None:
    cleaned = re.sub(r"\s+", "", text).replace("{", "").replace("}", "").replace("\\times", "×").replace("*", "×")
    match = re.fullmatch(r"(-?)(\d+)(?:[×x]10\^(\d+))?|(-?)10\^(\d+)", cleaned)
    if match is None:
        return None
    if match.group(2) is not None:
        value = int(match.group(2)) * (10 ** int(match.group(3)) if match.group(3) else 1)
        return -value if match.group(1) else value
    value = 10 ** int(match.group(5))
    return -value if match.group(4) else value


def numeric_bounds(statement: str) -> tuple[int, int] | None:
    """The widest range the statement's constraints ("1 ≤ N ≤ 10^5", "-10^9 <= A_i <= 10^9") allow
    any integer of the input, or None when it states none. A heuristic for validity: it keeps
    negative or huge numbers out of inputs when every constraint rules them out."""
    text = _LIST_MARKER.sub("", html.unescape(statement_text(statement)))
    lows: list[int] = []
    highs: list[int] = []
    for match in _CONSTRAINT.finditer(text):
        low, high = _value(match.group(1)), _value(match.group(2))
        if low is not None and high is not None and low <= high:
            lows.append(low)
            highs.append(high)
    if not lows:
        return None
    return min(lows), max(highs)


def range_validator(bounds: tuple[int, int]) -> str:
    """A Python validator (stdin; exit 0 when valid) accepting inputs whose integers all lie in ``bounds``."""
    low, high = bounds
    return (
        "import sys\n"
        "tokens = sys.stdin.read().split()\n"
        "if not tokens:\n    sys.exit(1)\n"
        "for token in tokens:\n"
        "    try:\n        value = int(token)\n    except ValueError:\n        continue\n"
        f"    if not {low} <= value <= {high}:\n        sys.exit(1)\n"
    )
