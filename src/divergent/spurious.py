"""The spurious-counterexample filter: does a confirmed difference matter for the task?

After ProbeGen (Sec. 3.1, Appx. C): :class:`SpuriousFilter` asks a model whether a confirmed
difference is real or *spurious* — the input breaks the task's (often implicit) preconditions, or
the outputs differ in ways the task does not care about — and :func:`parse_filter_answer` reads its
RATIONALE/DIFFERENCES answer. It runs after a divergence is confirmed (the preconditions that come
before, annotations and ``--require``, are :mod:`divergent.preconditions`).
"""

from __future__ import annotations

import copy
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from divergent.errors import InvalidArgument, LLMError, LLMOutOfTime, LLMUnavailable
from divergent.llm.chat import ChatModel, Completion, earlier, with_deadline
from divergent.llm.prompts import render as render_prompt
from divergent.llm.prompts import show_sources
from divergent.programs import Program
from divergent.records import FilterDecision, FilterVerdict, Input, Observation, Outcome, OutcomeKind
from divergent.values import render

__all__ = ["SpuriousFilter", "parse_filter_answer"]

#: longest rendering of one value (a return value, the arguments after the call)
MAX_VALUE_CHARS = 2_000

_THINKING = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
# A label opens its line (its colon optional when the answer is on the next line), or follows
# other words with its colon ("So, DIFFERENCES: IRRELEVANT").
_LABEL = r"(?:^[\s>*_#`\-]*{name}\b[\s*_`]*(?::|$)|\b{name}[\s*_`]*:)[\s*_`]*"
_RATIONALE_LINE = re.compile(_LABEL.format(name="RATIONALE"), re.IGNORECASE)
_DIFFERENCES_LINE = re.compile(_LABEL.format(name="DIFFERENCES?"), re.IGNORECASE)
_IRRELEVANT_WORDS = re.compile(
    r"\b(?:irrelevant|not\s+(?:important|significant|relevant)|unimportant|insignificant|spurious)\b",
    re.IGNORECASE,
)
_IMPORTANT_WORDS = re.compile(r"\b(?:important|significant|relevant)\b", re.IGNORECASE)


def _implementation_letter(index: int) -> str:
    """A, B, ..., Z, AA, AB, ... (the paper's "Implementation A/B", for any number of them)."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def _implementation_heading(index: int, implementation: Program) -> str:
    return f"#### Implementation {_implementation_letter(index)} (`{implementation.label}`)"


def _outcome_for_prompt(outcome: Outcome) -> str:
    if outcome.kind is OutcomeKind.RETURNED:
        return f"returned {render(outcome.value, limit=MAX_VALUE_CHARS)}"
    if outcome.kind is OutcomeKind.RAISED:
        return f"raised {outcome.describe()}"
    if outcome.kind is OutcomeKind.TIMEOUT:
        return f"did not finish in time ({outcome.describe()})"
    if outcome.kind is OutcomeKind.OK:
        return f"printed {outcome.stdout[:MAX_VALUE_CHARS]!r}"
    if outcome.kind in (OutcomeKind.RUNTIME_ERROR, OutcomeKind.MEMORY_LIMIT, OutcomeKind.OUTPUT_LIMIT):
        return f"{outcome.kind.value} ({outcome.describe()})"
    return f"crashed ({outcome.describe()})"


def _strip_markup(text: str) -> str:
    return text.strip().strip("*_`\"' ").strip()


def _labelled_lines(text: str, label: re.Pattern[str]) -> list[str]:
    """The text after every ``LABEL:`` line; when nothing follows the label on its line, the next
    non-empty line (models sometimes put the answer below the label)."""
    lines = text.splitlines()
    found = []
    for position, line in enumerate(lines):
        match = next(reversed(list(label.finditer(line))), None)
        if match is None:
            continue
        rest = _strip_markup(line[match.end() :])
        if not rest:
            following = next((candidate for candidate in lines[position + 1 :] if candidate.strip()), "")
            is_label = _RATIONALE_LINE.search(following) or _DIFFERENCES_LINE.search(following)
            rest = "" if is_label else _strip_markup(following)
        found.append(rest)
    return found


def _decision(text: str) -> FilterDecision | None:
    """IMPORTANT or IRRELEVANT from the text after ``DIFFERENCES:``; None when it says neither or both
    (a model that echoes "IMPORTANT or IRRELEVANT" has not decided)."""
    irrelevant = bool(_IRRELEVANT_WORDS.search(text))
    important = bool(_IMPORTANT_WORDS.search(_IRRELEVANT_WORDS.sub(" ", text)))
    if irrelevant == important:
        return None
    return FilterDecision.IRRELEVANT if irrelevant else FilterDecision.IMPORTANT


def parse_filter_answer(answer: str) -> tuple[FilterDecision | None, str]:
    """The decision and rationale in a filter answer (Appx. C format).

    The last ``DIFFERENCES:`` line that states one decision wins (the reasoning before it may quote
    the format); the rationale is the last ``RATIONALE:`` line. Markdown emphasis, headings, quotes
    and ``<think>`` blocks are tolerated. The decision is None when no line states exactly one.
    """
    text = _THINKING.sub("", answer)
    decision = None
    for line in reversed(_labelled_lines(text, _DIFFERENCES_LINE)):
        decision = _decision(line)
        if decision is not None:
            break
    rationales = []
    for line in _labelled_lines(text, _RATIONALE_LINE):
        on_one_line = _DIFFERENCES_LINE.search(line)  # "RATIONALE: ... DIFFERENCES: ..." on one line
        line = _strip_markup(line[: on_one_line.start()].rstrip(" -–—,;")) if on_one_line else line
        if line:
            rationales.append(line)
    return decision, rationales[-1] if rationales else ""


@dataclass
class _Asking:
    """A question being asked: its verdict once in (kept or not), for whoever waits on it."""

    done: threading.Event = field(default_factory=threading.Event)
    verdict: FilterVerdict | None = None


@dataclass
class _Memory:
    """What a filter and its bounded views (:meth:`SpuriousFilter.within`) share."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    #: verdicts by prompt, so the same difference met twice (by an engine's own ``accept`` hook
    #: and by the search) is asked once even of a model without a cache
    verdicts: dict[str, FilterVerdict] = field(default_factory=dict)
    #: the questions being asked now: a second asker waits for the first one's verdict
    asking: dict[str, _Asking] = field(default_factory=dict)
    #: set after the endpoint failed for good: later differences are not judged (each would
    #: wait through the client's retries again)
    unavailable: str | None = None


class SpuriousFilter:
    """Asks a model whether a confirmed difference matters for the task (ProbeGen, Sec. 3.1).

    A difference is *spurious* when the input breaks the task's (often implicit) preconditions, or
    the outputs differ in ways the task does not care about (element order, tiny float error). The
    model sees the task description (``spec``, when given), every implementation's source, the input
    and each implementation's outcome, and answers in the Appx. C format with greedy decoding
    (temperature 0), so a rerun through the client's response cache gives the same verdict for free.

    Only a readable IRRELEVANT drops a difference: an answer without a readable decision, and a
    call that fails or runs out of time, give a verdict that counts as relevant (UNJUDGED), saying
    why: what the search observed never depends on the model answering.
    """

    def __init__(self, chat: ChatModel, *, spec: str | None = None, max_tokens: int | None = None) -> None:
        self.chat = chat
        self.spec = spec.strip() if spec and spec.strip() else None
        self.max_tokens = max_tokens
        #: when the judging stops (``time.monotonic()``; None: never): a search's view has its deadline
        self.deadline: float | None = None
        self._memory = _Memory()

    def within(self, deadline: float | None) -> SpuriousFilter:
        """This filter with every call ending by ``deadline`` (a search's), sharing its verdicts: a
        difference whose verdict is not in by then is kept, UNJUDGED."""
        view = copy.copy(self)
        view.deadline = earlier(deadline, self.deadline)
        return view

    @property
    def model(self) -> str:
        return self.chat.model

    def prompt(
        self,
        implementations: Sequence[Program],
        input: Input,
        outcomes: Sequence[Outcome],
    ) -> str:
        """The Appx. C prompt, adapted to name the implementations and show their sources."""
        if len(implementations) != len(outcomes):
            raise InvalidArgument(
                f"{len(implementations)} implementations but {len(outcomes)} outcomes to judge"
            )
        function = implementations[0].display_name if implementations else "f"
        problem = self.spec or (
            f"No task description was given. Infer the intended behavior of `{function}` from its "
            "name, signature, docstring and comments, and from what the implementations agree on."
        )
        # Show the arguments after the call only when that is part of the difference.
        arguments_after = [render(o.args_after, limit=MAX_VALUE_CHARS) if o.args_after is not None else None
                           for o in outcomes]
        show_mutation = len(set(arguments_after)) > 1
        described = []
        for index, (impl, outcome, after) in enumerate(zip(implementations, outcomes, arguments_after, strict=True)):
            lines = [_implementation_heading(index, impl), "", "'''", _outcome_for_prompt(outcome)]
            if show_mutation and after is not None:
                lines.append(f"arguments after the call: {after}")
            if outcome.stdout and outcome.kind in (OutcomeKind.RETURNED, OutcomeKind.RAISED):
                lines.append(f"printed: {outcome.stdout[:MAX_VALUE_CHARS]!r}")
            lines.append("'''")
            described.append("\n".join(lines))
        return render_prompt(
            "spurious_filter",
            count=len(implementations),
            problem=problem,
            implementations=show_sources(implementations, heading=_implementation_heading),
            inputs=input.call(function),
            outcomes="\n\n".join(described),
        )

    def assess(
        self,
        implementations: Sequence[Program],
        input: Input,
        outcomes: Sequence[Outcome],
    ) -> FilterVerdict:
        """The verdict on one difference: ``input`` and what each implementation did on it.

        Never raises for a model failure: an LLMError (a dead endpoint, a bad answer, the time
        running out) gives an UNJUDGED verdict (relevant) whose rationale is the error, so the
        search goes on and loses nothing it found. The same question asked while another thread
        asks it waits for that answer, until this filter's deadline.
        """
        prompt = self.prompt(implementations, input, outcomes)
        memory = self._memory
        with memory.lock:
            known = memory.verdicts.get(prompt)
            if known is not None:
                return known
            if memory.unavailable is not None:
                return self._unjudged(f"the model failed earlier ({memory.unavailable})")
            asked = memory.asking.get(prompt)
            if asked is None:
                memory.asking[prompt] = _Asking()
        if asked is not None:
            wait = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
            asked.done.wait(wait)
            return asked.verdict or self._unjudged("the model had not answered when the time ran out")
        verdict: FilterVerdict | None = None
        keep = True
        try:
            completion = self.chat.complete(
                [{"role": "user", "content": prompt}], temperature=0.0, max_tokens=self.max_tokens,
                **with_deadline(self.deadline),
            )
            verdict = self._verdict(completion)
        except LLMError as error:
            reason = " ".join(str(error).split()) or type(error).__name__
            # out of time is this call's lot, not the difference's: another search may ask again
            keep = not isinstance(error, LLMOutOfTime)
            verdict = self._unjudged(reason)
            if isinstance(error, LLMUnavailable):
                with memory.lock:
                    memory.unavailable = reason
        finally:
            with memory.lock:
                if verdict is not None and keep:
                    memory.verdicts[prompt] = verdict
                asking = memory.asking.pop(prompt)
            asking.verdict = verdict
            asking.done.set()
        return verdict

    def _unjudged(self, reason: str) -> FilterVerdict:
        return FilterVerdict(
            relevant=True,
            rationale=f"not judged: {reason}",
            differences=FilterDecision.UNJUDGED,
            raw=reason,
            model=self.model,
        )

    def _verdict(self, completion: Completion) -> FilterVerdict:
        decision, rationale = parse_filter_answer(completion.text)
        if decision is None:
            truncated = " (the answer was cut off at the token limit)" if completion.finish_reason == "length" else ""
            return FilterVerdict(
                relevant=True,
                rationale=f"the filter's verdict could not be parsed{truncated}; kept as relevant",
                differences=FilterDecision.UNPARSED,
                raw=completion.text,
                model=completion.model or self.model,
                usage=completion.usage().as_dict(),
            )
        return FilterVerdict(
            relevant=decision is FilterDecision.IMPORTANT,
            rationale=rationale or "(no rationale given)",
            differences=decision,
            raw=completion.text,
            model=completion.model or self.model,
            usage=completion.usage().as_dict(),
        )

    def accept(self, implementations: Sequence[Program]) -> Callable[[Observation], bool]:
        """An ``accept(observation) -> bool`` hook for engines that stop at their first difference:
        False when the filter judges the observation's difference irrelevant."""

        def accept(observation: Observation) -> bool:
            return self.assess(implementations, observation.input, observation.outcomes).relevant

        return accept

