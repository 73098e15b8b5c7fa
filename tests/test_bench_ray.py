"""The benchmarks on a Ray cluster (``--executor ray``): the same results as on threads, streamed into
the same resumable store, a model served to the workers by one service; against a local Ray head
this module starts (as tests/test_incoherence_ray.py does for the incoherence study)."""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.bench.benchmark import Workbench
from divergent.bench.cetbench.generate import GeneratorSettings
from divergent.bench.cetbench.generation import (
    GenerationConfig,
    PositionSolver,
    generate_pairs,
    generation_parameters,
)
from divergent.bench.cetbench.run import CetConfig, CetJudge
from divergent.bench.equibench.run import EquiBenchConfig, PairJudge
from divergent.bench.refute.dataset import load_refute
from divergent.bench.refute.execution import SandboxRunner
from divergent.bench.refute.run import AttemptSolver, RefuteConfig, run_refute
from divergent.bench.refute.strategies import STRATEGIES, Context
from divergent.cli import app
from divergent.executors.base import ThreadExecutor
from divergent.executors.ray_cluster import RayExecutor
from divergent.store import Store
from test_bench_cetbench import SAMPLES, TASKS, _pairs_file
from test_bench_html import _equibench_data

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "refute" / "corpus.jsonl"


def test_every_solver_travels_as_data() -> None:
    """What a Ray worker gets: each harness's solver, pickled (a sandbox runner travels as its settings)."""
    runner = SandboxRunner(isolation=None, build_cache="/tmp/somewhere")
    solvers = [
        PairJudge(EquiBenchConfig(data="d")),
        CetJudge(CetConfig(pairs="p")),
        AttemptSolver(STRATEGIES["divergent"], Context(runner=runner)),
        PositionSolver(tuple(TASKS), SAMPLES, GeneratorSettings(count=2)),
    ]
    for solver in solvers:
        again = pickle.loads(pickle.dumps(solver))
        assert type(again) is type(solver)
    travelled = pickle.loads(pickle.dumps(solvers[2])).context.runner
    assert isinstance(travelled, SandboxRunner) and travelled is not runner
    assert (travelled.isolation, travelled.build_cache) == (None, "/tmp/somewhere")
    # every item that lands in a process shares one runner of those settings (and its warm launchers)
    assert pickle.loads(pickle.dumps(solvers[2])).context.runner is travelled


# ---------------------------------------------------------------- against a local Ray instance


def _units(database: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(database, timeout=5) as connection:
        return sorted(connection.execute("select unit_key, state from run_units"))


def _decisions(document: dict) -> dict[str, tuple]:
    return {item["key"]: (item["truth"], item["prediction"], item["decided_by"],
                          (item.get("execution") or {}).get("verdict")) for item in document["items"]}


def test_equibench_on_ray_gives_the_threads_results_and_resumes(ray_cluster: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data = _equibench_data(tmp_path)
    command = ["bench", "equibench", "run", "--data", str(data), "--categories", "DCE", "--judge", "execution",
               "--budget", "3"]
    outputs = {}
    for executor in ("threads", "ray"):
        monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path / executor))
        where = ["--executor", "ray", "--address", ray_cluster] if executor == "ray" else ["--jobs", "2"]
        result = CliRunner().invoke(app, [*command, *where, "--json", str(tmp_path / f"{executor}.json")])
        assert result.exit_code == 0, result.output
        outputs[executor] = json.loads((tmp_path / f"{executor}.json").read_text())
    assert _decisions(outputs["ray"]) == _decisions(outputs["threads"])
    assert len(outputs["ray"]["items"]) == 3
    # the same command resumes the stored run (nothing left to do), on either executor
    again = CliRunner().invoke(app, [*command, "--executor", "ray", "--address", ray_cluster, "--json",
                                     str(tmp_path / "again.json")])
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "again.json").read_text())["run"] == outputs["ray"]["run"]
    assert len(_units(tmp_path / "ray" / "divergent.sqlite3")) == 3


def test_a_model_on_ray_is_one_service_whose_answers_the_driver_keeps(ray_cluster: str, openai_server, llm_home,
                                                                       tmp_path: Path) -> None:
    openai_server.responder = lambda received: "NO" if "return 1" in received.last_user else "YES"
    data = _equibench_data(tmp_path)
    command = ["bench", "equibench", "run", "--data", str(data), "--categories", "DCE,CUDA", "--model", "m",
               "--base-url", openai_server.base_url]
    result = CliRunner().invoke(app, [*command, "--executor", "ray", "--address", ray_cluster, "--json",
                                      str(tmp_path / "ray.json")])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "ray.json").read_text())
    assert {item["key"]: item["prediction"] for item in document["items"]} == {
        "DCE/0": True, "DCE/1": False, "DCE/2": True, "CUDA/7": True}
    assert len(openai_server.chat_requests) == 4 and document["usage"]["calls"] == 4
    # the workers' answers are in the driver's response cache: a fresh run of the same pairs (another
    # seed, another stored run) replays them offline on threads
    replayed = CliRunner().invoke(app, [*command, "--seed", "1", "--replay", "--json", str(tmp_path / "replay.json")])
    assert replayed.exit_code == 0, replayed.output
    assert len(openai_server.chat_requests) == 4


def test_cetbench_judging_on_ray(ray_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(app, ["bench", "cetbench", "run", "--pairs", str(_pairs_file(tmp_path)), "--judge",
                                      "execution", "--budget", "2", "--originals", "--executor", "ray", "--address",
                                      ray_cluster, "--json", str(tmp_path / "out.json")])
    assert result.exit_code == 0, result.output
    items = json.loads((tmp_path / "out.json").read_text())["items"]
    assert items and all(item["decided_by"] == "execution" and item["execution"]["verdict"] for item in items)


def test_refute_on_ray_runs_each_attempt_in_a_worker_s_own_sandbox(ray_cluster: str, tmp_path: Path) -> None:
    data = load_refute(CORPUS)
    python = [task.problem_id for task in data.tasks if task.wrong_language.startswith("Python")][:2]
    context = Context(runner=SandboxRunner(build_cache=str(tmp_path / "builds")), search_seconds=4.0)
    with Store(tmp_path / "runs.db") as store, RayExecutor() as executor:
        result = run_refute(RefuteConfig(data, [STRATEGIES["divergent"]], context, "d", problems=python),
                            Workbench(store, executor))
        assert result.stopped is None and [task.problem_id for task in result.tasks] == python
        units = store.units(result.runs["divergent"].id)
    assert sorted(unit.key for unit in units) == [f"{pid}/0" for pid in sorted(python)]
    assert all(unit.state == "done" and unit.result["verdict"]["status"] for unit in units)


@pytest.mark.slow
def test_cetbench_generation_on_ray_makes_the_threads_pairs(ray_cluster: str, tmp_path: Path) -> None:
    settings = GeneratorSettings(count=4, seed=3, k_max=2, check_executions=200, timeout=1.0)
    parameters = generation_parameters("toy", None, 5, None, settings)
    made = {}
    for name, executor in (("threads", ThreadExecutor(2)), ("ray", RayExecutor())):
        with Store(tmp_path / f"{name}.db") as store, executor if name == "ray" else _same(executor) as workers:
            generation = generate_pairs(GenerationConfig(list(TASKS), SAMPLES, settings, parameters,
                                                         tmp_path / f"{name}.jsonl"), Workbench(store, workers))
        made[name] = [{k: v for k, v in pair.items() if k != "seconds"} for pair in generation.pairs]
        written = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        assert [pair["index"] for pair in written] == sorted(pair["index"] for pair in written)
    assert made["ray"] == made["threads"] and made["ray"]


class _same:
    """A context manager that yields what it was given (a threads executor needs no opening)."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __enter__(self) -> object:
        return self.value

    def __exit__(self, *exc: object) -> None:
        return None
