"""The optional Ray executor (``--executor ray``), with ``divergent incoherence``'s jobs, against a local
Ray instance this module starts (the benchmarks' harnesses on Ray: tests/test_bench_ray.py)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from divergent import __version__
from divergent.datasets import Candidate, Task
from divergent.datasets.jobs import JobPayload, TaskJob
from divergent.errors import InvalidArgument
from divergent.executors.base import Finished
from divergent.executors.ray_cluster import INSTALL_HINT, RayExecutor, check_reachable, decode, run_item
from divergent.incoherence.run import TaskMeasurer, UnitResult, Validity, run_task
from divergent.policy import DEFAULT_POLICY
from divergent.sandbox.limits import Limits
from stored_runs import interrupt_after_first_unit, stored_units

ROOT = Path(__file__).resolve().parents[1]

TASKS = [
    {"task_id": "R/0", "entry_point": "double", "ground_truth": "def double(x: int) -> int:\n    return 2 * x\n",
     "tests": ["assert double(3) == 6"]},
    {"task_id": "R/1", "entry_point": "last", "ground_truth": "def last(xs: list[int]) -> int:\n    return xs[-1]\n",
     "tests": ["assert last([1, 2]) == 2"]},
    {"task_id": "R/2", "entry_point": "neg", "ground_truth": "def neg(x: int) -> int:\n    return -x\n",
     "tests": ["assert neg(4) == -4"]},
]
SAMPLES = {
    "R_0": ["def double(x):\n    return x + x\n", "def double(x):\n    return x * 2 if x != 7 else 15\n"],
    "R_1": ["def last(xs):\n    return xs[len(xs) - 1]\n", "def last(xs):\n    return xs[0]\n"],
    "R_2": ["def neg(x):\n    return -x\n", "def neg(x):\n    return 0 - x\n"],
}


def make_benchmark(tmp_path: Path, models: tuple[str, ...] = ("toy@0.5", "other@0.2")) -> tuple[Path, Path]:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    for model in models:
        for task_dir, sources in SAMPLES.items():
            folder = tmp_path / "samples" / model / task_dir
            folder.mkdir(parents=True)
            for i, source in enumerate(sources):
                folder.joinpath(f"{i}.py").write_text(source)
    return tasks, tmp_path / "samples"


def divergent(*args: str, home: Path, python_prelude: str = "", **kwargs) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(home)}
    program = f"{python_prelude}\nfrom divergent.cli import main\nmain()"
    return subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, env=env,
                          timeout=120, **kwargs)


def tiny_job(task_number: int = 0, models: tuple[str, ...] = ("toy",)) -> TaskJob:
    spec = TASKS[task_number]
    task = Task(task_id=spec["task_id"], description="", entry_point=spec["entry_point"],
                ground_truth=spec["ground_truth"], seeds_text="\n".join(spec["tests"]))
    sources = SAMPLES[spec["task_id"].replace("/", "_")]
    return TaskJob(task=task, candidates={
        (model, 0.5): [Candidate(task_id=task.task_id, model=model, temperature=0.5, index=i, source=s)
                       for i, s in enumerate(sources)]
        for model in models
    })


OPTIONS = {"n": 30, "seed": 0, "policy": DEFAULT_POLICY, "limits": Limits(timeout=0.5),
           "validity": Validity.GT_TIMEOUT}


# ---------------------------------------------------------------- without Ray


def test_the_default_install_does_not_pull_ray() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = [dependency.split("[")[0].split(">")[0].split("=")[0].strip().lower()
            for dependency in project["dependencies"]]
    assert "ray" not in core
    assert any(d.startswith("ray") for d in project["optional-dependencies"]["ray"])


def test_payload_ships_each_distinct_source_once_and_round_trips() -> None:
    job = tiny_job(0, models=("toy", "copycat", "third"))  # three models with the very same samples
    payload = JobPayload.pack(job)
    assert payload.unpack() == job
    distinct = {c.source for group in job.candidates.values() for c in group}
    numbers = {number for _, _, members in payload.groups for _, _, number in members}
    assert numbers == set(range(len(distinct)))


def answer(work, payload, version: str = __version__) -> Finished:
    """What the driver reads of a Ray worker's answer (the worker's function, called here)."""
    return decode("key", run_item(work, payload, (), version), ())


def test_a_worker_answer_is_plain_json_units_or_an_error() -> None:
    job = tiny_job(1)
    finished = answer(TaskMeasurer(**OPTIONS), JobPayload.pack(job))
    assert finished.error is None and finished.seconds >= 0
    assert [UnitResult.from_json(unit) for unit in finished.result["units"]] == run_task(job, **OPTIONS)

    def refuses(job: TaskJob, **options: object) -> list[UnitResult]:
        raise InvalidArgument("this task cannot be measured")

    refused = answer(TaskMeasurer(**OPTIONS, runner=refuses), JobPayload.pack(job))
    assert refused.result is None and refused.error == "InvalidArgument: this task cannot be measured"
    stale = answer(TaskMeasurer(**OPTIONS), JobPayload.pack(job), version="0.0.0-other")
    assert stale.result is None and "same version on every node" in stale.error


def test_executor_ray_without_ray_installed_names_the_extra(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    # ``sys.modules["ray"] = None`` makes ``import ray`` fail as if the extra were not installed.
    result = divergent("incoherence", "run", "--tasks", str(tasks), "--samples", str(samples), "-m", "2", "-n", "5",
                       "--executor", "ray", home=tmp_path, python_prelude="import sys; sys.modules['ray'] = None")
    assert result.returncode == 2, result.stderr
    assert INSTALL_HINT in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "divergent.sqlite3").exists(), "nothing should be stored before failing"


def test_address_needs_the_ray_executor_and_executors_are_checked(tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    common = ("incoherence", "run", "--tasks", str(tasks), "--samples", str(samples), "-m", "2", "-n", "5")
    result = divergent(*common, "--address", "auto", home=tmp_path)
    assert result.returncode == 2 and "--address" in result.stderr and "--executor ray" in result.stderr
    result = divergent(*common, "--executor", "dask", home=tmp_path)
    assert result.returncode == 2 and "threads or ray" in result.stderr


def test_an_address_where_nothing_listens_fails_at_once() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(InvalidArgument, match="no Ray cluster answers"):
            check_reachable(address, timeout=5)
    with pytest.raises(InvalidArgument, match="HOST:PORT"):
        check_reachable("no-port-here")
    check_reachable(None)
    check_reachable("auto")


# ---------------------------------------------------------------- against a local Ray instance


def test_ray_gives_the_threads_executors_results_and_resumes(ray_cluster: str, tmp_path: Path) -> None:
    tasks, samples = make_benchmark(tmp_path)
    common = ("incoherence", "--tasks", str(tasks), "--samples", str(samples), "-m", "2", "-n", "40",
              "--timeout", "0.5")
    on_ray = divergent(*common, "--executor", "ray", "--address", ray_cluster, "--json", str(tmp_path / "ray.json"),
                       home=tmp_path / "ray-home")
    assert on_ray.returncode == 0, on_ray.stderr
    threads = divergent(*common, "--json", str(tmp_path / "threads.json"), home=tmp_path / "threads-home")
    assert threads.returncode == 0, threads.stderr
    ray_data = json.loads((tmp_path / "ray.json").read_text())
    threads_data = json.loads((tmp_path / "threads.json").read_text())
    assert ray_data["models"] == threads_data["models"]
    assert {m["model"] for m in ray_data["models"]} == {"toy", "other"}
    assert ray_data["failed_units"] == 0
    units = stored_units(tmp_path / "ray-home" / "divergent.sqlite3")
    assert len(units) == 6 and {state for _, state in units} == {"done"}
    # A run started on one executor resumes on another: here nothing is left to run.
    again = divergent(*common, "--executor", "ray", "--address", ray_cluster, "--jobs", "1",
                      "--json", str(tmp_path / "again.json"), home=tmp_path / "ray-home")
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "again.json").read_text())["models"] == ray_data["models"]
    assert len(stored_units(tmp_path / "ray-home" / "divergent.sqlite3")) == 6


def test_a_dead_worker_fails_its_job_only_and_in_flight_jobs_stay_bounded(ray_cluster: str, tmp_path: Path) -> None:
    witness = tmp_path / "running"
    witness.mkdir()

    # Defined here so that Ray ships it by value: the Ray workers cannot import this test module.
    def dies_on_the_second_task(job, **options):
        marker = witness / f"{os.getpid()}-{job.task.task_id.replace('/', '_')}"
        marker.touch()
        (witness.parent / f"seen-{marker.name}").write_text(str(len(list(witness.iterdir()))))
        try:
            if job.task.task_id == "R/1":
                marker.unlink()
                os._exit(1)  # the Ray worker dies, as if its node were lost
            return run_task(job, **options)
        finally:
            marker.unlink()

    received: dict[str, Finished] = {}
    jobs = [tiny_job(i) for i in range(3)]
    with RayExecutor(jobs=1) as executor:
        executor.map(TaskMeasurer(**OPTIONS, runner=dies_on_the_second_task),
                     [(job.task.task_id, JobPayload.pack(job)) for job in jobs],
                     lambda finished: received.__setitem__(finished.key, finished))
    assert set(received) == {"R/0", "R/1", "R/2"}
    failed = received["R/1"]
    assert failed.result is None and "Ray task failed" in failed.error
    for task_id in ("R/0", "R/2"):
        finished = received[task_id]
        assert finished.error is None
        assert [UnitResult.from_json(u) for u in finished.result["units"]] == run_task(jobs[int(task_id[-1])],
                                                                                      **OPTIONS)
    # --jobs 1: never two jobs on the cluster at once, though it has two CPUs
    seen = [int(path.read_text()) for path in tmp_path.glob("seen-*")]
    assert len(seen) >= 3 and max(seen) == 1


@pytest.mark.slow
def test_ctrl_c_stops_the_cluster_work_and_the_next_run_resumes(ray_cluster: str, tmp_path: Path) -> None:
    import ray

    truth = "def f(x: int) -> int:\n    return x\n"
    slow = "import time\ndef f(x: int) -> int:\n    time.sleep(1)\n    return x\n"  # a minute per task
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(
        json.dumps({"task_id": f"S/{i}", "entry_point": "f", "ground_truth": truth, "tests": ["assert f(1) == 1"]})
        + "\n" for i in range(5)
    ))

    def write_samples(source_of_task) -> None:
        for i in range(5):
            folder = tmp_path / "samples" / "toy@0.5" / f"S_{i}"
            folder.mkdir(parents=True, exist_ok=True)
            for k in range(2):
                folder.joinpath(f"{k}.py").write_text(source_of_task(i))

    write_samples(lambda i: truth if i == 0 else slow)  # S/0 is done at once; the others hold the CPUs
    command = [sys.executable, "-m", "divergent", "incoherence", "--tasks", str(tasks), "--samples",
               str(tmp_path / "samples"), "-m", "2", "-n", "30", "--executor", "ray", "--address", ray_cluster]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(tmp_path)}
    database = tmp_path / "divergent.sqlite3"
    returncode, stderr = interrupt_after_first_unit(command, env, database)
    assert returncode == 130, stderr
    assert "interrupted" in stderr
    assert [key for key, _ in stored_units(database)] == ["toy@0.5/S/0"]
    # The running tasks (a minute of work each) are stopped: the cluster gets its CPUs back.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and ray.available_resources().get("CPU", 0) < 2:
        time.sleep(0.1)
    assert ray.available_resources().get("CPU", 0) == 2
    # Only to keep this test short: the run is identified by its parameters, not by the samples'
    # contents, so the same command resumes it, and now the remaining tasks are quick.
    write_samples(lambda i: truth)
    finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    keys = [key for key, _ in stored_units(database)]
    assert len(keys) == len(set(keys)) == 5
