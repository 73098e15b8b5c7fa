"""``divergent bench selfconsistency``: each task's samples clustered by behaviour, the largest class
picked and scored on the task's tests; stored per (model, task), resumable, on threads or on a local
Ray head this module starts (skipped without the ray extra)."""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent import __version__
from divergent.bench.benchmark import Workbench
from divergent.bench.selfconsistency.run import SelfConsistencyConfig, run_selfconsistency, summarize
from divergent.bench.selfconsistency.solve import ClusterSettings, SampleClusterer, cluster_samples
from divergent.cli import app
from divergent.datasets import Candidate, load_candidates, load_tasks
from divergent.datasets.jobs import JobPayload, TaskJob
from divergent.errors import InvalidArgument
from divergent.executors.base import ThreadExecutor
from divergent.executors.ray_cluster import decode, run_item
from divergent.store import Store
from stored_runs import interrupt_after_first_unit, stored_units

ROOT = Path(__file__).resolve().parents[1]

TASKS = [
    {"task_id": "S/0", "entry_point": "double", "ground_truth": "def double(x: int) -> int:\n    return 2 * x\n",
     "tests": ["assert double(3) == 6", "assert double(-2) == -4"]},
    {"task_id": "S/1", "entry_point": "last", "ground_truth": "def last(xs: list[int]) -> int:\n    return xs[-1]\n",
     "tests": ["assert last([1, 2]) == 2", "assert last([5]) == 5"]},
    {"task_id": "S/2", "entry_point": "neg", "ground_truth": "def neg(x: int) -> int:\n    return -x\n",
     "tests": ["assert neg(4) == -4"]},
]
SAMPLES = {
    # three right ones, one wrong, one that loops, one that crashes its process, one whose module raises
    # when it loads, one that does not parse: the right ones are the largest class
    "S_0": ["def double(x):\n    return x + x\n",
            "def double(x):\n    return 2 * x\n",
            "def double(x: int) -> int:\n    y = x\n    return y * 2\n",
            "def double(x):\n    return x + 2\n",
            "def double(x):\n    while True:\n        pass\n",
            "import os\ndef double(x):\n    os._exit(3)\n",
            "raise RuntimeError('broken at import')\ndef double(x):\n    return 2 * x\n",
            "def double(x) return 2 * x\n"],
    # annotated differently (``list`` beside ``List[int]``): called through the task's signature
    "S_1": ["def last(xs: list):\n    return xs[-1]\n",
            "from typing import List\ndef last(xs: List[int]) -> int:\n    return xs[len(xs) - 1]\n",
            "def last(xs):\n    return xs[0]\n"],
    # the wrong answer is the majority: the pick does worse than a random sample
    "S_2": ["def neg(x):\n    return -x\n",
            "def neg(x):\n    return x\n",
            "def neg(x):\n    return abs(x)\n"],
}
FAST = ("--budget", "3", "--timeout", "0.5", "--engines", "seeds,mutation")


def make_benchmark(tmp_path: Path, model: str = "toy@0.5") -> tuple[Path, Path]:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    for task_dir, sources in SAMPLES.items():
        folder = tmp_path / "samples" / model / task_dir
        folder.mkdir(parents=True)
        for i, source in enumerate(sources):
            folder.joinpath(f"{i}.py").write_text(source)
    return tasks, tmp_path / "samples"


def invoke(*args: str, home: Path) -> object:
    return CliRunner().invoke(app, ["bench", "selfconsistency", *args], env={"DIVERGENT_HOME": str(home)})


def candidates(tmp_path: Path, task_number: int) -> tuple[object, list[Candidate]]:
    """A task as the loader reads it, and its samples."""
    path = tmp_path / "one-task.jsonl"
    path.write_text(json.dumps(TASKS[task_number]) + "\n")
    (task,) = load_tasks(str(path))
    sources = SAMPLES[task.task_id.replace("/", "_")]
    return task, [Candidate(task.task_id, "toy", 0.5, i, source) for i, source in enumerate(sources)]


SETTINGS = ClusterSettings(budget=3.0, timeout=0.5, engines=("seeds", "mutation"))


# ---------------------------------------------------------------- one task


def test_the_largest_class_is_picked_and_broken_samples_stand_apart(tmp_path: Path) -> None:
    task, samples = candidates(tmp_path, 0)
    unit = cluster_samples(task, samples, SETTINGS)
    classes = [set(group) for group in unit["classes"]]
    assert classes[0] == {0, 1, 2} and unit["pick"] in {0, 1, 2} and not unit["tied"]
    # the one that does not parse and the one whose module raises cannot be called: each a class of
    # its own, named with its error, after the others
    assert classes[-2:] == [{6}, {7}] and set(unit["unloadable"]) == {"6", "7"}
    assert "does not load in the sandbox" in unit["unloadable"]["6"]
    # the wrong one, the loop and the crash each behave on their own
    assert {3} in classes and {4} in classes and {5} in classes
    assert unit["tests"]["total"] == 2 and unit["tests"]["passed"] == [2, 2, 2, 0, 0, 0, 0, 0]
    assert unit["pass_at_1"] == 1.0 and unit["baseline_pass_at_1"] == pytest.approx(3 / 8)
    assert unit["search"]["splits"] >= 1


def test_a_tie_is_scored_as_the_paper_counts_it(tmp_path: Path) -> None:
    task, samples = candidates(tmp_path, 2)
    unit = cluster_samples(task, samples, SETTINGS)
    # -x and abs(x) differ on negative numbers, x on every non-zero one: three classes of one, a
    # three-way tie, scored as the average of the tied classes
    assert sorted(map(tuple, unit["classes"])) == [(0,), (1,), (2,)]
    assert unit["tied"] and unit["pass_at_1"] == pytest.approx(1 / 3) == unit["baseline_pass_at_1"]


def test_the_solver_travels_as_data_and_answers_as_a_ray_worker_would(tmp_path: Path) -> None:
    task, samples = candidates(tmp_path, 1)
    payload = JobPayload.pack(TaskJob(task=task, candidates={("toy", 0.5): samples}))
    solver = pickle.loads(pickle.dumps(SampleClusterer(SETTINGS)))
    finished = decode("toy@0.5/S/1", run_item(solver, payload, (), __version__), ())
    assert finished.error is None
    unit = finished.result
    assert (unit["model"], unit["temperature"], unit["task_id"]) == ("toy", 0.5, "S/1")
    assert sorted(map(sorted, unit["classes"])) == [[0, 1], [2]] and unit["pass_at_1"] == 1.0
    assert any("signatures disagree" in note for note in unit["notes"]) and not unit["unloadable"]


def test_the_cpython_ast_race_of_threads_costs_one_retry_not_the_task(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from divergent.bench.selfconsistency import solve

    task, samples = candidates(tmp_path, 1)
    payload = JobPayload.pack(TaskJob(task=task, candidates={("toy", 0.5): samples}))
    calls = []

    def flaky(task, candidates, settings):  # type: ignore[no-untyped-def]
        calls.append(task.task_id)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=57, after=54)")
        return {"classes": [[0, 1, 2]]}

    monkeypatch.setattr(solve, "cluster_samples", flaky)
    assert SampleClusterer(SETTINGS)(payload)["classes"] == [[0, 1, 2]] and len(calls) == 2

    def broken(task, candidates, settings):  # type: ignore[no-untyped-def]
        raise SystemError("something else")

    monkeypatch.setattr(solve, "cluster_samples", broken)
    with pytest.raises(SystemError, match="something else"):
        SampleClusterer(SETTINGS)(payload)


def test_settings_refuse_engines_that_need_a_model() -> None:
    with pytest.raises(InvalidArgument, match="needs a language model"):
        ClusterSettings(engines=("seeds", "llm"))
    with pytest.raises(InvalidArgument, match="unknown engine"):
        ClusterSettings(engines=("telepathy",))


def test_samples_are_read_by_the_one_loader_from_jsonl_or_directories(tmp_path: Path) -> None:
    tasks_file, directory = make_benchmark(tmp_path)
    tasks = load_tasks(str(tasks_file))
    lines = tmp_path / "samples.jsonl"
    lines.write_text("".join(
        json.dumps({"model": model, "temperature": temperature, "task_id": task_dir.replace("_", "/"), "index": i,
                    "code": source}) + "\n"
        for model, temperature in (("toy", 0.5), ("other", 0.2))
        for task_dir, sources in SAMPLES.items() for i, source in enumerate(sources)))
    from_lines = load_candidates(lines, tasks, models=(("toy", 0.5),), per_task=2)
    from_directory = load_candidates(directory, tasks, models=(("toy", 0.5),), per_task=2)
    for found in (from_lines, from_directory):
        assert found.configurations() == [("toy", 0.5)]
        assert [c.source for c in found.source("toy", 0.5).candidates(tasks[0], 8)] == SAMPLES["S_0"][:2]
    for samples in (lines, directory):
        with pytest.raises(InvalidArgument, match=r"no samples of nosuch@0\.1"):
            load_candidates(samples, tasks, models=(("toy", 0.5), ("nosuch", 0.1)))


# ---------------------------------------------------------------- the command, on threads


def test_run_show_and_list_on_threads(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    out = tmp_path / "out.json"
    result = invoke("run", "--tasks", str(tasks), "--samples", str(samples), "-m", "8", *FAST, "-j", "2",
                    "--json-file", str(out), "--html", str(tmp_path / "page.html"), home=tmp_path)
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["benchmark"] == "selfconsistency" and document["status"] == "finished"
    (model,) = document["summary"]["models"]
    assert (model["model"], model["temperature"], model["tasks"], model["scored"]) == ("toy", 0.5, 3, 3)
    # S/0: 1 against 3/8; S/1: 1 against 2/3; S/2: a tie, 1/3 against 1/3
    assert model["pass_at_1"] == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert model["baseline_pass_at_1"] == pytest.approx((3 / 8 + 2 / 3 + 1 / 3) / 3)
    assert (model["better"], model["worse"], model["same"], model["tied"]) == (2, 0, 1, 1)
    assert [item["key"] for item in document["items"]] == ["toy@0.5/S/0", "toy@0.5/S/1", "toy@0.5/S/2"]
    assert "Semantic self-consistency" in (tmp_path / "page.html").read_text()
    # show runs nothing and says the same; list names the run
    shown = invoke("show", document["run"][:8], "--json", home=tmp_path)
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["summary"] == document["summary"]
    listed = invoke("list", home=tmp_path)
    assert listed.exit_code == 0 and document["run"][:8] in listed.output


def test_bad_input_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    database = tmp_path / "divergent.sqlite3"
    lonely = tmp_path / "lonely" / "toy@0.5" / "S_0"
    lonely.mkdir(parents=True)
    (lonely / "0.py").write_text(SAMPLES["S_0"][0])
    cases = [
        (("--tasks", str(tasks), "--samples", str(tmp_path / "lonely")), "has 2 or more samples"),
        (("--tasks", str(tmp_path / "missing.jsonl"), "--samples", str(samples)), "no such file"),
        (("--tasks", str(tasks), "--samples", str(tmp_path / "nowhere")), "no such file or directory"),
        (("--tasks", str(tasks), "--samples", str(samples), "--models", "nosuch@0.1"), "no samples of nosuch@0.1"),
        (("--tasks", str(tasks), "--samples", str(samples), "--address", "auto"), "--executor ray"),
        (("--tasks", str(tasks), "--samples", str(samples), "--executor", "dask"), "threads or ray"),
        (("--tasks", str(tasks), "--samples", str(samples), "--engines", "llm"), "needs a language model"),
        (("--tasks", str(tasks), "--samples", str(samples), "-j", "0"), "-j"),
        (("--tasks", str(tasks), "--samples", str(samples), "-m", "1"), "-m"),
    ]
    for arguments, message in cases:
        result = invoke("run", *arguments, home=tmp_path)
        assert result.exit_code == 2, (arguments, result.output)
        assert message in result.output, (arguments, result.output)
    assert not database.exists() or not stored_units(database)


def test_a_ray_address_where_nothing_listens_is_refused_at_once(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'divergent[ray]')")
    tasks, samples = make_benchmark(tmp_path)
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = invoke("run", "--tasks", str(tasks), "--samples", str(samples), "--executor", "ray", "--address",
                    f"127.0.0.1:{port}", home=tmp_path)
    assert result.exit_code == 2 and "no Ray cluster answers" in result.output, result.output
    assert not stored_units(tmp_path / "divergent.sqlite3")


def test_an_interrupted_run_resumes_without_redoing_finished_tasks(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    config = SelfConsistencyConfig(tasks=str(tasks), samples=str(samples), m=8, settings=SETTINGS)
    worked: list[str] = []

    class Recording(ThreadExecutor):
        def map(self, work, items, on_done, *, fatal=()):  # type: ignore[no-untyped-def]
            def noted():
                for key, payload in items:
                    worked.append(key)
                    yield key, payload
            super().map(work, noted(), on_done, fatal=fatal)

    def stop_after_the_first(progress) -> None:  # type: ignore[no-untyped-def]
        if progress.done == 1:
            raise KeyboardInterrupt

    with Store(tmp_path / "runs.db") as store:
        with pytest.raises(KeyboardInterrupt):
            run_selfconsistency(config, Workbench(store, Recording(1), on_progress=stop_after_the_first))
        (interrupted,) = store.list_runs("bench-selfconsistency")
        assert interrupted.status == "interrupted" and worked == ["toy@0.5/S/0"]
        first = {unit.key: unit.result for unit in store.units(interrupted.id)}
        worked.clear()
        worked_ = run_selfconsistency(config, Workbench(store, Recording(2)))
        record, progress = worked_.run, worked_.progress
        assert record.id == interrupted.id and record.status == "finished"
        assert sorted(worked) == ["toy@0.5/S/1", "toy@0.5/S/2"] and progress.resumed == 1
        units = {unit.key: unit.result for unit in store.units(record.id)}
        assert units["toy@0.5/S/0"] == first["toy@0.5/S/0"] and len(units) == 3
        assert summarize(store, record).models[0].scored == 3


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_tasks_and_the_same_command_resumes(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    command = [sys.executable, "-m", "divergent", "bench", "selfconsistency", "run", "--tasks", str(tasks),
               "--samples", str(samples), "-m", "8", "--budget", "6", "--timeout", "0.5", "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(tmp_path)}
    database = tmp_path / "divergent.sqlite3"
    returncode, stderr = interrupt_after_first_unit(command, env, database)
    assert returncode == 130, stderr
    assert "interrupted" in stderr and "run the same command to resume" in stderr
    kept = stored_units(database)
    assert len(kept) == 1  # the task in flight at Ctrl-C is not stored half-clustered
    finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    keys = [key for key, _ in stored_units(database)]
    assert len(keys) == len(set(keys)) == 3 and set(kept) <= set(stored_units(database))


# ---------------------------------------------------------------- against a local Ray instance


def test_ray_gives_the_threads_results_and_resumes(ray_cluster: str, tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    common = ("run", "--tasks", str(tasks), "--samples", str(samples), "-m", "8", *FAST)
    outputs = {}
    for name, where in (("threads", ("-j", "2")), ("ray", ("--executor", "ray", "--address", ray_cluster))):
        result = invoke(*common, *where, "--json-file", str(tmp_path / f"{name}.json"), home=tmp_path / name)
        assert result.exit_code == 0, result.output
        outputs[name] = json.loads((tmp_path / f"{name}.json").read_text())

    def decisions(document: dict) -> dict[str, tuple]:
        return {item["key"]: (sorted(map(sorted, item["classes"])), item["pass_at_1"], item["baseline_pass_at_1"])
                for item in document["items"]}

    assert decisions(outputs["ray"]) == decisions(outputs["threads"])
    assert outputs["ray"]["summary"] == outputs["threads"]["summary"]
    assert {state for _, state in stored_units(tmp_path / "ray" / "divergent.sqlite3")} == {"done"}
    # the same command resumes the stored run: nothing is left, on either executor
    again = invoke(*common, "--executor", "ray", "--address", ray_cluster, "--jobs", "1", "--json-file",
                   str(tmp_path / "again.json"), home=tmp_path / "ray")
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "again.json").read_text())["run"] == outputs["ray"]["run"]
    assert len(stored_units(tmp_path / "ray" / "divergent.sqlite3")) == 3
