"""REFUTE end to end in the sandbox (issue D's whole programs): the corpus's programs built once per
test session, every status of the success rule on real runs, and strategies through the loopback
server with the real runner."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from divergent.bench.refute.dataset import PYTHON, RefuteTask, load_refute
from divergent.bench.refute.evaluate import Rules, Status, evaluate_printer
from divergent.bench.refute.execution import RunKind, SandboxRunner, Source
from divergent.bench.refute.strategies import STRATEGIES, Context
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from scripted_openai import ScriptedOpenAI

pytest.importorskip("divergent.sandbox.process_runner", reason="whole programs (issue D) are not in this divergent")
if shutil.which("g++") is None:
    pytest.skip("g++ is not installed (Debian package g++)", allow_module_level=True)

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "refute" / "corpus.jsonl"
TASKS = {task.problem_id: task for task in load_refute(CORPUS).tasks}


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxRunner]:
    sandbox = SandboxRunner(build_cache=str(tmp_path_factory.mktemp("builds")))
    yield sandbox
    sandbox.close()


def judge(runner: SandboxRunner, task: RefuteTask, printer: str, rules: Rules = Rules()) -> Status:
    return evaluate_printer(runner, task, Source(printer, PYTHON, "printer"), rules).status


def test_every_status_on_real_programs(runner: SandboxRunner) -> None:
    cpp, python = TASKS["R07"], TASKS["R19"]  # wrong code in C++ (correct in Python), and in Python
    for task in (cpp, python):
        assert judge(runner, task, task.metadata["fail_printer"]) is Status.SUCCESS
        assert judge(runner, task, f"print({task.example_input!r}, end='')") is Status.NO_DIFFERENCE
    assert judge(runner, cpp, "print('1 5')\nprint(10**10)") is Status.VALIDATION_FAILED
    assert judge(runner, cpp, "while True:\n    pass", Rules(printer_timeout=1.0)) is Status.PRINTER_FAILED
    assert judge(runner, cpp, "print(1 +)") is Status.PRINTER_FAILED
    assert judge(runner, cpp, "raise SystemExit(3)") is Status.PRINTER_FAILED
    # YES/NO in any case is the same answer (R18's wrong code prints lowercase)
    yes_no = TASKS["R18"]
    assert judge(runner, yes_no, f"print({yes_no.example_input!r}, end='')") is Status.NO_DIFFERENCE
    assert judge(runner, yes_no, yes_no.metadata["fail_printer"]) is Status.SUCCESS


def test_a_crash_of_the_wrong_code_counts_only_by_default(runner: SandboxRunner) -> None:
    base = TASKS["R19"]
    # the correct solution, except that it dies on two elements (an index out of range, say)
    crashing = "import sys\n" + base.correct_code.replace("n = int(input())", "n = int(input())\nif n == 2:\n    sys.exit(3)")
    task = replace(base, wrong_code=crashing, wrong_language="Python 3")
    two = "print(2)\nprint('1 2')"
    assert judge(runner, task, two) is Status.SUCCESS  # as a Codeforces hack counts it
    assert judge(runner, task, two, Rules(compat="refute")) is Status.WRONG_FAILED  # the authors' rule
    assert judge(runner, task, "print(3)\nprint('1 2 3')") is Status.NO_DIFFERENCE
    result = runner.run(Source("import sys\nsys.exit(4)", PYTHON, "code"), "", timeout=2, memory_mb=256)
    assert result.kind is RunKind.RUNTIME_ERROR and result.exit_code == 4


def test_strategies_through_the_loopback_server_on_real_programs(
    runner: SandboxRunner, openai_server: ScriptedOpenAI, llm_home: Path
) -> None:
    task = TASKS["R04"]
    fail = task.metadata["fail_printer"]
    submit = f"<action><name>print_fail_case</name><code>\n{fail}</code><lang>Python 3</lang></action>"
    generator = ("<action><name>generate_tc</name><code>\nimport random, sys\nrandom.seed(sys.argv[1])\n"
                 "print(random.randint(1, 60))\n</code><lang>Python 3</lang></action>")
    run = ("<action><name>run_code</name><code>\nprint(int(input()) * 2)\n</code><lang>Python 3</lang></action>"
           "<action><name>input_print</name><code>\nprint(21)\n</code><lang>Python 3</lang></action>")
    openai_server.script(submit, run, submit, generator)
    settings = LLMSettings(model="scripted", base_url=openai_server.base_url, max_retries=0, timeout=10.0)
    with LLMClient(settings, store=llm_home / "store.db") as chat:
        context = Context(runner=runner, chat=chat, loop_seconds=20.0, search_seconds=20.0)
        assert STRATEGIES["zero-shot"].attempt(task, 0, context).verdict.status is Status.SUCCESS
        agent = STRATEGIES["agent"].attempt(task, 0, context)
        assert agent.verdict.status is Status.SUCCESS
        assert '"output": "42' in openai_server.chat_requests[2].last_user
        loop = STRATEGIES["randsearch-oracle"].attempt(task, 0, context)
        assert loop.verdict.status is Status.SUCCESS, loop.verdict


@pytest.mark.slow
def test_divergent_refutes_an_easy_row_without_a_model(runner: SandboxRunner) -> None:
    result = STRATEGIES["divergent"].attempt(TASKS["R19"], 0, Context(runner=runner, search_seconds=30.0))
    assert result.verdict.status is Status.SUCCESS, result.verdict
    assert result.trace[0]["found"] and result.verdict.input


def test_the_search_gives_the_validators_rejections_as_a_count(runner: SandboxRunner) -> None:
    # They differ only when n > 10, which the validator forbids: no valid input tells them apart.
    wrong = Source("n = int(input())\nprint(n if n <= 10 else -n)\n", PYTHON, "wrong")
    correct = Source("print(int(input()))\n", PYTHON, "correct")
    validator = Source("n = int(input())\nassert 1 <= n <= 10, 'n out of range'\n", PYTHON, "validator")
    found = runner.search(wrong, correct, examples=["3\n"], validator=validator, seconds=3.0, timeout=2.0,
                          memory_mb=256)
    assert found.input is None
    note = next(note for note in found.notes if "never counterexamples" in note)
    assert found.rejected > 0 and f"rejected {found.rejected} input(s)" in note
