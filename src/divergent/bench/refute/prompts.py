"""The messages each strategy sends: divergent's own prompts (``bench/refute/templates/*.txt``, written
from the paper's description of each strategy), or the authors' template files loaded as data
(``--prompt-templates DIR``, for an exact reproduction).

The authors' files are plain text without placeholders: ``{method}_system.txt`` is the system
message as it is, and the user message is ``{method}_human.txt`` followed by the task laid out as
the worked examples inside their files lay it out (``## Statement``, ``Time Limit: 1000ms``,
``## Input Format``, ..., ``## Code``; ``## Buggy Code`` and ``## Correct Code`` for the oracle
methods). Their methods are zero_shot, few_shot, zero_shot_oracle, randsearch and
randsearch_oracle (``reasoning_*`` system files for reasoning models: ``variant="reasoning"``);
they ship no agent or hybrid prompt, so those strategies use divergent's own unless the directory
has ``agent_system.txt`` + ``agent_human.txt`` (``hybrid_...`` likewise).
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Mapping
from pathlib import Path

from divergent.bench.refute.dataset import RefuteTask
from divergent.errors import InvalidArgument, LoadError
from divergent.llm.chat import Message
from divergent.llm.prompts import Templates

__all__ = [
    "METHODS",
    "TEMPLATES",
    "AgentLimits",
    "OurPrompts",
    "PromptSet",
    "RefuteAuthorsPrompts",
    "authors_task",
    "our_task",
]

#: divergent's own REFUTE prompts
TEMPLATES = Templates("divergent.bench.refute")
#: the prompt methods (file stems of the authors' set)
METHODS = ("zero_shot", "few_shot", "zero_shot_oracle", "randsearch", "randsearch_oracle", "agent", "hybrid")
#: methods whose prompt shows the correct code
ORACLE_METHODS = frozenset({"zero_shot_oracle", "randsearch_oracle"})


class AgentLimits:
    """The agent's budget as its prompt states it (the paper's: 10 runs, outputs cut to 2,000
    characters, 30 s per run, 5 resubmissions)."""

    def __init__(self, max_runs: int = 10, output_chars: int = 2000, run_seconds: float = 30.0,
                 max_resubmissions: int = 5) -> None:
        self.max_runs = max_runs
        self.output_chars = output_chars
        self.run_seconds = run_seconds
        self.max_resubmissions = max_resubmissions


def our_task(task: RefuteTask, *, with_correct: bool = False) -> str:
    """The task as divergent's prompts show it."""
    note = TEMPLATES.render("task_note", note=task.note.strip()) if task.note.strip() else ""
    text = TEMPLATES.render(
        "task",
        statement=task.statement.strip(),
        time_limit=task.time_limit_ms,
        memory_limit=task.memory_limit_mb,
        input_format=task.input_format.strip(),
        output_format=task.output_format.strip(),
        example_input=task.example_input.rstrip("\n"),
        example_output=task.example_output.rstrip("\n"),
        note_section=note,
        wrong_language=task.wrong_language,
        wrong_code=task.wrong_code.rstrip("\n"),
    )
    if with_correct:
        text += TEMPLATES.render(
            "task_correct", correct_language=task.correct_language or "", correct_code=(task.correct_code or "").rstrip("\n")
        )
    return text


def authors_task(task: RefuteTask, *, with_correct: bool = False) -> str:
    """The task laid out as the worked examples in the authors' template files lay it out."""
    parts = [
        f"## Statement\n\n{task.statement.strip()}",
        f"Time Limit: {task.time_limit_ms}ms",
        f"Memory Limit: {task.memory_limit_mb} megabytes",
        f"## Input Format\n\n{task.input_format.strip()}",
        f"## Output Format\n\n{task.output_format.strip()}",
        f"## Example Input\n\n```\n{task.example_input.rstrip()}\n\n```",
        f"## Example Output\n\n```\n{task.example_output.rstrip()}\n```",
    ]
    if task.note.strip():
        parts.append(f"## Note\n\n{task.note.strip()}")
    heading = "## Buggy Code" if with_correct else "## Code"
    parts.append(f"{heading}\n\n```\n{task.wrong_code.rstrip()}\n\n```")
    if with_correct:
        parts.append(f"## Correct Code\n\n```\n{(task.correct_code or '').rstrip()}\n\n```")
    return "\n\n".join(parts)


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise InvalidArgument(f"unknown prompt method {method!r}; choose from {', '.join(METHODS)}")


class PromptSet(abc.ABC):
    """The first messages of a strategy's conversation, and what identifies the prompts of a run."""

    #: "divergent" or "authors:<sha256 prefix of the files>" (part of a stored run's parameters)
    fingerprint: str = ""

    @abc.abstractmethod
    def messages(self, method: str, task: RefuteTask, **values: object) -> list[Message]:
        """The system and first user message of ``method`` for ``task``."""


class OurPrompts(PromptSet):
    """divergent's own prompts (``bench/refute/templates/*.txt``)."""

    fingerprint = "divergent-1"

    def messages(self, method: str, task: RefuteTask, **values: object) -> list[Message]:
        """``values``: ``loop_seconds`` (randsearch), ``agent`` (an :class:`AgentLimits`)."""
        _check_method(method)
        oracle = method in ORACLE_METHODS
        task_text = our_task(task, with_correct=oracle)
        answer_format = TEMPLATES.render("answer_format")
        loop_seconds = f"{float(values.get('loop_seconds', 60.0)):g}"
        if method == "zero_shot":
            system = TEMPLATES.render("zero_shot_system", answer_format=answer_format)
            user = TEMPLATES.render("zero_shot_user", task=task_text)
        elif method == "few_shot":
            system = TEMPLATES.render("few_shot_system", answer_format=answer_format,
                            examples=TEMPLATES.render("few_shot_examples"))
            user = TEMPLATES.render("few_shot_user", task=task_text)
        elif method == "zero_shot_oracle":
            system = TEMPLATES.render("oracle_system", answer_format=answer_format)
            user = TEMPLATES.render("oracle_user", task=task_text)
        elif method == "randsearch":
            system = TEMPLATES.render("randsearch_system", loop_seconds=loop_seconds,
                            examples=TEMPLATES.render("randsearch_examples"))
            user = TEMPLATES.render("randsearch_user", task=task_text)
        elif method == "randsearch_oracle":
            system = TEMPLATES.render("randsearch_oracle_system", loop_seconds=loop_seconds)
            user = TEMPLATES.render("randsearch_oracle_user", task=task_text)
        elif method == "agent":
            limits = values.get("agent")
            if not isinstance(limits, AgentLimits):
                limits = AgentLimits()
            system = TEMPLATES.render(
                "agent_system",
                max_runs=limits.max_runs,
                output_chars=f"{limits.output_chars:,}",
                run_seconds=f"{limits.run_seconds:g}",
                max_resubmissions=limits.max_resubmissions,
            )
            user = TEMPLATES.render("agent_user", task=task_text)
        else:  # hybrid
            system = TEMPLATES.render("hybrid_system")
            user = TEMPLATES.render("hybrid_user", task=task_text)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]


class RefuteAuthorsPrompts(PromptSet):
    """The authors' template files from a directory, used as data (see the module docstring)."""

    def __init__(self, directory: Path | str, *, variant: str = "chat", fallback: PromptSet | None = None) -> None:
        self.directory = Path(directory)
        if variant not in ("chat", "reasoning"):
            raise InvalidArgument(f"--prompt-variant {variant!r}: choose chat or reasoning")
        if not self.directory.is_dir():
            raise LoadError(f"--prompt-templates {self.directory}: not a directory")
        self.variant = variant
        self.fallback = fallback or OurPrompts()
        self.files = self._read()
        if not any(name.endswith("_system") for name in self.files):
            raise LoadError(
                f"--prompt-templates {self.directory}: no <method>_system.txt file "
                f"(expected e.g. zero_shot_system.txt and zero_shot_human.txt)"
            )
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(name.encode() + b"\0" + self.files[name].encode() + b"\0")
        self.fingerprint = f"authors:{variant}:{digest.hexdigest()[:16]}"

    def _read(self) -> Mapping[str, str]:
        files = {}
        for path in sorted(self.directory.glob("*.txt")):
            try:
                files[path.stem] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise LoadError(f"{path}: cannot read the template: {error}") from None
        return files

    def has(self, method: str) -> bool:
        return f"{method}_system" in self.files and f"{method}_human" in self.files

    def messages(self, method: str, task: RefuteTask, **values: object) -> list[Message]:
        _check_method(method)
        if not self.has(method):
            return self.fallback.messages(method, task, **values)
        system = self.files[f"{method}_system"]
        if self.variant == "reasoning" and f"reasoning_{method}_system" in self.files:
            system = self.files[f"reasoning_{method}_system"]
        user = self.files[f"{method}_human"].rstrip() + "\n\n" + authors_task(task, with_correct=method in ORACLE_METHODS)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
