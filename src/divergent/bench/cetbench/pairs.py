"""CETBench pair files and the material the generator starts from.

A pairs file is JSON lines, one generated pair a line (:meth:`GeneratedPair.as_dict`)::

    {"pair_id": "cet-00007", "index": 7, "label": "<fe, 3, np>", "category": "fe", "k": 3, "flag": "np",
     "equivalent": false, "program_1": "...", "program_2": "...", "original_1": "...", "original_2": "...",
     "tasks": ["HumanEval/12", "HumanEval/12"], "entry_points": ["longest", "longest"],
     "origins": ["ground_truth", "gpt_4o@0.6:HumanEval/12#3"],
     "steps": [{"program": 2, "type": "variable_renaming", "flag": "sp", "description": "..."}, ...],
     "original_witness": null, "tests": "def check(candidate): ...", "seed": 1, "seconds": 4.2}

Only ``pair_id``, ``program_1``, ``program_2``, ``equivalent`` and ``category`` are needed to judge a
pair (so pairs made elsewhere, e.g. the authors' stdin programs, can be judged too); ``k``, ``flag``
and ``steps`` feed the breakdowns, ``entry_points`` and ``tests`` (its seed calls) the execution judge.

Material: ``--tasks humaneval|mbpp|FILE`` (:func:`divergent.datasets.load_tasks`) or a directory
holding ``tasks.jsonl`` (and ``samples.jsonl[.gz]``); the recorded samples default to the DiffTrust
artifact's files for HumanEval and MBPP (``candidates_HumanEval.jsonl.gz``,
``candidates_MBPP_dev.jsonl.gz``) in the benchmark data directory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from divergent.datasets import Candidate, TaskSet, default_data_dir, load_candidates_jsonl, load_tasks
from divergent.datasets.jsonl import BadRecord, LineProblem, decode_object, json_lines
from divergent.errors import InvalidArgument, LoadError

__all__ = ["DEFAULT_SAMPLE_MODELS", "CetPair", "load_material", "read_pairs"]

#: the recorded configurations used by default: strong and weak models, so that both correct
#: samples (fe) and incorrect ones (ne) are common
DEFAULT_SAMPLE_MODELS = {
    "humaneval": (("gpt_4o", 0.6), ("deepseek_v3_0324", 0.6), ("ministral_8b", 0.6), ("llama_4_maverick_17b", 0.6)),
    "mbpp": (("gpt_4o", 0.6), ("claude_opus_4", 0.6), ("ministral_8b", 0.6)),
}
_DEFAULT_SAMPLE_FILES = {"humaneval": "candidates_HumanEval.jsonl.gz", "mbpp": "candidates_MBPP_dev.jsonl.gz"}


@dataclass(frozen=True)
class CetPair:
    """A pair to judge (a generated pair's fields that judging needs)."""

    pair_id: str
    program_1: str
    program_2: str
    equivalent: bool
    category: str
    flag: str = ""
    k: int = 0
    steps: tuple[dict[str, Any], ...] = ()
    entry_points: tuple[str, str] = ("", "")
    original_1: str = ""
    original_2: str = ""
    #: the task's test code (assert lines, or HumanEval's check): seed calls for the execution judge
    tests: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        """The perturbation types applied (each once)."""
        return tuple(dict.fromkeys(str(step.get("type", "")) for step in self.steps if step.get("type")))


def _pair(record: dict[str, Any]) -> CetPair:
    for name in ("pair_id", "program_1", "program_2", "category"):
        if not isinstance(record.get(name), str) or not record[name]:
            raise BadRecord(f"field {name!r} must be a non-empty string")
    if not isinstance(record.get("equivalent"), bool):
        raise BadRecord("field 'equivalent' must be true or false")
    steps = record.get("steps") or []
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise BadRecord("field 'steps' must be a list of objects")
    entry_points = record.get("entry_points") or ["", ""]
    if not (isinstance(entry_points, list) and len(entry_points) == 2 and all(isinstance(e, str) for e in entry_points)):
        raise BadRecord("field 'entry_points' must be two strings")
    k = record.get("k", len(steps))
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise BadRecord("field 'k' must be a count")
    return CetPair(
        pair_id=record["pair_id"], program_1=record["program_1"], program_2=record["program_2"],
        equivalent=record["equivalent"], category=record["category"], flag=str(record.get("flag", "")),
        k=k, steps=tuple(steps), entry_points=(entry_points[0], entry_points[1]),
        original_1=str(record.get("original_1", "")), original_2=str(record.get("original_2", "")),
        tests=str(record.get("tests") or ""),
    )


def read_pairs(path: Path | str) -> tuple[list[CetPair], list[LineProblem]]:
    """The pairs of a pairs file, and the lines that could not be used."""
    file = Path(path)
    if not file.is_file():
        raise LoadError(f"{file}: no such file")
    problems: list[LineProblem] = []
    pairs: list[CetPair] = []
    seen: set[str] = set()
    for number, raw in json_lines(file, problems):
        try:
            pair = _pair(decode_object(raw))
        except BadRecord as error:
            problems.append(LineProblem(file, number, str(error)))
            continue
        if pair.pair_id in seen:
            problems.append(LineProblem(file, number, f"duplicate pair_id {pair.pair_id!r}"))
            continue
        seen.add(pair.pair_id)
        pairs.append(pair)
    if not pairs:
        raise LoadError(f"{file}: no usable pairs" + (f" ({problems[0]})" if problems else ""))
    return pairs, problems


def done_indices(path: Path, seed: int) -> set[int]:
    """Indices already in a pairs file made with ``seed`` (to resume); InvalidArgument for another seed."""
    done: set[int] = set()
    if not path.is_file():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("seed") != seed:
            raise InvalidArgument(f"{path} holds pairs made with seed {record.get('seed')}, not {seed}: "
                                  "pass --force to overwrite it, or another --out")
        if isinstance(record.get("index"), int):
            done.add(record["index"])
    return done


def load_material(
    tasks: str,
    samples: str | None = None,
    *,
    models: tuple[tuple[str, float], ...] | None = None,
    per_task: int = 5,
    limit_tasks: int | None = None,
) -> tuple[TaskSet, dict[str, list[Candidate]]]:
    """Tasks and their recorded samples (by task id), as the generator wants them."""
    key = tasks.strip().lower()
    directory = Path(tasks).expanduser()
    sample_file: Path | None = Path(samples).expanduser() if samples else None
    if directory.is_dir():
        task_file = directory / "tasks.jsonl"
        if not task_file.is_file():
            raise LoadError(f"{directory}: expected tasks.jsonl (and samples.jsonl[.gz]) in it")
        task_set = load_tasks(str(task_file))
        if sample_file is None:
            for name in ("samples.jsonl", "samples.jsonl.gz"):
                if (directory / name).is_file():
                    sample_file = directory / name
    else:
        task_set = load_tasks(tasks)
        if sample_file is None and key in _DEFAULT_SAMPLE_FILES:
            data_dir = default_data_dir()
            if data_dir is not None and (data_dir / _DEFAULT_SAMPLE_FILES[key]).is_file():
                sample_file = data_dir / _DEFAULT_SAMPLE_FILES[key]
                if models is None:
                    models = DEFAULT_SAMPLE_MODELS[key]
    if limit_tasks is not None:
        task_set = TaskSet(task_set[:limit_tasks], problems=task_set.problems)
    by_task: dict[str, list[Candidate]] = {}
    if sample_file is not None:
        wanted = {t.task_id for t in task_set} | {t.qualified_id for t in task_set}
        candidates = load_candidates_jsonl(sample_file, models=models, tasks=wanted, per_task=per_task)
        qualified = {t.qualified_id: t.task_id for t in task_set}
        for candidate in candidates:
            by_task.setdefault(qualified.get(candidate.task_id, candidate.task_id), []).append(candidate)
    return task_set, by_task
