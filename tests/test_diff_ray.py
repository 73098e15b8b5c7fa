"""``divergent diff --executor ray``: the functions of a diff as Ray tasks on a local head this module
starts (as tests/test_bench_ray.py does), with the results the threads give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.cli import app
from test_diff import _edit, repo  # noqa: F401 - the fixture


def _verdicts(document: dict) -> dict[str, str]:
    return {record["function"]: record["status"] for record in document["functions"]}


def test_a_diff_on_ray_gives_the_threads_results(ray_cluster: str, repo: Path) -> None:  # noqa: F811
    _edit(repo, "pkg/util.py", "return min(n, consts.LIMIT)", "return min(n, consts.LIMIT - 1)")
    _edit(repo, "pkg/util.py", "return n * 2", "return n + n")
    _edit(repo, "pkg/shapes.py", "return x + 1", "return x + 2")
    # 4 s a function: under load on 2 cores, 2 s left "double" short of --min-inputs on one side
    command = ["diff", "--budget-per-function", "4", "--json"]
    threads = CliRunner().invoke(app, [*command, "--jobs", "2"])
    ray = CliRunner().invoke(app, [*command, "--executor", "ray", "--address", ray_cluster])
    assert threads.exit_code == ray.exit_code == 1, ray.output
    on_threads, on_ray = json.loads(threads.stdout), json.loads(ray.stdout)
    assert _verdicts(on_ray) == _verdicts(on_threads) == {
        "pkg/util.py:clamp": "changed", "pkg/util.py:double": "same", "pkg/util.py:quadruple": "same",
        "pkg/shapes.py:Box.unit": "changed"}
    assert all(r["executions"] > 0 for r in on_ray["functions"])


def test_a_model_is_refused_on_ray(ray_cluster: str, repo: Path) -> None:  # noqa: F811
    _edit(repo, "pkg/util.py", "return n * 2", "return n + n")
    result = CliRunner().invoke(app, ["diff", "--executor", "ray", "--address", ray_cluster, "--model", "m",
                                      "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and "--executor ray" in result.output


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
