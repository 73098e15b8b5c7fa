"""What every strategy gets (:class:`Context`) and gives back (:class:`AttemptResult`)."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from divergent.bench.refute.dataset import PYTHON, RefuteTask
from divergent.bench.refute.evaluate import CandidateVerdict, Rules
from divergent.bench.refute.execution import CodeRunner, Source
from divergent.bench.refute.prompts import AgentLimits, OurPrompts, PromptSet
from divergent.errors import InvalidArgument
from divergent.llm.chat import ChatModel, Completion, Message, Usage

__all__ = ["MAX_ANSWER_CHARS", "AttemptResult", "Context", "RefuteStrategy"]

#: characters of each model answer kept in a stored attempt
MAX_ANSWER_CHARS = 20_000


@dataclass(frozen=True)
class Context:
    """Everything an attempt may use; shared by the threads of a run (all of it is thread-safe)."""

    runner: CodeRunner
    rules: Rules = field(default_factory=Rules)
    #: the model (None: only the strategies without a model can run)
    chat: ChatModel | None = None
    prompts: PromptSet = field(default_factory=OurPrompts)
    temperature: float = 0.0
    max_tokens: int | None = None
    #: RandSearch's stress loop, in wall seconds (the paper: one minute)
    loop_seconds: float = 60.0
    #: divergent's search per attempt (divergent and hybrid), in wall seconds
    search_seconds: float = 60.0
    agent: AgentLimits = field(default_factory=AgentLimits)
    #: the run's seed; attempt i of a problem uses seed + i
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.temperature <= 2.0:
            raise InvalidArgument(f"--temperature {self.temperature!r}: must be between 0 and 2")
        for name in ("loop_seconds", "search_seconds"):
            if getattr(self, name) <= 0:
                raise InvalidArgument(f"{name}={getattr(self, name)!r} must be > 0 seconds")

    def validator(self, task: RefuteTask) -> Source | None:
        return Source(task.validator, PYTHON, "validator") if task.validator else None


@dataclass
class AttemptResult:
    """One attempt of one strategy on one problem: the verdict and what it took."""

    verdict: CandidateVerdict
    usage: Usage = field(default_factory=Usage)
    #: the model's answers, in order (each cut at MAX_ANSWER_CHARS)
    answers: list[str] = field(default_factory=list)
    #: the programs the attempt ran, by role ("printer", "brute", "generator")
    code: dict[str, str] = field(default_factory=dict)
    #: the agent's steps, the stress loop's counts, the search's counts
    trace: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def record(self, completion: Completion) -> str:
        """Count a model answer and keep its text; returns the text."""
        self.usage = self.usage + completion.usage()
        self.answers.append(completion.text[:MAX_ANSWER_CHARS])
        return completion.text

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.to_json(),
            "usage": self.usage.as_dict(),
            "answers": self.answers,
            "code": self.code,
            "trace": self.trace,
            "seconds": round(self.seconds, 3),
        }


class RefuteStrategy(abc.ABC):
    """A way of producing counterexamples for a problem."""

    #: the name on the command line and in tables
    name: str = ""
    #: whether it asks a language model
    needs_model: bool = True
    #: whether it uses the correct code (shown to the model, or as the search's oracle)
    uses_correct: bool = False
    #: one line for tables and --help
    description: str = ""

    @abc.abstractmethod
    def attempt(self, task: RefuteTask, index: int, context: Context) -> AttemptResult:
        """Attempt number ``index`` (0-based; it is the sample index of the model's calls, so a
        rerun of the same attempt is answered from the response cache)."""

    @staticmethod
    def ask(context: Context, messages: list[Message], index: int, result: AttemptResult) -> str:
        """One model call, counted in ``result``; its text."""
        if context.chat is None:
            raise InvalidArgument("this strategy needs a model: pass --model")
        completion = context.chat.complete(
            messages, temperature=context.temperature, max_tokens=context.max_tokens, sample_index=index
        )
        return result.record(completion)
