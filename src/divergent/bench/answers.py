"""Yes/no judges: reading a model's verdict out of its answer, and self-consistency.

A judge is asked whether two programs are equivalent and told how to answer (``YES``/``NO`` for
EquiBench, ``Yes``/``No`` or ``FINAL_ANSWER_IS_YES``/``_NO`` for CETBench). Answers are read in
the order the EquiBench authors describe, each step only when the previous one found nothing:

1. **exact**: the whole answer is one of the answer words (case, markdown emphasis, quotes and a
   final full stop aside);
2. **sentences**: the last sentence, then the last two, are searched for a decisive form: an
   explicit "the answer is X", a final-answer marker, an answer word in capitals, a verdict phrase
   ("not equivalent", "are equivalent"), or a sentence that starts with Yes/No;
3. **extractor**: a model (by default the judge itself) is shown the last sentence, then the last
   two, then the whole answer, and asked for the verdict alone (template ``bench/templates/extract_answer.txt``);
4. **random**: a coin flip seeded by the run's seed and the item, counted as unparseable.

:func:`judge` asks ``samples`` times (sample index ``i`` for the cache, so a rerun is free) and
takes the majority (self-consistency); a tie is broken by the same seeded coin and counted.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from divergent.errors import InvalidArgument
from divergent.llm.chat import ChatModel, Message, Usage
from divergent.llm.prompts import Templates

#: the prompts every judge harness shares (reading a verdict the parser could not)
TEMPLATES = Templates("divergent.bench")

__all__ = [
    "TEMPLATES",
    "AnswerFormat",
    "AnswerSource",
    "PairJudgement",
    "ParsedAnswer",
    "coin",
    "from_sentences",
    "judge",
    "parse_answer",
    "parse_exact",
]


class AnswerSource(StrEnum):
    EXACT = "exact"
    SENTENCES = "sentences"
    EXTRACTOR = "extractor"
    RANDOM = "random"


@dataclass(frozen=True)
class AnswerFormat:
    """The words a prompt told the model to answer with (compared without case)."""

    yes: tuple[str, ...] = ("YES",)
    no: tuple[str, ...] = ("NO",)

    def __post_init__(self) -> None:
        if not self.yes or not self.no:
            raise InvalidArgument("an answer format needs at least one yes word and one no word")
        if {w.upper() for w in self.yes} & {w.upper() for w in self.no}:
            raise InvalidArgument(f"answer words {self.yes} and {self.no} overlap")

    def word(self, text: str) -> bool | None:
        """True/False when ``text`` is one of the answer words, else None."""
        upper = text.upper()
        if upper in (w.upper() for w in self.yes):
            return True
        if upper in (w.upper() for w in self.no):
            return False
        return None


#: EquiBench's answer words (the authors' prompts say YES or NO)
YES_NO = AnswerFormat()


@dataclass(frozen=True)
class ParsedAnswer:
    """One answer's verdict and how it was read."""

    equivalent: bool
    source: AnswerSource

    @property
    def unparseable(self) -> bool:
        return self.source is AnswerSource.RANDOM

    def as_dict(self) -> dict[str, Any]:
        return {"equivalent": self.equivalent, "source": self.source.value}


_EMPHASIS = "*_`'\"“”‘’[](){}<>#:.!,;- \t\r\n"


def parse_exact(text: str, answer_format: AnswerFormat = YES_NO) -> bool | None:
    """The verdict when the whole answer is an answer word (emphasis and a full stop aside)."""
    cleaned = text.strip().strip(_EMPHASIS)
    return answer_format.word(cleaned) if cleaned else None


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_NEGATED_VERDICT = re.compile(
    r"\b(?:not|n't|never)\s+(?:\w+\s+){0,2}equivalent\b|\binequivalent\b|\bnon-?equivalent\b|\bnot\s+the\s+same\b",
    re.IGNORECASE,
)
_VERDICT = re.compile(r"\b(?:are|is|be|as)\s+(?:\w+\s+){0,2}equivalent\b", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    parts = [part.strip().strip("*_` \t") for part in _SENTENCE_END.split(text)]
    return [part for part in parts if part.strip(_EMPHASIS)]


def _decisive(window: str, answer_format: AnswerFormat) -> bool | None:
    words = [re.escape(w) for w in (*answer_format.yes, *answer_format.no)]
    alternatives = "|".join(sorted(words, key=len, reverse=True))
    # "the answer is YES", "Answer: **NO**", "final answer: yes"
    explicit = re.findall(
        rf"\b(?:answer|verdict|conclusion)\b[^A-Za-z0-9]{{0,12}}(?:is\b[^A-Za-z0-9]{{0,6}})?({alternatives})\b",
        window,
        re.IGNORECASE,
    )
    if explicit:
        return answer_format.word(explicit[-1])
    # a marker such as FINAL_ANSWER_IS_YES, or an answer word written in capitals as instructed
    tokens = re.findall(r"[A-Za-z_]+", window)
    capital = {answer_format.word(t) for t in tokens if t.isupper() and answer_format.word(t) is not None}
    if len(capital) == 1:
        return capital.pop()
    # "the two programs are not equivalent" / "are therefore equivalent"
    if _NEGATED_VERDICT.search(window):
        return False
    if _VERDICT.search(window):
        return True
    # "Yes, they compute the same thing." / "No." (not "No difference is visible ...")
    first = re.match(r"[^A-Za-z]*([A-Za-z_]+)\s*(?:[,.!:;]|$)", window)
    if first is not None:
        return answer_format.word(first.group(1))
    return None


def from_sentences(text: str, answer_format: AnswerFormat = YES_NO, *, windows: Sequence[int] = (1, 2)) -> bool | None:
    """The verdict found in the last sentence, else the last two (see the module docstring)."""
    sentences = _sentences(text)
    for size in windows:
        if size > len(sentences) and size > 1:
            break
        window = " ".join(sentences[-size:])
        verdict = _decisive(window, answer_format)
        if verdict is not None:
            return verdict
    return None


def coin(seed: int, key: str, sample: int = 0, purpose: str = "answer") -> bool:
    """A reproducible coin flip for one item's sample (the unparseable answer's prediction)."""
    return random.Random(f"{seed}/{purpose}/{key}/{sample}").random() < 0.5


def parse_answer(
    text: str,
    answer_format: AnswerFormat = YES_NO,
    *,
    extractor: ChatModel | None = None,
    seed: int = 0,
    key: str = "",
    sample: int = 0,
) -> tuple[ParsedAnswer, Usage, list[str]]:
    """The verdict of one answer, the extractor's usage, and the extractor's raw answers."""
    exact = parse_exact(text, answer_format)
    if exact is not None:
        return ParsedAnswer(exact, AnswerSource.EXACT), Usage(), []
    found = from_sentences(text, answer_format)
    if found is not None:
        return ParsedAnswer(found, AnswerSource.SENTENCES), Usage(), []
    usage = Usage()
    raw: list[str] = []
    if extractor is not None and text.strip():
        sentences = _sentences(text)
        excerpts = [" ".join(sentences[-1:]), " ".join(sentences[-2:]), text.strip()]
        seen: set[str] = set()
        for excerpt in excerpts:
            if not excerpt or excerpt in seen:
                continue
            seen.add(excerpt)
            prompt = TEMPLATES.render("extract_answer", reply=excerpt, yes=answer_format.yes[0], no=answer_format.no[0])
            completion = extractor.complete([{"role": "user", "content": prompt}], temperature=0.0)
            usage += completion.usage()
            raw.append(completion.text)
            verdict = parse_exact(completion.text, answer_format)
            if verdict is not None:
                return ParsedAnswer(verdict, AnswerSource.EXTRACTOR), usage, raw
    return ParsedAnswer(coin(seed, key, sample), AnswerSource.RANDOM), usage, raw


@dataclass(frozen=True)
class PairJudgement:
    """A judge's verdict on one pair after ``len(answers)`` samples."""

    equivalent: bool
    answers: tuple[str, ...]
    parsed: tuple[ParsedAnswer, ...]
    #: what every call of this judgement cost (the extractor's calls included)
    usage: Usage
    #: the samples were split evenly and the seeded coin decided
    tie: bool = False
    extractor_answers: tuple[str, ...] = ()

    @property
    def unparseable(self) -> int:
        return sum(p.unparseable for p in self.parsed)

    def as_dict(self) -> dict[str, Any]:
        return {
            "prediction": self.equivalent,
            "votes": [p.as_dict() for p in self.parsed],
            "unparseable": self.unparseable,
            "tie": self.tie,
            "answers": list(self.answers),
            "extractor_answers": list(self.extractor_answers),
            "usage": self.usage.as_dict(),
        }


def judge(
    chat: ChatModel,
    messages: Sequence[Message],
    answer_format: AnswerFormat = YES_NO,
    *,
    samples: int = 1,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    extractor: ChatModel | None = None,
    seed: int = 0,
    key: str = "",
) -> PairJudgement:
    """Ask ``samples`` times and take the majority (self-consistency); see the module docstring."""
    if samples < 1:
        raise InvalidArgument(f"samples={samples}: need at least 1")
    answers: list[str] = []
    parsed: list[ParsedAnswer] = []
    extracted: list[str] = []
    usage = Usage()
    for index in range(samples):
        completion = chat.complete(messages, temperature=temperature, max_tokens=max_tokens, sample_index=index)
        usage += completion.usage()
        answers.append(completion.text)
        answer, extra, raw = parse_answer(
            completion.text, answer_format, extractor=extractor, seed=seed, key=key, sample=index
        )
        usage += extra
        extracted.extend(raw)
        parsed.append(answer)
    yes = sum(p.equivalent for p in parsed)
    no = len(parsed) - yes
    tie = yes == no
    verdict = coin(seed, key, purpose="tie") if tie else yes > no
    return PairJudgement(verdict, tuple(answers), tuple(parsed), usage, tie, tuple(extracted))
