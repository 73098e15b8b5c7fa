"""Live sampling: a model writes the m programs per task that an incoherence study compares.

:class:`LLMCandidates` is a :class:`~divergent.datasets.candidates.CandidateSource` like the recorded
samples: for each task it asks the model m times, at temperature t, with the coder prompt
(``llm/prompts/coder_system.txt`` and ``coder.txt``: the task's description and the signature to
keep, as the incoherence paper's coder prompt did, Sec. 6.4), and pulls the code out of the
markdown answers. Sample i of a task is the call with ``sample_index = i``, so it is cached: a
rerun, or a resumed run, reads the same programs back without calling the model.

A sample that is not a program — prose without code, or no usable answer at all — still counts,
as a candidate that cannot be loaded (an empty source), exactly as an unparseable recorded sample
does: the study then scores it as a program that never works. The sampled text is untrusted: it
is only parsed here; it runs in the sandbox with the recorded samples' machinery.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType

from divergent.datasets import Candidate, Task, format_model_spec
from divergent.errors import InvalidArgument, LLMCacheMiss, LLMError, LLMUnavailable
from divergent.llm.chat import ChatModel, Message
from divergent.llm.extract import extract_code
from divergent.llm.prompts import render as render_prompt

__all__ = ["LLMCandidates", "coder_messages"]


def _flat(text: str) -> str:
    return " ".join(text.split())


def coder_messages(task: Task) -> list[Message]:
    """The coder prompt for one task: the description (unless the declaration's docstring already
    holds it) and the signature to keep."""
    declaration = task.signature_source.strip()
    description = task.description.strip()
    parts = []
    # HumanEval's declaration carries the description as its docstring: showing it twice adds nothing
    if description and _flat(description)[:200] not in _flat(declaration):
        parts.append(f"Task:\n{description}\n")
    if declaration:
        parts.append(f"Signature:\n```python\n{declaration}\n```\n")
    else:
        parts.append(f"The function is named `{task.entry_point}`.\n")
    user = render_prompt("coder", entry_point=task.entry_point, task="\n".join(parts))
    return [{"role": "system", "content": render_prompt("coder_system").strip()}, {"role": "user", "content": user}]


class LLMCandidates:
    """m programs per task sampled from a chat model at one temperature (a CandidateSource).

    ``parallel`` samples of a task are requested at once (the client's own concurrency limit still
    applies). Unusable samples are counted in :attr:`no_code` and described in :attr:`notes`.
    An endpoint that is down, refuses the key, or a replay cache miss stops the study
    (:class:`LLMUnavailable`, :class:`LLMCacheMiss`): the units already finished stay stored.
    """

    def __init__(
        self,
        chat: ChatModel,
        temperature: float,
        *,
        max_tokens: int | None = None,
        parallel: int = 4,
    ) -> None:
        if not 0.0 <= temperature <= 2.0:
            raise InvalidArgument(f"--temperature {temperature!r}: must be between 0 and 2")
        if parallel < 1:
            raise InvalidArgument(f"parallel={parallel!r} must be >= 1")
        self.chat = chat
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self._pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="divergent-sampling")
        self._lock = threading.Lock()
        #: samples that gave no program, and why (one line each)
        self.notes: list[str] = []
        self.no_code = 0
        self.sampled = 0

    @property
    def model(self) -> str:
        return self.chat.model

    @property
    def label(self) -> str:
        return format_model_spec(self.chat.model, self.temperature)

    def candidates(self, task: Task, m: int) -> list[Candidate]:
        """Samples 0..m-1 of the task, in index order (cached calls after the first run)."""
        if m < 0:
            raise InvalidArgument(f"cannot take {m} candidates")
        messages = coder_messages(task)
        return list(self._pool.map(lambda index: self._sample(task, messages, index), range(m)))

    def _sample(self, task: Task, messages: list[Message], index: int) -> Candidate:
        try:
            answer = self.chat.complete(
                messages, temperature=self.temperature, max_tokens=self.max_tokens, sample_index=index
            )
        except (LLMUnavailable, LLMCacheMiss):
            raise
        except LLMError as error:
            # the model (or what it sent back) gave no answer worth keeping: an unloadable program
            return self._without_code(task, index, f"no answer ({error})")
        code = extract_code(answer.text, task.entry_point)
        if code is None:
            preview = _flat(answer.text)[:60]
            return self._without_code(task, index, f"the answer has no code: {preview!r}")
        with self._lock:
            self.sampled += 1
        return Candidate(
            task_id=task.task_id,
            model=self.chat.model,
            temperature=self.temperature,
            index=index,
            source=code,
            entry_point=task.entry_point,
        )

    def _without_code(self, task: Task, index: int, why: str) -> Candidate:
        with self._lock:
            self.sampled += 1
            self.no_code += 1
            self.notes.append(f"{self.label}:{task.task_id}#{index}: {why}")
        return Candidate(
            task_id=task.task_id,
            model=self.chat.model,
            temperature=self.temperature,
            index=index,
            source="",
            entry_point=task.entry_point,
        )

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LLMCandidates:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
