"""REFUTE's rows, actions, prompts and the shared benchmark core (no code runs here)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from divergent.bench.common import pass_at_k, read_results, run_items, stored_results, write_results
from divergent.bench.refute.actions import ActionError, find_action, parse_actions, reason_of
from divergent.bench.refute.dataset import CPP, PYTHON, build_for, load_refute
from divergent.bench.refute.prompts import OurPrompts, RefuteAuthorsPrompts, authors_task
from divergent.errors import InvalidArgument, LLMUnavailable, LoadError, MissingExtra
from divergent.store import Store

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent.parent / "shared" / "data" / "refute"
if not SHARED.is_dir():  # a clone with shared/ beside it
    SHARED = ROOT.parent / "shared" / "data" / "refute"
CORPUS = ROOT / "examples" / "refute" / "corpus.jsonl"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="shared/data/refute is not beside this checkout")


@needs_shared
def test_the_demo_fixtures_load_with_their_gaps_reported() -> None:
    data = load_refute(SHARED / "demo_fixtures.jsonl")
    assert [t.problem_id for t in data.tasks] == [f"refute-demo-{i}" for i in range(1, 7)]
    assert not data.problems
    reasons = {t.problem_id: t.unusable() for t in data.tasks}
    assert reasons["refute-demo-1"] == "no correct code"
    assert "no validator" in reasons["refute-demo-4"]
    assert data.tasks[5].wrong_build == PYTHON and data.tasks[5].correct_build == CPP
    assert all(t.unusable(require_validator=False) is None for t in data.tasks[3:])
    assert data.tasks[3].time_limit_ms == 1000 and data.tasks[3].memory_limit_mb == 256


def test_the_corpus_loads_and_is_up_to_date() -> None:
    data = load_refute(CORPUS)
    assert len(data.tasks) >= 20 and not data.problems
    assert all(task.unusable() is None for task in data.tasks)
    languages = {task.wrong_build.language for task in data.tasks if task.wrong_build}
    assert languages == {"cpp", "python"}
    assert {task.correct_build.language for task in data.tasks if task.correct_build} == {"cpp", "python"}
    sys.path.insert(0, str(CORPUS.parent))
    try:
        import build_corpus
    finally:
        sys.path.remove(str(CORPUS.parent))
    assert CORPUS.read_text(encoding="utf-8").splitlines() == build_corpus.corpus_lines(), \
        "examples/refute/corpus.jsonl is stale: run python examples/refute/build_corpus.py"


@pytest.mark.parametrize(("language", "expected"), [
    ("C++17 (GCC 7-32)", "cpp"), ("C++20 (GCC 13-64)", "cpp"), ("C++23 (GCC 14-64, msys2)", "cpp"),
    ("GNU C++17", "cpp"), ("Clang++17 Diagnostics", "cpp"), ("C++ 23", "cpp"), ("cpp", "cpp"),
    ("PyPy 3-64", "python"), ("Python 3", "python"), ("python3", "python"), ("Python", "python"),
    ("GNU C11", "c"), ("C", "c"), ("Java 21", "java"),
    ("Python 2", None), ("Kotlin 1.9", None), ("C#", None), ("JavaScript", None), ("", None), ("Rust 2021", None),
])
def test_codeforces_language_strings_map_to_builds(language: str, expected: str | None) -> None:
    build = build_for(language)
    assert (build.language if build else None) == expected
    if expected == "cpp":
        assert "-std=c++23" in build.flags


def _row(**changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "problem_id": "1A", "statement": "s", "input": "i", "output": "o", "note": "", "example_input": "1\n",
        "example_output": "2\n", "time_limit": 1000, "memory_limit": 256, "wrong_code": "w",
        "wrong_code_lang": "C++17 (GCC 7-32)", "correct_cpp": None, "correct_python": "c", "validator": "v",
        "problem_rating": 1500, "tags": ["greedy"], "author_rating": 2100,
    }
    row.update(changes)
    return row


def test_rows_in_every_shape_load_and_bad_rows_are_reported(tmp_path: Path) -> None:
    lines = [json.dumps(_row()), "not json", json.dumps(_row(problem_id="2B", time_limit=-5)),
             json.dumps(_row(problem_id="3C", wrong_code_lang="Kotlin")), json.dumps(_row())]
    (tmp_path / "rows.jsonl").write_text("\n".join(lines) + "\n")
    data = load_refute(tmp_path / "rows.jsonl")
    assert [t.problem_id for t in data.tasks] == ["1A", "3C"]
    assert [p.line_number for p in data.problems] == [2, 3, 5]
    assert "time_limit" in data.problems[1].message and "duplicate" in data.problems[2].message
    assert data.tasks[0].correct_build == PYTHON and data.tasks[0].metadata["author_rating"] == 2100
    assert "Kotlin" in data.tasks[1].unusable()
    (tmp_path / "rows.json").write_text(json.dumps([_row(), _row(problem_id="9Z")]))
    assert [t.problem_id for t in load_refute(tmp_path / "rows.json").tasks] == ["1A", "9Z"]
    whole = load_refute(tmp_path)  # a directory: its data files in name order, duplicates reported
    assert [t.problem_id for t in whole.tasks] == ["1A", "9Z", "3C"]
    with pytest.raises(InvalidArgument, match="no problem 'nope'"):
        data.select(["nope"])
    assert [t.problem_id for t in data.select(["3C", "1A"], limit=1)] == ["3C"]
    with pytest.raises(LoadError, match="no such file"):
        load_refute(tmp_path / "missing.jsonl")
    (tmp_path / "empty.jsonl").write_text("[]")
    with pytest.raises(LoadError, match="no usable REFUTE row"):
        load_refute(tmp_path / "empty.jsonl")


def test_parquet_needs_the_bench_extra_or_reads_with_it(tmp_path: Path) -> None:
    path = tmp_path / "train.parquet"
    try:
        import pyarrow
        import pyarrow.parquet as parquet
    except ImportError:
        path.write_bytes(b"PAR1")
        with pytest.raises(MissingExtra, match=r"divergent\[bench\]"):
            load_refute(path)
        return
    parquet.write_table(pyarrow.Table.from_pylist([_row(), _row(problem_id="2B")]), path)
    assert [t.problem_id for t in load_refute(path).tasks] == ["1A", "2B"]


def test_actions_are_parsed_leniently() -> None:
    answer = """<think><action><name>print_fail_case</name><code>print(0)</code></action></think>
<reason>the bound</reason>
```xml
<Action>
<name> print_fail_case </name>
<code>
```cpp
#include &lt;cstdio&gt;
int main() { if (1 < 2) puts("3"); }
```
</code>
<lang>C++ 23</lang>
</Action>
```
<action><name>run_code</name><code>print(input())</code>"""
    actions = parse_actions(answer)
    assert [a.name for a in actions] == ["print_fail_case", "run_code"]
    submitted = find_action(answer, "print_fail_case")
    assert submitted.code.startswith("#include <cstdio>") and "1 < 2" in submitted.code
    assert submitted.build == CPP
    assert actions[1].build == PYTHON  # no <lang>: guessed from the code
    assert reason_of(answer) == "the bound"
    with pytest.raises(ActionError, match="no generate_tc action"):
        find_action(answer, "generate_tc")
    with pytest.raises(ActionError, match="no <action>"):
        find_action("I think n = 5 breaks it.", "print_fail_case")
    with pytest.raises(ActionError, match="not one of"):
        find_action("<action><name>print_fail_case</name><code>x</code><lang>Rust</lang></action>", "print_fail_case")
    with pytest.raises(ActionError, match="no <code>"):
        find_action("<action><name>print_fail_case</name><lang>Python 3</lang></action>", "print_fail_case")


def test_prompts_ours_and_the_authors_files_as_data(tmp_path: Path) -> None:
    task = load_refute(CORPUS).tasks[0]
    ours = OurPrompts()
    zero = ours.messages("zero_shot", task)
    assert zero[0]["role"] == "system" and "print_fail_case" in zero[0]["content"]
    assert task.wrong_code.strip() in zero[1]["content"] and task.correct_code.strip() not in zero[1]["content"]
    assert task.correct_code.strip() in ours.messages("zero_shot_oracle", task)[1]["content"]
    assert "### Example 3" in ours.messages("few_shot", task)[0]["content"]
    assert "90 s" in ours.messages("randsearch", task, loop_seconds=90)[0]["content"]
    (tmp_path / "zero_shot_system.txt").write_text("SYSTEM {not a placeholder} $$$x$$$")
    (tmp_path / "zero_shot_human.txt").write_text("HUMAN")
    theirs = RefuteAuthorsPrompts(tmp_path)
    messages = theirs.messages("zero_shot", task)
    assert messages[0]["content"] == "SYSTEM {not a placeholder} $$$x$$$"
    assert messages[1]["content"].startswith("HUMAN\n\n## Statement") and "## Code" in messages[1]["content"]
    assert theirs.messages("agent", task) == ours.messages("agent", task)  # their set has no agent prompt
    assert theirs.fingerprint.startswith("authors:chat:") and theirs.fingerprint != ours.fingerprint
    assert "## Correct Code" in authors_task(task, with_correct=True)
    with pytest.raises(LoadError, match="not a directory"):
        RefuteAuthorsPrompts(tmp_path / "missing")


@needs_shared
def test_the_authors_templates_load_as_data() -> None:
    prompts = RefuteAuthorsPrompts(SHARED / "prompt_templates", variant="reasoning")
    task = load_refute(CORPUS).tasks[0]
    system = prompts.messages("randsearch", task)[0]["content"]
    assert system == (SHARED / "prompt_templates" / "reasoning_randsearch_system.txt").read_text()


def test_pass_at_k_matches_the_formula() -> None:
    assert pass_at_k(1, 1, 1) == 1.0 and pass_at_k(1, 0, 1) == 0.0
    assert pass_at_k(5, 1, 1) == pytest.approx(0.2)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - (3 * 2) / (5 * 4))
    assert pass_at_k(4, 3, 2) == 1.0
    with pytest.raises(InvalidArgument):
        pass_at_k(3, 1, 4)


def test_a_stored_run_resumes_and_stops_on_a_fatal_error(tmp_path: Path) -> None:
    done: list[str] = []

    def work(payload: str) -> dict[str, str]:
        if payload == "boom":
            raise LoadError("cannot build")
        if payload == "dead":
            raise LLMUnavailable("endpoint down")
        done.append(payload)
        return {"value": payload}

    with Store(tmp_path / "s.db") as store:
        items = [(k, k) for k in ("a", "boom", "b")]
        run, progress = run_items(store, "demo", {"x": 1}, items, work, jobs=2)
        assert run.status == "finished" and progress.failed == 1 and "cannot build" in progress.messages[0]
        results, errors = stored_results(store, run)
        assert set(results) == {"a", "b"} and "cannot build" in errors["boom"]
        again, progress = run_items(store, "demo", {"x": 1}, items, work)
        assert again.id == run.id and progress.resumed == 3 and sorted(done) == ["a", "b"]
        with pytest.raises(LLMUnavailable):
            run_items(store, "demo", {"x": 2}, [("d", "dead"), ("e", "e")], work, fatal=(LLMUnavailable,))
        assert "e" not in done and store.find_run("demo", {"x": 2}).status == "failed"


def test_results_files_round_trip(tmp_path: Path) -> None:
    document = {"benchmark": "refute", "format": 1, "parameters": {"a": 1}, "summary": {"rate": float("nan")}}
    write_results(tmp_path / "r.json", document)
    back = read_results(tmp_path / "r.json", "refute")
    assert back["summary"]["rate"] is None and back["parameters"] == {"a": 1}
    with pytest.raises(LoadError, match="not 'equibench'"):
        read_results(tmp_path / "r.json", "equibench")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(LoadError, match="not JSON"):
        read_results(tmp_path / "bad.json", "refute")
    (tmp_path / "new.json").write_text(json.dumps({"benchmark": "refute", "format": 99}))
    with pytest.raises(LoadError, match="newer"):
        read_results(tmp_path / "new.json", "refute")
