"""``divergent incoherence`` end to end: a small benchmark, stored runs, resuming after a kill."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TASKS = [
    {"task_id": "T/0", "entry_point": "double", "ground_truth": "def double(x: int) -> int:\n    return 2 * x\n",
     "tests": ["assert double(3) == 6", "assert double(-1) == -2"]},
    {"task_id": "T/1", "entry_point": "last", "ground_truth": "def last(xs: list[int]) -> int:\n    return xs[-1]\n",
     "tests": ["assert last([1, 2]) == 2"]},
]
SAMPLES = {
    "T_0": ["def double(x):\n    return x + x\n", "def double(x):\n    return x * 2\n",
            "def double(x):\n    return x * 2 if x != 7 else 15\n"],
    "T_1": ["def last(xs):\n    return xs[len(xs) - 1]\n", "def last(xs):\n    return xs[-1]\n",
            "def last(xs):\n    while True:\n        pass\n"],
}


def make_benchmark(tmp_path: Path) -> tuple[Path, Path]:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    samples = tmp_path / "samples" / "toy@0.5"
    for task_dir, sources in SAMPLES.items():
        (samples / task_dir).mkdir(parents=True)
        for i, source in enumerate(sources):
            (samples / task_dir / f"{i}.py").write_text(source)
    return tasks, tmp_path / "samples"


def divergent(*args: str, home: Path, **kwargs) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "divergent", *args], capture_output=True, text=True, env=env,
                          timeout=300, **kwargs)


def test_study_runs_stores_and_shows(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    out = tmp_path / "results.json"
    result = divergent("incoherence", "--tasks", str(tasks), "--samples", str(samples), "-m", "3", "-n", "40",
                       "--timeout", "0.3", "--json", str(out), home=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    (model,) = data["models"]
    assert model["model"] == "toy" and model["temperature"] == 0.5
    assert set(model) >= {"mean_error", "mean_incoherence", "pass_at_1", "spearman", "detection_rate",
                          "undetected_mean_error", "tasks"}
    by_task = {t["task_id"]: t for t in model["tasks"]}
    assert set(by_task) == {"T/0", "T/1"}
    assert by_task["T/1"]["error"] > 0 and by_task["T/1"]["incoherence"] > 0  # the looping sample is wrong
    assert "ranking_spearman" in data
    # the same command again resumes the finished run: nothing new to run, the same numbers
    again = divergent("incoherence", "--tasks", str(tasks), "--samples", str(samples), "-m", "3", "-n", "40",
                      "--timeout", "0.3", "--json", str(out), home=tmp_path)
    assert again.returncode == 0 and json.loads(out.read_text())["models"] == data["models"]
    listed = divergent("incoherence", "list", home=tmp_path)
    run_id = data["run"][:8]
    assert run_id in listed.stdout
    shown = divergent("incoherence", "show", run_id, home=tmp_path)
    assert shown.returncode == 0 and "toy" in shown.stdout


def test_pac_sizes_and_bad_arguments(tmp_path: Path) -> None:
    pac = divergent("incoherence", "--epsilon", "0.05", "--delta", "0.01", home=tmp_path)
    assert pac.returncode == 0 and "1,060" in pac.stdout and "90" in pac.stdout
    bad = divergent("incoherence", "--epsilon", "0", "--delta", "0.01", home=tmp_path)
    assert bad.returncode == 2 and "epsilon" in bad.stderr
    missing = divergent("incoherence", "--tasks", "humaneval", home=tmp_path)
    assert missing.returncode == 2 and "--samples" in missing.stderr
    tasks, samples = make_benchmark(tmp_path)
    wrong_mode = divergent("incoherence", "--tasks", str(tasks), "--samples", str(samples), "--inputs", "some",
                           home=tmp_path)
    assert wrong_mode.returncode == 2 and "--inputs 'some': choose draws or distinct" in wrong_mode.stderr
    wrong_rule = divergent("incoherence", "--tasks", str(tasks), "--samples", str(samples), "--validity", "some",
                           home=tmp_path)
    assert wrong_rule.returncode == 2 and "choose auto, gt-timeout or gt-raises" in wrong_rule.stderr


@pytest.mark.slow
def test_a_killed_run_resumes_without_losing_or_repeating_work(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    slow = "import time\ndef f(x: int) -> int:\n    time.sleep(0.002)\n    return x\n"
    tasks.write_text("".join(
        json.dumps({"task_id": f"S/{i}", "entry_point": "f", "ground_truth": slow, "tests": ["assert f(1) == 1"]}) + "\n"
        for i in range(12)
    ))
    samples = tmp_path / "samples" / "toy@0.5"
    for i in range(12):
        (samples / f"S_{i}").mkdir(parents=True)
        for k in range(2):
            (samples / f"S_{i}" / f"{k}.py").write_text(slow)
    command = [sys.executable, "-m", "divergent", "incoherence", "--tasks", str(tasks), "--samples",
               str(tmp_path / "samples"), "-m", "2", "-n", "60"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(tmp_path)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    database = tmp_path / "divergent.sqlite3"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if database.exists() and _units(database) >= 2:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = _units(database)
    assert 2 <= before < 12, "the kill should land in the middle of the run"
    finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    with sqlite3.connect(database) as connection:
        keys = [row[0] for row in connection.execute("select unit_key from run_units")]
    assert len(keys) == len(set(keys)) == 12


def _units(database: Path) -> int:
    try:
        with sqlite3.connect(database, timeout=5) as connection:
            return connection.execute("select count(*) from run_units").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_bad_lines_and_unknown_tasks_are_reported_and_skipped(tmp_path: Path) -> None:
    tasks, _ = make_benchmark(tmp_path)
    jsonl = tmp_path / "samples.jsonl"
    good = [{"model": "toy", "temperature": 0.5, "task_id": "T/0", "index": i, "code": code}
            for i, code in enumerate(SAMPLES["T_0"])]
    lines = [json.dumps(g) for g in good] + ["{not json", json.dumps({**good[0], "task_id": "T/99"})]
    jsonl.write_text("\n".join(lines) + "\n")
    result = divergent("incoherence", "--tasks", str(tasks), "--samples", str(jsonl), "-m", "3", "-n", "20",
                       home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 malformed line(s) skipped" in result.stderr
    assert "unknown task" in result.stderr
    assert ":4:" in result.stderr  # the line number of the bad line


def test_a_task_over_its_budget_is_left_out_and_the_others_are_measured(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    # T/1's looping sample alone needs more than a second (3 timeouts of 0.5 s) before its breaker trips
    out = tmp_path / "results.json"
    result = divergent("incoherence", "--tasks", str(tasks), "--samples", str(samples), "-m", "3", "-n", "40",
                       "--timeout", "0.5", "--task-budget", "1.2", "--json", str(out), home=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    (model,) = data["models"]
    assert [t["task_id"] for t in model["tasks"]] == ["T/0"]
    assert data["failed_units"] == 1
    assert "over the task budget" in result.stderr


def test_the_study_counts_each_unit_once(tmp_path: Path) -> None:
    from divergent.bench.benchmark import Workbench
    from divergent.incoherence.study import StudyConfig, run_study
    from divergent.store import Store

    tasks, samples = make_benchmark(tmp_path)
    config = StudyConfig(tasks=str(tasks), samples=str(samples), m=3, n=10, timeout=0.5, limit_tasks=1)
    seen = []
    with Store(tmp_path / "s.db") as store:
        progress = run_study(config, Workbench(store, on_progress=lambda p: seen.append((p.done, p.total)))).progress
        assert (progress.total, progress.done, progress.resumed) == (1, 1, 0)
        assert seen[0] == (0, 1) and seen[-1] == (1, 1)
        again = run_study(config, Workbench(store)).progress
        assert (again.total, again.done, again.resumed) == (1, 1, 1)
