"""Every verdict earned (issue 31): each case of the issue, with its exit code and headline.

* exit 0 needs judged inputs (``--min-inputs``), a proof or the whole input space; else
  ``too-few-inputs``, exit 4, the reason in the headline, also under ``-q``;
* exit 1 needs a difference that replays in the reference mode (a fresh process per run), which the
  printed ``reproduce`` command uses; a difference only a warm mode shows is a note;
* Ctrl-C exits 130 with the partial result printed, the run stored as ``interrupted`` and resumed by
  the same command;
* the budget holds with many implementations and a dead model endpoint;
* ``cluster`` keeps going past samples that do not load, and lumps nothing it has not told apart;
* the same seed gives the same counterexample.

The commands run as the ``divergent`` program does (a subprocess), so the budget counts from the
process's start. Timing bounds here are generous (a loaded 2-core machine); the figures themselves
are measured by ``benchmarks/verdicts.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import divergent
from conftest import need_tool
from divergent.records import Verdict
from divergent.search import outcomes_on
from divergent.search.confirmation import WARM_ONLY

ROOT = Path(__file__).resolve().parents[1]
#: what a loaded CI machine may add to a run's wall time past its budget (the figure with the machine
#: to itself is benchmarks/verdicts.py's); the issue's 0.5 s, and as much again for the load
SLACK = 1.5
DEAD = "http://127.0.0.1:9/v1"  # nothing listens on port 9 (discard): the connection is refused


def env(**more: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENAI_API_KEY": "sk-test-not-a-real-key", **more}


def divergent_cli(*args: str, cwd: Path, timeout: float = 240, **more: str) -> tuple[subprocess.CompletedProcess[str],
                                                                                      float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "divergent", *args], cwd=cwd, capture_output=True, text=True,
                          env=env(**more), timeout=timeout)
    return done, time.monotonic() - started


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


DOUBLE = "def f(x: int) -> int:\n    return x * 2\n"
DIFFERS_AT_3 = "def f(x: int) -> int:\n    if x == 3:\n        return 7\n    return x * 2\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


# -- 1. exit 0 needs evidence ---------------------------------------------------------------------


def test_a_budget_that_ends_before_the_search_judged_enough_is_too_few_inputs(tmp_path: Path) -> None:
    a, b = write(tmp_path, "a.py", DOUBLE), write(tmp_path, "b.py", DIFFERS_AT_3)
    done, _ = divergent_cli("check", a, b, "-f", "f", "--budget", "0.3", "-q", cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stdout.startswith("too few inputs to tell: the budget ended")
    assert "(--min-inputs)" in done.stdout.splitlines()[0]


def test_an_unannotated_parameter_without_seeds_says_so_in_the_headline(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(x):\n    return x * 2\n")
    b = write(tmp_path, "b.py", "def f(x):\n    if x == 3:\n        return 7\n    return x * 2\n")
    done, _ = divergent_cli("check", a, b, "-f", "f", "--budget", "10", "-q", cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stdout.startswith("too few inputs to tell: parameter x has no annotation and no seeds (0 valid")
    data = json.loads(divergent_cli("check", a, b, "-f", "f", "--budget", "10", "--json", cwd=tmp_path)[0].stdout)
    assert (data["verdict"], data["evidence"], data["inputs"]) == ("too-few-inputs", "none", 0)
    assert data["reason"] == "parameter x has no annotation and no seeds"


def test_the_seed_engine_without_seeds_says_so(tmp_path: Path) -> None:
    a, b = write(tmp_path, "a.py", DOUBLE), write(tmp_path, "b.py", DIFFERS_AT_3)
    done, _ = divergent_cli("check", a, b, "-f", "f", "--engines", "seeds", "--budget", "10", "-q", cwd=tmp_path)
    assert done.returncode == 4
    assert done.stdout.startswith("too few inputs to tell: no seed inputs (--seeds)")


def test_the_model_engine_alone_with_a_dead_endpoint_says_the_endpoint_refused(tmp_path: Path, home: Path) -> None:
    a, b = write(tmp_path, "a.py", DOUBLE), write(tmp_path, "b.py", DIFFERS_AT_3)
    # no retries of a refused connection (the client's default once it fails fast on its own)
    config = write(tmp_path, "llm.toml", "[llm]\nmax_retries = 0\ntimeout = 5\n")
    done, seconds = divergent_cli("check", a, b, "-f", "f", "--engines", "llm", "--model", "M", "--base-url", DEAD,
                                  "--llm-config", config, "--budget", "8", "--json", cwd=tmp_path,
                                  DIVERGENT_HOME=str(home))
    assert done.returncode == 4, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["reason"] == "the model endpoint refused the connection"
    # the note says what was sent: nothing
    assert f"with --model, nothing was sent to {DEAD}: the model endpoint refused the connection" in data["notes"]
    assert not any("were sent to" in note for note in data["notes"])
    assert seconds < 8 + SLACK


def test_a_small_input_space_run_whole_is_evidence(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(b: bool) -> int:\n    return 1 if b else 0\n")
    b = write(tmp_path, "b.py", "def f(b: bool) -> int:\n    return int(b)\n")
    report = divergent.check([a, b], function="f", engines="seeds,mutation", budget=30.0)
    # a bool's two values, each run and judged: the exhaustive verdict, no floor
    assert report.verdict is Verdict.EQUIVALENT_ON_ALL_INPUTS and report.evidence == "whole-space"
    assert report.inputs == 2 and report.space is not None and report.space.inputs == 2
    assert report.reason.startswith("equivalent on all 2 valid input(s)")


def test_an_enumerating_engine_that_ran_dry_is_evidence_and_a_list_that_ran_out_is_not() -> None:
    from divergent.records import EngineStats, ExitReason
    from divergent.search.verdict import Evidence, rule

    def evidence(engine: str) -> Evidence:
        stats = EngineStats(name=engine, inputs=3, stopped="exhausted: no new inputs")
        return Evidence(inputs=3, floor=100, exit_reason=ExitReason.EXHAUSTED, engines=(stats,))

    dry = rule(evidence("mutation"))
    assert dry.verdict is Verdict.NO_DIFFERENCE_FOUND and dry.basis == "exhausted"
    assert dry.reason.startswith("the engines ran out of new inputs after 3 valid input(s)")
    seeds = rule(evidence("seeds"))  # the seeds running out says nothing of the input space
    assert seeds.verdict is Verdict.TOO_FEW_INPUTS and seeds.basis == "none"


def test_assert_equivalent_fails_a_test_that_judged_too_few_inputs(tmp_path: Path) -> None:
    a, b = write(tmp_path, "a.py", DOUBLE), write(tmp_path, "b.py", DOUBLE)
    with pytest.raises(AssertionError, match="too few inputs to tell: no seed inputs"):
        divergent.assert_equivalent(f"{a}:f", f"{b}:f", engines="seeds", budget=10.0)
    assert divergent.assert_equivalent(f"{a}:f", f"{b}:f", engines="seeds", seeds=[(1,)], budget=10.0,
                                       min_inputs=1).inputs == 1


def test_many_implementations_hold_the_budget_and_say_it_was_too_short(tmp_path: Path) -> None:
    many = [write(tmp_path, f"m{i}.py", f"def f(x: int) -> int:\n    return x * 2 + 0 * {i}\n") for i in range(200)]
    new = write(tmp_path, "new.py", DIFFERS_AT_3)
    done, seconds = divergent_cli("check", *many, new, "-f", "f", "--budget", "4", "-q", cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stdout.startswith("too few inputs to tell: 201 implementations: raise --budget")
    assert seconds < 4 + SLACK


# -- 2. a difference is a claim only when it replays in the reference mode --------------------------

# (neither reads its input: they are equivalent on every input, in a fresh JVM)
THREAD_ID = """\
public class Main {
    public static void main(String[] args) {
        System.out.println(Thread.currentThread().getId());
    }
}
"""
IDENTITY_HASH = """\
import java.util.*;
public class Main {
    public static void main(String[] args) {
        Set<Object> seen = new HashSet<>();
        for (int i = 0; i < 4; i++) seen.add(new Object());
        System.out.println(System.identityHashCode(seen.iterator().next()) % 1000);
    }
}
"""


def test_a_difference_only_the_warm_jvm_shows_is_a_note_not_exit_1(tmp_path: Path, build_cache: str) -> None:
    need_tool("javac")
    (tmp_path / "j").mkdir()
    java = write(tmp_path / "j", "Main.java", THREAD_ID)
    one = write(tmp_path, "one.py", "print(1)\n")
    sample = write(tmp_path, "sample.txt", "5\n")
    common = ("--stdin", "--seeds", sample, "--build-cache", build_cache, "--json")
    done, _ = divergent_cli("check", java, one, *common, "--budget", "20", cwd=tmp_path)
    assert done.returncode in (0, 4), done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["counterexample"] is None and data["verdict"] != "divergent"
    assert any(WARM_ONLY in note or "the warm mode showed" in note for note in data["notes"]), data["notes"]
    # every input that backs the verdict was judged in the reference mode
    fresh, _ = divergent_cli("check", java, one, *common, "--budget", "20", "--fresh-interpreter", cwd=tmp_path)
    assert fresh.returncode in (0, 4) and json.loads(fresh.stdout)["counterexample"] is None


def test_identity_hashes_a_warm_jvm_scrambles_are_no_difference(tmp_path: Path, build_cache: str) -> None:
    need_tool("javac")
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        write(tmp_path / side, "Main.java", IDENTITY_HASH)
    sample = write(tmp_path, "sample.txt", "5\n")
    done, _ = divergent_cli("check", str(tmp_path / "a" / "Main.java"), str(tmp_path / "b" / "Main.java"),
                            "--seeds", sample, "--build-cache", build_cache, "--budget", "20", "--json", cwd=tmp_path)
    assert done.returncode in (0, 4), done.stdout + done.stderr
    assert json.loads(done.stdout)["counterexample"] is None


def test_a_difference_the_reference_mode_shows_replays_with_the_reported_outcomes(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "n = int(input())\nprint(n * 2)\n")
    b = write(tmp_path, "b.py", "n = int(input())\nprint(7 if n == 3 else n * 2)\n")
    sample = write(tmp_path, "s.txt", "3\n")
    report = divergent.check([a, b], stdin=True, seeds=[sample], budget=20.0)
    assert report.divergent
    replayed = outcomes_on([a, b], report.counterexample.input, stdin=True)
    assert [o.stdout for o in replayed] == [o.stdout for o in report.counterexample.outcomes]


# -- 3. interrupts --------------------------------------------------------------------------------


def test_ctrl_c_exits_130_prints_what_it_had_and_stores_the_run_as_interrupted(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(s: str) -> str:\n    return s.upper()\n")
    b = write(tmp_path, "b.py", "def f(s: str) -> str:\n    return ''.join(c.upper() for c in s)\n")
    db = str(tmp_path / "store.db")
    args = [sys.executable, "-m", "divergent", "check", a, b, "-f", "f", "--engines", "seeds,mutation", "--db", db]
    process = subprocess.Popen([*args, "--budget", "60"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env(), start_new_session=True)
    time.sleep(4)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C does: the whole foreground group
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, out + err
    assert "stopped: interrupted" in out and "(interrupted: the same command resumes it)" in err
    listed = subprocess.run([sys.executable, "-m", "divergent", "report", "--db", db], capture_output=True,
                            text=True, env=env(), timeout=60)
    assert "interrupted" in listed.stdout
    # the same command (another budget) resumes it: the same run, now finished
    again = subprocess.run([*args, "--budget", "5"], cwd=tmp_path, capture_output=True, text=True, env=env(),
                           timeout=120)
    assert again.returncode in (0, 4), again.stdout + again.stderr
    assert "resumes the interrupted run" in again.stderr
    from divergent.store import Store

    with Store(db) as store:
        (run,) = store.list_runs("check")
    assert run.status == "finished"


# -- 4. budgets hold with a dead model endpoint -------------------------------------------------------


def test_a_dead_endpoint_costs_no_more_than_the_budget_and_the_difference_is_still_shrunk(
        tmp_path: Path, home: Path) -> None:
    a, b = write(tmp_path, "a.py", DOUBLE), write(tmp_path, "b.py", DIFFERS_AT_3)
    done, seconds = divergent_cli("check", a, b, "-f", "f", "--model", "M", "--base-url", DEAD, "--budget", "10",
                                  "--json", cwd=tmp_path, DIVERGENT_HOME=str(home))
    assert done.returncode == 1, done.stdout + done.stderr
    assert seconds < 10 + SLACK
    data = json.loads(done.stdout)
    assert data["counterexample"]["call"] == "f(3)"
    model_notes = [note for note in data["notes"] if note.startswith("with --model")]
    # nothing came back: the note never says the source "was sent" (with a client that fails fast on
    # a refused connection it says nothing was; else that requests may have reached the endpoint)
    assert model_notes and not any("were sent to" in note for note in model_notes), model_notes
    clustered, cluster_seconds = divergent_cli(
        "cluster", a, b, write(tmp_path, "c.py", DOUBLE), "-f", "f", "--model", "M", "--base-url", DEAD,
        "--budget", "10", "--json", cwd=tmp_path, DIVERGENT_HOME=str(home))
    assert clustered.returncode in (0, 4) and cluster_seconds < 10 + SLACK, clustered.stderr
    assert not any("were sent to" in note for note in json.loads(clustered.stdout)["notes"])


# -- 5. cluster goes on past bad samples, and lumps nothing it has not told apart ------------------------


def test_samples_that_do_not_load_are_classes_of_their_own_named_with_their_error(tmp_path: Path) -> None:
    good = [write(tmp_path, f"g{i}.py", f"def f(x: int) -> int:\n    return x * 2 + {i} * 0\n") for i in range(3)]
    broken = [write(tmp_path, "syntax.py", "def f(x: int) -> int\n    return x\n"),
              write(tmp_path, "missing.py", "def g(x: int) -> int:\n    return x\n"),
              write(tmp_path, "reads.py", "n = input()\ndef f(x: int) -> int:\n    return x * 2\n")]
    done, _ = divergent_cli("cluster", *good, *broken, "-f", "f", "--budget", "10", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["classes"][0]["members"] == good and data["pick"] == good[0]
    named = {entry["members"][0]: entry["does_not_load"] for entry in data["classes"][1:]}
    assert set(named) == set(broken) == set(data["unloadable"])
    assert "syntax error" in named[broken[0]] and "no function 'f'" in named[broken[1]]
    assert "EOFError" in named[broken[2]]


def test_a_sample_that_never_answered_is_not_lumped_with_those_that_did(tmp_path: Path) -> None:
    good = [write(tmp_path, f"g{i}.py", f"def f(x: int) -> int:\n    return x * 2 + {i} * 0\n") for i in range(3)]
    stuck = write(tmp_path, "stuck.py", "def f(x: int) -> int:\n    while True:\n        pass\n")
    done, _ = divergent_cli("cluster", *good, stuck, "-f", "f", "--budget", "8", "--timeouts", "inconclusive",
                            "--timeout", "0.5", "--json", cwd=tmp_path)
    # (the stuck one makes every batch wait for its limit: on a loaded machine the search may judge
    # fewer inputs than the floor, and then picks nothing; either way it never joins the others)
    assert done.returncode in (0, 4), done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert [entry["members"] for entry in data["classes"]] == [good, [stuck]]
    assert data["undecided"][stuck].startswith("ran past the limit on")
    assert data["pick"] == (good[0] if done.returncode == 0 else None)


def test_the_task_s_own_inputs_run_whatever_a_sample_annotates(tmp_path: Path) -> None:
    # the tests pass a tuple; one sample annotates list (and breaks on a tuple), the other does not
    listed = write(tmp_path, "listed.py", "def f(xs: list) -> list:\n    return xs + [0]\n")
    plain = write(tmp_path, "plain.py", "def f(xs):\n    return list(xs) + [0]\n")
    report = divergent.check([listed, plain], function="f", engines="seeds", seeds=[((1, 2),)], budget=20.0,
                             min_inputs=1)
    assert report.divergent and report.counterexample.input.args == ((1, 2),)
    assert any("do not fit the annotations" in note for note in report.notes)


def test_a_pick_on_too_few_inputs_is_none_and_says_why(tmp_path: Path) -> None:
    good = [write(tmp_path, f"g{i}.py", f"def f(x: int) -> int:\n    return x * 2 + {i} * 0\n") for i in range(2)]
    wrong = write(tmp_path, "w.py", "def f(x: int) -> int:\n    return x * 3\n")
    seeds = write(tmp_path, "seeds.txt", "f(1)\nf(2)\n")
    done, _ = divergent_cli("cluster", *good, wrong, "-f", "f", "--engines", "seeds", "--seeds", seeds,
                            "--budget", "10", "--json", cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["pick"] is None and data["verdict"] == "too-few-inputs" and len(data["classes"]) == 2
    text, _ = divergent_cli("cluster", *good, wrong, "-f", "f", "--engines", "seeds", "--seeds", seeds,
                            "--budget", "10", cwd=tmp_path)
    assert text.returncode == 4 and "self-consistency pick: none" in text.stdout


# -- 6. determinism -----------------------------------------------------------------------------------

WRAPS = "n = int(input())\nxs = list(map(int, input().split()))\ns = 0\nfor x in xs[:n]:\n" \
        "    s = (s + x + 2**31) % 2**32 - 2**31\nprint(s)\n"
SUMS = "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs[:n]))\n"


def test_the_same_seed_gives_the_same_shrunk_counterexample(tmp_path: Path) -> None:
    wraps, sums = write(tmp_path, "wraps.py", WRAPS), write(tmp_path, "sums.py", SUMS)
    sample = write(tmp_path, "s.txt", "3\n1 2 3\n")
    found = []
    for _ in range(2):
        done, _ = divergent_cli("check", wraps, sums, "--stdin", "--seeds", sample, "--seed", "7", "--budget", "30",
                                "--json", cwd=tmp_path)
        assert done.returncode == 1, done.stdout + done.stderr
        data = json.loads(done.stdout)
        assert data["seconds"] < 29 and not any("cut short" in note for note in data["notes"])
        found.append(data["counterexample"]["stdin"])
    assert found[0] == found[1]
    numbers = [int(token) for token in found[0].split()[1:]]
    # the examples' shape keeps each number a 32-bit one: the sum is what wraps, and the shrinker
    # moves it into the last number whichever pair the search found first
    assert all(-2**31 <= n < 2**31 for n in numbers) and not -2**31 <= sum(numbers) < 2**31
    assert found[0] == "2\n1 2147483647\n"


SUM = "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << \"\\n\"; }\n"
SUM_INT = "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; int s = (int)(a + b); " \
          "std::cout << s << \"\\n\"; }\n"


def test_cluster_on_a_cold_build_cache_never_picks_on_what_it_did_not_judge(tmp_path: Path) -> None:
    need_tool("g++")
    sources = [write(tmp_path, f"s{i}.cpp", SUM if i < 3 else SUM_INT) for i in range(4)]
    validator = write(tmp_path, "valid.py", "a, b = map(int, input().split())\nassert abs(a) <= 10**12 >= abs(b)\n")
    sample = write(tmp_path, "sample1.txt", "1 2\n")
    done, _ = divergent_cli("cluster", *sources, "--stdin", "--seeds", sample, "--validator", validator, "--budget",
                            "4", "--build-cache", str(tmp_path / "cold"), "--json", cwd=tmp_path)
    assert done.returncode in (0, 4), done.stdout + done.stderr
    data = json.loads(done.stdout)
    if done.returncode == 4:  # the builds or the search took the budget: no pick, and why
        assert data["pick"] is None and data["reason"]
    else:  # enough judged: the overflowing one is not in the pick's class
        assert data["pick"] in sources[:3] and [sources[3]] in [c["members"] for c in data["classes"]]


def test_the_benchmarks_execution_judges_abstain_on_too_few_inputs() -> None:
    from divergent.bench.equibench.verdicts import ExecutionVerdict, from_report
    from divergent.search.verdict import unjudged_report

    thin = from_report(unjudged_report(("a", "b"), "the budget ended before the first input", floor=100), 1.0)
    assert thin.verdict is ExecutionVerdict.TOO_FEW_INPUTS and thin.prediction is None
    assert "the budget ended before the first input" in thin.reason
