"""Every REFUTE strategy driven through the loopback OpenAI-compatible server, with a scripted code
runner (tests/refute_fakes.py): each status, the agent's feedback, the stress loop, divergent and
hybrid, the stored run (resume, cached reruns) and the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from divergent.bench.benchmark import Workbench
from divergent.bench.common import write_results
from divergent.bench.refute.dataset import PYTHON, RefuteData, task_from_record
from divergent.bench.refute.evaluate import Rules, Status, evaluate_input, evaluate_printer
from divergent.bench.refute.execution import CodeRun, RunKind, SearchResult, Source
from divergent.bench.refute.report import overlap, render_tables, results_document, summarize_strategy
from divergent.bench.refute.run import RefuteConfig, run_refute
from divergent.bench.refute.strategies import STRATEGIES, Context, parse_strategies
from divergent.errors import InvalidArgument
from divergent.executors.base import ThreadExecutor
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from divergent.store import Store
from refute_fakes import LOOPS, FakeRunner, fails, prints
from scripted_openai import Reply, ScriptedOpenAI

# The problem: print 2n for 1 <= n <= 100. The wrong code prints 15 for n = 7; the correct code
# fails for nothing; the validator explains its rejections.
WRONG, CORRECT, VALIDATOR = "WRONG CODE", "CORRECT CODE", "VALIDATOR CODE"


def _number(stdin: str) -> int | None:
    text = stdin.strip()
    return int(text) if text.lstrip("-").isdigit() else None


def _validator(stdin: str, args: object) -> CodeRun | str:
    n = _number(stdin)
    if n is None or not 1 <= n <= 100:
        return CodeRun(RunKind.RUNTIME_ERROR, stderr=f"line 1: n = {stdin.strip()!r} is out of [1, 100]", exit_code=1)
    return ""


def _wrong(stdin: str, args: object) -> CodeRun | str:
    n = _number(stdin)
    if n == 99:
        return CodeRun(RunKind.RUNTIME_ERROR, stderr="Segmentation fault", signal="SIGSEGV")
    return "15\n" if n == 7 else f"{2 * (n or 0)}\n"


TASK = task_from_record({
    "problem_id": "T1", "statement": "Print 2n.", "input": "One integer n (1 <= n <= 100).", "output": "2n.",
    "note": "", "example_input": "3\n", "example_output": "6\n", "time_limit": 1000, "memory_limit": 256,
    "wrong_code": WRONG, "wrong_code_lang": "C++17 (GCC 7-32)", "correct_cpp": None, "correct_python": CORRECT,
    "validator": VALIDATOR,
})

PRINT_7, PRINT_5, PRINT_1000, LOOPING, PRINT_99 = "print(7)", "print(5)", "print(1000)", "while True: pass", "print(99)"


def runner() -> FakeRunner:
    fake = FakeRunner()
    fake.add(WRONG, _wrong).add(CORRECT, lambda s, a: f"{2 * (_number(s) or 0)}\n").add(VALIDATOR, _validator)
    fake.add(PRINT_7, prints("7\n")).add(PRINT_5, prints("5\n")).add(PRINT_1000, prints("1000\n"))
    fake.add(PRINT_99, prints("99\n")).add(LOOPING, LOOPS)
    return fake


def submit(code: str, name: str = "print_fail_case", lang: str = "Python 3") -> str:
    return f"<reason>because</reason>\n<action>\n<name>{name}</name>\n<code>\n{code}\n</code>\n<lang>{lang}</lang>\n</action>"


@pytest.fixture
def chat(openai_server: ScriptedOpenAI, llm_home: Path):
    settings = LLMSettings(model="scripted", base_url=openai_server.base_url, max_retries=0, timeout=10.0)
    with LLMClient(settings, store=llm_home / "store.db") as client:
        yield client


def context(fake: FakeRunner, chat: LLMClient | None = None, **changes: object) -> Context:
    settings: dict[str, object] = {"loop_seconds": 5.0, "search_seconds": 5.0, **changes}
    return Context(runner=fake, chat=chat, **settings)


# -- the success rule -----------------------------------------------------------------------------


def test_every_status_of_the_success_rule() -> None:
    fake = runner()
    rules = Rules()

    def judge(printer: str, rules: Rules = rules) -> Status:
        return evaluate_printer(fake, TASK, Source(printer, PYTHON, "printer"), rules).status

    assert judge(PRINT_7) is Status.SUCCESS
    assert judge(PRINT_5) is Status.NO_DIFFERENCE
    assert judge(PRINT_1000) is Status.VALIDATION_FAILED
    assert judge(LOOPING) is Status.PRINTER_FAILED
    assert judge("not a known program") is Status.PRINTER_FAILED  # a build error
    assert judge(PRINT_99) is Status.SUCCESS  # the wrong code crashes: a hack counts it
    assert judge(PRINT_99, Rules(compat="refute")) is Status.WRONG_FAILED  # the authors' rule does not
    fake.add(CORRECT, fails(RunKind.TIMEOUT, exit_code=None))
    assert judge(PRINT_7) is Status.CORRECT_FAILED
    verdict = evaluate_printer(fake, TASK, Source(PRINT_1000, PYTHON, "printer"), rules)
    assert "out of [1, 100]" in verdict.detail and verdict.input == "1000\n"


def test_nondeterministic_wrong_code_gets_up_to_five_runs() -> None:
    fake = runner()
    runs = iter(["14\n", "14\n", "14\n", "15\n"])
    fake.add(WRONG, lambda s, a: next(runs))
    verdict = evaluate_input(fake, TASK, "7\n", Rules())
    assert verdict.status is Status.SUCCESS and verdict.repeats == 4
    runs = iter(["14\n"] * 5)
    assert evaluate_input(fake, TASK, "7\n", Rules()).status is Status.NO_DIFFERENCE
    assert fake.ran("wrong") == 9


def test_without_a_validator_only_when_allowed() -> None:
    task = task_from_record({**_record(TASK), "validator": None})
    with pytest.raises(InvalidArgument, match="no validator"):
        evaluate_input(runner(), task, "7\n", Rules())
    assert evaluate_input(runner(), task, "7\n", Rules(require_validator=False)).status is Status.SUCCESS


# -- the prompting strategies ------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "status"), [
    (submit(PRINT_7), Status.SUCCESS),
    (submit(PRINT_1000), Status.VALIDATION_FAILED),
    (submit(PRINT_5), Status.NO_DIFFERENCE),
    (submit(LOOPING), Status.PRINTER_FAILED),
    ("I believe n = 7 breaks it, but I will not write XML.", Status.UNPARSEABLE),
    (submit(PRINT_7, lang="Haskell"), Status.UNPARSEABLE),
])
def test_zero_shot_statuses(openai_server: ScriptedOpenAI, chat: LLMClient, answer: str, status: Status) -> None:
    openai_server.script(answer)
    result = STRATEGIES["zero-shot"].attempt(TASK, 0, context(runner(), chat))
    assert result.verdict.status is status
    assert result.usage.calls == 1 and result.usage.prompt_tokens > 0 and result.answers == [answer]


def test_few_shot_and_the_oracle_see_what_they_should(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    openai_server.script(submit(PRINT_7), submit(PRINT_7))
    assert STRATEGIES["few-shot"].attempt(TASK, 0, context(runner(), chat)).verdict.success
    assert STRATEGIES["zero-shot-oracle"].attempt(TASK, 0, context(runner(), chat)).verdict.success
    few, oracle = openai_server.chat_requests
    assert "### Example 1" in few.messages[0]["content"] and CORRECT not in few.prompt
    assert CORRECT in oracle.last_user and WRONG in oracle.last_user


# -- the agent ----------------------------------------------------------------------------------------


def test_the_agent_runs_code_and_resubmits_after_a_validation_error(
    openai_server: ScriptedOpenAI, chat: LLMClient
) -> None:
    fake = runner().add("print(input() * 3000)", lambda s, a: s.strip() * 3000)
    run = submit("print(input() * 3000)", "run_code") + "\n" + submit(PRINT_5, "input_print")
    openai_server.script(run, "no xml here", submit(PRINT_1000), submit(PRINT_7))
    result = STRATEGIES["agent"].attempt(TASK, 0, context(fake, chat))
    assert result.verdict.status is Status.SUCCESS, result.verdict
    requests = openai_server.chat_requests
    assert len(requests) == 4
    feedback = json.loads(requests[1].last_user.split("\n\nRuns left")[0])
    assert feedback["status"] == "OK" and len(feedback["output"]) == 2000 and "truncated" in feedback
    assert "could not use your answer" in requests[2].last_user
    assert "VALIDATION_ERROR" in requests[3].last_user and "out of [1, 100]" in requests[3].last_user
    assert [step["step"] for step in result.trace] == ["run", "format-error", "submit", "submit"]


def test_the_agent_gives_up_after_five_resubmissions(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    openai_server.script(*[submit(PRINT_1000)] * 6)
    result = STRATEGIES["agent"].attempt(TASK, 0, context(runner(), chat))
    assert result.verdict.status is Status.VALIDATION_FAILED and len(openai_server.chat_requests) == 6


def test_the_agent_reports_run_failures_and_ends_unparseable(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    run = submit("crashes", "run_code") + submit(PRINT_5, "input_print")
    fake = runner().add("crashes", fails(RunKind.RUNTIME_ERROR, stderr="Traceback: boom", exit_code=1))
    openai_server.script(run, "?", "?", "?")
    result = STRATEGIES["agent"].attempt(TASK, 0, context(fake, chat))
    assert result.verdict.status is Status.UNPARSEABLE
    feedback = json.loads(openai_server.chat_requests[1].last_user.split("\n\nRuns left")[0])
    assert feedback == {"status": "RUNTIME_ERROR", "output": "Traceback: boom", "return_code": 1}


# -- RandSearch --------------------------------------------------------------------------------------

GENERATOR = "import random; print(random.randint(1, 10))"


def _generator(stdin: str, args: list[str]) -> str:
    return f"{int(args[0]) % 10 + 1}\n"


def test_randsearch_finds_through_its_brute_force_solver(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    fake = runner().add(GENERATOR, _generator).add("BRUTE", lambda s, a: f"{2 * int(s)}\n")
    openai_server.script(submit("BRUTE", "solve_brute") + submit(GENERATOR, "generate_tc"))
    result = STRATEGIES["randsearch"].attempt(TASK, 0, context(fake, chat))
    assert result.verdict.status is Status.SUCCESS and result.verdict.input == "7\n"
    assert result.trace[0]["found"] and fake.ran("brute") >= 1 and fake.ran("correct") >= 1


def test_randsearch_with_a_wrong_brute_force_solver_is_judged_by_the_rule(
    openai_server: ScriptedOpenAI, chat: LLMClient
) -> None:
    fake = runner().add(GENERATOR, _generator).add("BAD BRUTE", prints("0\n"))
    openai_server.script(submit("BAD BRUTE", "solve_brute") + submit(GENERATOR, "generate_tc"))
    result = STRATEGIES["randsearch"].attempt(TASK, 0, context(fake, chat))
    assert result.verdict.status is Status.NO_DIFFERENCE  # the loop stopped on the brute force's mistake


def test_randsearch_oracle_and_a_failing_generator(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    fake = runner().add(GENERATOR, _generator)
    openai_server.script(submit(GENERATOR, "generate_tc"), submit(LOOPING, "generate_tc"), submit(GENERATOR, "nothing"))
    strategy = STRATEGIES["randsearch-oracle"]
    assert strategy.attempt(TASK, 0, context(fake, chat)).verdict.status is Status.SUCCESS
    assert strategy.attempt(TASK, 1, context(fake, chat)).verdict.status is Status.PRINTER_FAILED
    assert strategy.attempt(TASK, 2, context(fake, chat)).verdict.status is Status.UNPARSEABLE
    assert CORRECT in openai_server.chat_requests[0].last_user


def test_randsearch_that_finds_nothing_says_so(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    fake = runner().add("SMALL", prints("5\n"))
    openai_server.script(submit("SMALL", "generate_tc"))
    result = STRATEGIES["randsearch-oracle"].attempt(TASK, 0, context(fake, chat, loop_seconds=0.3))
    assert result.verdict.status is Status.NO_DIFFERENCE and "no difference" in result.verdict.detail


# -- ours -------------------------------------------------------------------------------------------


def test_divergent_needs_no_model_and_its_find_is_judged_by_the_rule() -> None:
    fake = runner()
    fake.search_answer = lambda wrong, correct, **o: SearchResult(input="7\n", inputs=40, rejected=3, engine="text-mutation")
    result = STRATEGIES["divergent"].attempt(TASK, 0, context(fake))
    assert result.verdict.status is Status.SUCCESS and result.verdict.extra["engine"] == "text-mutation"
    search = fake.searches[0]
    assert search["examples"] == ["3\n"] and search["validator"].code == VALIDATOR and search["generator"] is None
    fake.search_answer = lambda wrong, correct, **o: SearchResult(input=None, inputs=500, rejected=20, seconds=5.0)
    result = STRATEGIES["divergent"].attempt(TASK, 0, context(fake))
    assert result.verdict.status is Status.NO_DIFFERENCE and "500 inputs" in result.verdict.detail


def test_hybrid_feeds_validator_messages_back_then_searches_around_the_valid_outputs(
    openai_server: ScriptedOpenAI, chat: LLMClient
) -> None:
    fake = runner().add(PRINT_1000, prints("1000\n")).add(GENERATOR, _generator)
    fake.search_answer = lambda wrong, correct, **o: SearchResult(input="7\n", inputs=10, engine="seeds")
    openai_server.script(submit(PRINT_1000, "generate_tc"), submit(GENERATOR, "generate_tc"))
    result = STRATEGIES["hybrid"].attempt(TASK, 0, context(fake, chat))
    assert result.verdict.status is Status.SUCCESS
    feedback = openai_server.chat_requests[1].last_user
    assert "out of [1, 100]" in feedback and "1000" in feedback
    search = fake.searches[0]
    assert search["examples"] == ["3\n", *(f"{n}\n" for n in range(1, 9))]  # the example, then 8 valid outputs
    assert search["generator"].code.strip() == GENERATOR


def test_hybrid_with_no_generator_at_all_is_unparseable(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    openai_server.script("no idea")
    assert STRATEGIES["hybrid"].attempt(TASK, 0, context(runner(), chat)).verdict.status is Status.UNPARSEABLE


def test_strategy_names_parse() -> None:
    assert [s.name for s in parse_strategies("zero-shot, agent,zero-shot")] == ["zero-shot", "agent"]
    assert len(parse_strategies("all")) == 8
    with pytest.raises(InvalidArgument, match="unknown bogus"):
        parse_strategies("bogus")


# -- the stored run and the report ---------------------------------------------------------------------


def test_a_run_is_stored_resumed_reported_and_a_rerun_asks_nothing(
    openai_server: ScriptedOpenAI, chat: LLMClient, llm_home: Path, tmp_path: Path
) -> None:
    other = task_from_record({"problem_id": "T3", "statement": "s", "input": "i", "output": "o",
                              "example_input": "3\n", "example_output": "6\n", "time_limit": 1000,
                              "memory_limit": 256, "wrong_code": WRONG, "wrong_code_lang": "Kotlin",
                              "correct_python": CORRECT, "validator": VALIDATOR})
    second = task_from_record({**_record(TASK), "problem_id": "T2", "statement": "Print n + n."})
    data = RefuteData(tasks=[TASK, second, other])
    fake = runner()
    fake.search_answer = lambda wrong, correct, **o: SearchResult(input="7\n", inputs=5)

    openai_server.responder = lambda request: submit(PRINT_7)
    strategies = parse_strategies("zero-shot,divergent")
    with Store(tmp_path / "runs.db") as store:
        result = run_refute(RefuteConfig(data, strategies, context(fake, chat), "d1", attempts=2),
                            Workbench(store, ThreadExecutor(2)))
        assert result.skipped == [("T3", "no build for the wrong code's language 'Kotlin'")]
        assert len(openai_server.chat_requests) == 4
        document = results_document(store, result, model="scripted", parameters={})
        summary = document["summary"]
        by_name = {s["name"]: s for s in summary["strategies"]}
        assert by_name["zero-shot"]["success_rate"] == 1.0 and by_name["zero-shot"]["solved"] == ["T1", "T2"]
        assert by_name["zero-shot"]["usage"]["calls"] == 4 and by_name["divergent"]["usage"]["calls"] == 0
        assert summary["overlap"]["pairwise"]["zero-shot"]["divergent"] == 2
        assert summary["overlap"]["only"] == {"zero-shot": [], "divergent": []}
        assert len(document["items"]) == 8 and document["usage"]["calls"] == 4
        again = run_refute(RefuteConfig(data, strategies, context(fake, chat), "d1", attempts=2), Workbench(store))
        assert len(openai_server.chat_requests) == 4  # everything was stored: nothing is asked again
        assert {n: r.id for n, r in again.runs.items()} == {n: r.id for n, r in result.runs.items()}
        assert all(p.resumed == 4 for p in again.by_strategy.values())
        more = run_refute(RefuteConfig(data, strategies[:1], context(fake, chat), "d1", attempts=3), Workbench(store))
        assert len(openai_server.chat_requests) == 6 and more.by_strategy["zero-shot"].resumed == 4
        console = Console(record=True, width=200)
        render_tables([document], console)
        text = console.export_text()
        assert "REFUTE" in text and "100.0" in text and "zero-shot" in text and "overlap" in text


def _record(task) -> dict[str, object]:
    return {"problem_id": task.problem_id, "statement": task.statement, "input": task.input_format,
            "output": task.output_format, "example_input": task.example_input,
            "example_output": task.example_output, "time_limit": task.time_limit_ms,
            "memory_limit": task.memory_limit_mb, "wrong_code": task.wrong_code,
            "wrong_code_lang": task.wrong_language, "correct_python": task.correct_code,
            "validator": task.validator}


def test_a_model_strategy_without_a_model_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store, pytest.raises(InvalidArgument, match="needs a model"):
        run_refute(RefuteConfig(RefuteData(tasks=[TASK]), parse_strategies("divergent,agent"), context(runner()), "d"),
                   Workbench(store))


def test_a_dead_endpoint_stops_the_run(llm_home: Path, tmp_path: Path) -> None:
    settings = LLMSettings(model="scripted", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2.0)
    with LLMClient(settings, store=llm_home / "store.db") as dead, Store(tmp_path / "runs.db") as store:
        result = run_refute(RefuteConfig(RefuteData(tasks=[TASK]), parse_strategies("zero-shot,few-shot"),
                                         context(runner(), dead), "d"), Workbench(store))
    assert result.stopped and "zero-shot" in result.stopped and "few-shot" not in result.runs


def test_slow_answers_are_not_an_error(openai_server: ScriptedOpenAI, chat: LLMClient) -> None:
    openai_server.script(Reply(text=submit(PRINT_7), delay=0.2))
    assert STRATEGIES["zero-shot"].attempt(TASK, 0, context(runner(), chat)).verdict.success


# -- the command line ----------------------------------------------------------------------------------


def _divergent(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DIVERGENT_HOME": str(home)}
    env.pop("DIVERGENT_LLM_MODEL", None)
    return subprocess.run([sys.executable, "-m", "divergent", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_the_report_command_prints_the_tables_of_results_files(tmp_path: Path) -> None:
    document = {"benchmark": "refute", "format": 1, "parameters": {}, "summary": dict(
        model="m1", problems=["A", "B"], skipped=[{"problem_id": "C", "reason": "no validator"}],
        strategies=[summarize_strategy("zero-shot", [
            {"problem_id": "A", "attempt": 0, "verdict": {"status": "success"}, "usage": {"cost": 0.5}, "seconds": 2},
            {"problem_id": "B", "attempt": 0, "verdict": {"status": "validation-failed"}, "seconds": 4},
        ], ["A", "B"], 1), summarize_strategy("divergent", [
            {"problem_id": "B", "attempt": 0, "verdict": {"status": "success"}, "seconds": 1},
        ], ["A", "B"], 1)],
        overlap=overlap({"zero-shot": ["A"], "divergent": ["B"]}),
    )}
    write_results(tmp_path / "m1.json", document)
    shown = _divergent("bench", "refute", "report", str(tmp_path / "m1.json"), home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "m1" in shown.stdout and "50.0" in shown.stdout and "only it" in shown.stdout
    assert "1 (A)" in shown.stdout and "no validator" in shown.stdout
    (tmp_path / "other.json").write_text(json.dumps({"benchmark": "equibench", "format": 1}))
    refused = _divergent("bench", "refute", "report", str(tmp_path / "other.json"), home=tmp_path)
    assert refused.returncode == 2 and "not 'refute'" in refused.stderr


def test_the_run_command_refuses_bad_input_on_one_line(tmp_path: Path) -> None:
    corpus = str(Path(__file__).resolve().parents[1] / "examples" / "refute" / "corpus.jsonl")
    for args, message in [
        ((), "--data"),
        (("--data", corpus, "--strategy", "zero-shot"), "needs a model"),
        (("--data", corpus, "--strategy", "guess"), "unknown guess"),
        (("--data", str(tmp_path / "none.jsonl")), "no such file"),
        (("--data", corpus, "--compat", "loose"), "--compat 'loose'"),
        (("--data", corpus, "--html", str(tmp_path / "no such directory" / "r.html")), "--html"),
        (("--data", corpus, "--json", str(tmp_path / "no such directory" / "r.json")), "--json"),
    ]:
        result = _divergent("bench", "refute", "run", *args, home=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
