"""The model endpoint is untrusted: a test per threat of docs/llm.md's table (issue 37).

A hostile endpoint is played by the scripted loopback server (tests/scripted_openai.py): answers that
drip, rate limits asking for a minute, bodies of hundreds of megabytes, JSON nested 200,000 deep,
usage counts of 10**400 or "lots", lone surrogates, rich markup in error messages, redirects to a
second server that records whether it was asked. The real client runs (SDK, HTTP, cache); where the
observable is the run's (its wall time, its exit code, the difference it reports, its memory), the
real command runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from divergent.errors import LLMCacheMiss, LLMError, LLMOutOfTime, LLMUnavailable
from divergent.llm import boundary
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from divergent.llm.transport import Endpoint, Refused
from divergent.records import FilterDecision
from divergent.search import check
from divergent.spurious import SpuriousFilter
from divergent.store import default_store_path
from scripted_openai import Received, Reply, ScriptedOpenAI

ROOT = Path(__file__).resolve().parents[1]
QUESTION = [{"role": "user", "content": "Write a generator."}]
CASEFOLD = "def same_word(first: str, second: str) -> bool:\n    return first.casefold() == second.casefold()\n"
LOWER = "def same_word(first: str, second: str) -> bool:\n    return first.lower() == second.lower()\n"
#: a generator whose probe makes the pair differ at once (casefold maps ß to ss, lower does not)
TARGETED = ("The sharp s.\n\n```python\ndef create_fn_inputs():\n"
            "    yield {'args': ['Stra\u00dfe', 'STRASSE'], 'kwargs': {}}\n```\n")
DRIP = Reply(text="x", drip=0.2, endless=True)
MARKUP = "[/bogus] [link=https://evil.example]click[/link] [bold red]alarm"


def settings(base_url: str, **overrides) -> LLMSettings:
    values = dict(model="scripted", base_url=base_url, timeout=30.0, max_retries=3, backoff_base=0.01,
                  backoff_max=0.05, retry_after_max=120.0)
    values.update(overrides)
    return LLMSettings(**values)


def warmed(llm: LLMClient, server: ScriptedOpenAI) -> LLMClient:
    """``llm`` after one call (the SDK imported, the connection made), which ``server`` forgets: the
    time the tests measure is the hostile answer's."""
    server.script("warm")
    llm.complete([{"role": "user", "content": "warm up"}], sample_index=999)
    server.received.clear()
    return llm


@pytest.fixture
def client(llm_home, openai_server):
    with LLMClient(settings(openai_server.base_url)) as llm:
        yield warmed(llm, openai_server)


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(CASEFOLD)
    (tmp_path / "b.py").write_text(LOWER)
    return tmp_path


def is_filter(received: Received) -> bool:
    return "DIFFERENCES" in received.prompt


#: the acceptance's allowance past the budget (issue 37: "wall time within budget + 1 s")
ALLOWANCE = 1.0


@pytest.fixture(scope="module")
def no_time_cost(tmp_path_factory) -> float:
    """Wall seconds of the same command given no time at all (its start and exit, on this machine under
    its load now): what a loaded 2-core machine adds past any budget, measured rather than guessed."""
    where = tmp_path_factory.mktemp("no-time")
    (where / "a.py").write_text(CASEFOLD)
    (where / "b.py").write_text(LOWER)
    _, wall, _ = run_check(where, SimpleNamespace(base_url="http://127.0.0.1:9/v1"), 0.05)
    return wall


def within_budget(wall: float, budget: float, no_time_cost: float) -> bool:
    """Whether a run ended within its budget and the allowance, beyond what the command costs when it
    has no time at all (the old code overran by 5 to 90 s)."""
    return wall < budget + ALLOWANCE + no_time_cost


def run_check(cwd: Path, server: Any, budget: float, *extra: str) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """``divergent check`` with the LLM engine alone against ``server``: the result, its wall seconds,
    and the peak memory (KiB) of the divergent process itself (its sandboxed workers are apart)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    # VmHWM, not ru_maxrss: ru_maxrss survives execve, so it would report the forking pytest's own size
    peak = ("import atexit, sys\n"
            "def hwm():\n"
            "    kib = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
            "    sys.stderr.write(f'\\nmaxrss={kib}\\n')\n"
            "atexit.register(hwm)\n"
            "sys.argv = ['divergent', *sys.argv[1:]]\n"
            "from divergent.__main__ import main\n"
            "main()\n")
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", peak, "check", "a.py", "b.py", "-f", "same_word", "--engines", "llm", "--model",
         "scripted", "--base-url", server.base_url, "--budget", f"{budget:g}", "--json", *extra],
        cwd=cwd, capture_output=True, text=True, env=env, timeout=120,
    )
    wall = time.monotonic() - started
    maxrss = [int(line.split("=", 1)[1]) for line in result.stderr.splitlines() if line.startswith("maxrss=")]
    return result, wall, maxrss[-1] if maxrss else 0


# -------------------------------------------------------------------------------------------------
# 1. No call outlives the time it was given


def test_a_dripping_answer_ends_at_the_callers_deadline(client, openai_server):
    openai_server.responder = lambda received: DRIP
    started = time.monotonic()
    with pytest.raises(LLMOutOfTime, match="no answer before the time given ran out"):
        client.complete(QUESTION, deadline=started + 1.0)
    assert time.monotonic() - started < 2.0
    assert len(openai_server.chat_requests) == 1


def test_a_dripping_answer_ends_at_the_request_timeout_without_a_deadline(llm_home, openai_server):
    openai_server.responder = lambda received: DRIP
    with LLMClient(settings(openai_server.base_url, timeout=0.5, max_retries=1)) as client:
        warmed(client, openai_server)
        started = time.monotonic()
        with pytest.raises(LLMUnavailable, match=r"no answer within 0.5 s \(gave up after 2 attempts\)"):
            client.complete(QUESTION)
        # the SDK's timeout is per read, which a byte every 0.2 s never trips: this one is per request
        assert time.monotonic() - started < 3.0


def test_a_retry_after_longer_than_the_time_left_ends_the_call_at_once(client, openai_server):
    openai_server.responder = lambda received: Reply(status=429, headers={"Retry-After": "60"})
    started = time.monotonic()
    with pytest.raises(LLMOutOfTime, match=r"rate limited.*asked to wait 60 s before another try, more than the"):
        client.complete(QUESTION, deadline=started + 5.0)
    assert time.monotonic() - started < 2.0
    assert len(openai_server.chat_requests) == 1


def test_back_off_stops_at_the_time_left(llm_home, openai_server):
    openai_server.responder = lambda received: Reply(status=503)
    with LLMClient(settings(openai_server.base_url, max_retries=20, backoff_base=0.2, backoff_max=5.0)) as client:
        warmed(client, openai_server)
        started = time.monotonic()
        with pytest.raises(LLMOutOfTime, match="back-off is"):
            client.complete(QUESTION, deadline=started + 1.5)
        assert time.monotonic() - started < 2.5
        assert client.usage().retries >= 1


def test_a_busy_connection_slot_is_waited_for_only_until_the_deadline(llm_home, openai_server):
    openai_server.responder = lambda received: DRIP
    with LLMClient(settings(openai_server.base_url, concurrency=1)) as client:
        warmed(client, openai_server)

        def hold_the_slot() -> None:
            with pytest.raises(LLMError):
                client.complete(QUESTION, deadline=time.monotonic() + 4.0)

        first = threading.Thread(target=hold_the_slot)
        first.start()
        while not openai_server.chat_requests:
            time.sleep(0.02)
        started = time.monotonic()
        with pytest.raises(LLMOutOfTime, match="connections stayed busy"):
            client.complete([{"role": "user", "content": "another"}], deadline=started + 0.5)
        assert time.monotonic() - started < 1.5
        first.join()


def test_a_host_that_does_not_resolve_is_not_retried(llm_home, monkeypatch):
    def no_such_host(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    with LLMClient(settings("http://no-such-host.invalid/v1", backoff_base=5.0)) as client:
        started = time.monotonic()
        with pytest.raises(LLMUnavailable, match="the host name does not resolve"):
            client.complete(QUESTION)
        assert time.monotonic() - started < 3.0
        assert client.usage().retries == 0


@pytest.mark.parametrize("stall", ["drip", "retry-after"])
def test_check_holds_its_budget_when_the_endpoint_stalls(pair: Path, llm_home, stall: str, no_time_cost: float):
    reply = DRIP if stall == "drip" else Reply(status=429, headers={"Retry-After": "60"})
    with ScriptedOpenAI(lambda received: reply) as server:
        result, wall, _ = run_check(pair, server, 6)
        assert server.chat_requests, "the model was never asked: nothing was tested (a machine this loaded?)"
    assert within_budget(wall, 6, no_time_cost), f"{wall:.1f} s for --budget 6 ({no_time_cost:.1f} s with none)"
    assert result.returncode not in (2, 3), result.stderr
    data = json.loads(result.stdout)
    assert data["verdict"] != "divergent"  # nothing forged


# -------------------------------------------------------------------------------------------------
# 2. What divergent observed never depends on the model answering


@pytest.mark.parametrize("failure", ["http-500", "drip"])
def test_a_difference_the_filter_cannot_judge_in_time_is_reported_unjudged(
    pair: Path, llm_home, failure: str, no_time_cost: float
):
    # the default retries (5, backing off 1 s, 2 s, 4 s...) would take longer than the budget
    broken = Reply(status=500, text="the judge is down") if failure == "http-500" else DRIP
    with ScriptedOpenAI(lambda received: broken if is_filter(received) else TARGETED) as server:
        result, wall, _ = run_check(pair, server, 10)
        assert any(is_filter(r) for r in server.chat_requests), result.stdout
    assert result.returncode == 1, result.stderr
    assert within_budget(wall, 10, no_time_cost), f"{wall:.1f} s for --budget 10 ({no_time_cost:.1f} s with none)"
    data = json.loads(result.stdout)
    assert data["verdict"] == "divergent" and data["engine"] == "llm"
    verdict = data["counterexample"]["filter"]
    assert verdict["relevant"] is True and verdict["differences"] == "UNJUDGED"
    assert any(note.startswith("filter: not judged") for note in data["notes"])


def test_a_second_asker_waits_for_the_first_ones_verdict(client, openai_server):
    from divergent.programs import PythonFunction, Signature
    from divergent.records import Input, Outcome, OutcomeKind

    openai_server.responder = lambda received: Reply(text="RATIONALE: real\nDIFFERENCES: IMPORTANT", delay=0.5)
    impls = [PythonFunction(label=f"{n}.py:f", entry_point="f", source=s, signature=Signature())
             for n, s in (("a", CASEFOLD), ("b", LOWER))]
    outcomes = (Outcome(kind=OutcomeKind.RETURNED, value=True), Outcome(kind=OutcomeKind.RETURNED, value=False))
    judge = SpuriousFilter(client).within(time.monotonic() + 10)
    verdicts = []
    threads = [threading.Thread(target=lambda: verdicts.append(judge.assess(impls, Input(args=("ß", "ss")), outcomes)))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [v.differences for v in verdicts] == [FilterDecision.IMPORTANT] * 3
    assert len(openai_server.chat_requests) == 1


# -------------------------------------------------------------------------------------------------
# 3. Size: what an answer may cost in memory, time and store


def test_a_huge_announced_answer_is_refused_unread(client, openai_server):
    openai_server.script(Reply(text="x", padding=500_000_000))
    tracemalloc.start()
    try:
        with pytest.raises(LLMError, match="over the cap of 4,194,304") as raised:
            client.complete(QUESTION)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not isinstance(raised.value, LLMUnavailable)
    assert peak < 16 * 2**20
    assert len(openai_server.chat_requests) == 1  # a cap exceeded is not a glitch: no retry
    assert openai_server.bytes_sent < 64 * 2**20  # the server blocked once the socket's buffers were full


def test_a_huge_unannounced_answer_is_cut_at_the_cap(client, openai_server, llm_home):
    openai_server.script(Reply(text="x", padding=200_000_000, unannounced=True))
    tracemalloc.start()
    try:
        with pytest.raises(LLMError, match="over the cap"):
            client.complete(QUESTION)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * boundary.MAX_ANSWER_BYTES
    assert openai_server.bytes_sent < 64 * 2**20


def test_a_million_tool_calls_are_refused_by_their_size(client, openai_server):
    call = b'{"id":"call_0","type":"function","function":{"name":"f","arguments":"{}"}},'
    calls = b"[" + call * 100_000 + call[:-1] + b"]"
    body = (b'{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,'
            b'"tool_calls":' + calls + b"}}]}")
    openai_server.script(Reply(raw=body, unannounced=True))
    started = time.monotonic()
    with pytest.raises(LLMError, match="over the cap"):
        client.complete(QUESTION)
    assert time.monotonic() - started < 5.0


def test_the_store_grows_by_at_most_the_cap_per_call(client, openai_server, llm_home):
    openai_server.script(Reply(text="x", padding=boundary.MAX_ANSWER_BYTES - 4096), Reply(text="y", padding=50_000_000))
    client.complete(QUESTION)  # just under the cap: taken, and cached
    path = default_store_path()
    before = path.stat().st_size
    with pytest.raises(LLMError, match="over the cap"):
        client.complete(QUESTION, sample_index=1)
    assert path.stat().st_size - before < 2**20  # refused: nothing stored
    assert before < 2 * boundary.MAX_ANSWER_BYTES + 2**20


def test_check_against_a_huge_answer_holds_its_budget_memory_and_store(pair: Path, llm_home, no_time_cost: float):
    with ScriptedOpenAI(lambda received: Reply(text=TARGETED, padding=300_000_000)) as server:
        # the engine stops at the refused answer: the run ends long before this budget
        result, wall, maxrss = run_check(pair, server, 10)
        assert server.chat_requests, "the model was never asked: nothing was tested"
    assert result.returncode not in (2, 3), result.stderr
    assert within_budget(wall, 10, no_time_cost)
    assert 0 < maxrss < 400 * 1024, f"peak memory {maxrss // 1024} MiB"  # KiB: the issue saw 2.4 GB
    store = llm_home / "divergent.sqlite3"
    assert store.stat().st_size < 16 * 2**20


# -------------------------------------------------------------------------------------------------
# 4. No answer crashes a run: each is an LLMError at the boundary, and the difference is kept

BAD_ANSWERS = {
    "nested JSON": Reply(raw=b'{"choices": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"),
    "prompt_tokens 10**400": Reply(text="DIFFERENCES: IRRELEVANT", usage={"prompt_tokens": 10**400}),
    "prompt_tokens 'lots'": Reply(text="DIFFERENCES: IRRELEVANT", usage={"prompt_tokens": "lots"}),
    "negative completion_tokens": Reply(text="DIFFERENCES: IRRELEVANT", usage={"completion_tokens": -5}),
    "usage a list": Reply(text="DIFFERENCES: IRRELEVANT", usage=[1, 2]),
    "choices a string": Reply(raw=b'{"choices": "none"}'),
    "not UTF-8": Reply(raw=b'{"choices": [{"message": {"content": "\xff\xfe"}}]}'),
    "markup in the error": Reply(status=400, text=MARKUP),
}


@pytest.mark.parametrize("name", list(BAD_ANSWERS))
def test_a_bad_answer_is_an_llm_error(client, openai_server, name: str):
    openai_server.responder = lambda received: BAD_ANSWERS[name]
    with pytest.raises(LLMError) as raised:
        client.complete(QUESTION)
    assert len(str(raised.value)) < 600


def test_a_lone_surrogate_and_control_characters_are_cleaned_before_the_cache(client, openai_server, llm_home):
    openai_server.script(Reply(text="DIFFERENCES: IMPORTANT \ud800 \x1b[31mred\x1b[0m \u202eevil\r\nnext"))
    completion = client.complete(QUESTION)
    assert completion.text == "DIFFERENCES: IMPORTANT \ufffd \ufffd[31mred\ufffd[0m \ufffdevil\nnext"
    completion.text.encode("utf-8")  # and so it can be stored, printed, sent back
    assert client.complete(QUESTION).cached  # it was saved


@pytest.mark.parametrize("answer", [
    "x=" * 1_000_000 + "1",  # seconds of the parser's CPU
    "1+" * 1_000_000 + "1",  # RecursionError
    "-" * 1_000_000 + "1",  # MemoryError
    "```python\n" + "a." * 500_000 + "b\n```\n",
    "```\nx = 1\n```\n" * 200_000,  # 200,000 blocks
])
def test_code_is_taken_from_a_hostile_answer_without_crashing_or_stalling(answer: str):
    from divergent.llm.extract import extract_code, extract_function_source

    started = time.monotonic()
    extract_code(answer, "create_fn_inputs")
    extract_code(answer)
    extract_function_source(answer, "create_fn_inputs")
    assert time.monotonic() - started < 5.0


@pytest.mark.parametrize("name", ["nested JSON", "prompt_tokens 10**400", "prompt_tokens 'lots'", "markup in the error"])
def test_a_filter_given_a_bad_answer_keeps_the_difference(tmp_path: Path, client, openai_server, name: str):
    (tmp_path / "a.py").write_text(CASEFOLD)
    (tmp_path / "b.py").write_text(LOWER)
    openai_server.responder = lambda received: BAD_ANSWERS[name]
    report = check([f"{tmp_path / 'a.py'}:same_word", f"{tmp_path / 'b.py'}:same_word"], engines="seeds",
                   seeds=[("Straße", "STRASSE")], budget=30.0, shrink=False, spurious_filter=SpuriousFilter(client))
    assert report.divergent
    verdict = report.counterexample.filter
    assert verdict.relevant and verdict.differences is FilterDecision.UNJUDGED


def test_model_and_server_text_is_never_markup(pair: Path, llm_home):
    # the generator's answer carries markup and a lone surrogate; the filter's error message markup
    answer = TARGETED.replace("The sharp s.", f"The sharp s. {MARKUP} \ud800")
    with ScriptedOpenAI(lambda r: Reply(status=400, text=MARKUP) if is_filter(r) else answer) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"}
        result = subprocess.run(
            [sys.executable, "-m", "divergent", "check", "a.py", "b.py", "-f", "same_word", "--engines", "llm",
             "--model", "scripted", "--base-url", server.base_url, "--budget", "20"],
            cwd=pair, capture_output=True, text=True, env=env, timeout=120,
        )
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr
    assert "[/bogus] [link=https://evil.example]click[/link]" in result.stdout  # shown as it was written


# -------------------------------------------------------------------------------------------------
# 5. The user's code goes only where the user sent it


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed(client, openai_server, status: int):
    with ScriptedOpenAI(lambda received: "the other server's answer") as other:
        openai_server.responder = lambda received: Reply(
            status=status, raw=b"", headers={"Location": other.base_url + "/chat/completions"})
        with pytest.raises(LLMUnavailable, match=rf"HTTP {status}: redirected to .*: not followed") as raised:
            client.complete(QUESTION)
        assert other.received == []  # the prompt (the user's code) never went there
    assert len(openai_server.chat_requests) == 1
    assert "change --base-url" in str(raised.value)


def test_no_request_leaves_for_another_origin(llm_home, openai_server):
    endpoint = Endpoint(base_url=openai_server.base_url, api_key="k", timeout=5.0)
    try:
        same = openai_server.base_url.replace("/v1", "/other/path")
        asyncio.run(endpoint._pinned(SimpleNamespace(url=same)))  # same origin, any path: sent
        for foreign in ("http://evil.example/v1/chat/completions", openai_server.base_url.replace("http:", "https:"),
                        openai_server.base_url.replace("127.0.0.1", "localhost")):
            with pytest.raises(Refused, match="was not sent"):
                asyncio.run(endpoint._pinned(SimpleNamespace(url=foreign)))
    finally:
        endpoint.close()


# -------------------------------------------------------------------------------------------------
# 6. The cache knows which endpoint answered


def test_another_endpoint_with_the_same_model_name_is_asked(llm_home):
    with ScriptedOpenAI(lambda r: "from A") as first, ScriptedOpenAI(lambda r: "from B") as second:
        with LLMClient(settings(first.base_url)) as client_a:
            assert client_a.complete(QUESTION).text == "from A"
        with LLMClient(settings(second.base_url)) as client_b:
            answer = client_b.complete(QUESTION)
            assert (answer.text, answer.cached) == ("from B", False)
        assert len(second.chat_requests) == 1
        with LLMClient(settings(first.base_url + "/")) as again:  # a trailing slash is the same endpoint
            assert again.complete(QUESTION).cached


def test_the_cache_knows_an_endpoint_by_origin_and_path_never_by_its_credentials():
    from divergent.llm.client import endpoint_key

    assert endpoint_key("HTTPS://user:secret@API.example.com:443/v1/?token=abc") == "https://api.example.com/v1"
    assert endpoint_key("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"
    assert endpoint_key("https://proxy.example/a/v1") != endpoint_key("https://proxy.example/b/v1")


def test_replay_stays_offline_and_answers_for_its_endpoint(llm_home):
    with ScriptedOpenAI(lambda r: "recorded") as recorder:
        base_url = recorder.base_url
        with LLMClient(settings(base_url)) as client:
            client.complete(QUESTION)
    # the server is gone: replay answers from the cache, for that endpoint only
    with LLMClient(settings(base_url, replay=True)) as replaying:
        assert replaying.complete(QUESTION).text == "recorded"
    with LLMClient(settings("http://127.0.0.1:9/v1", replay=True)) as elsewhere, pytest.raises(LLMCacheMiss):
        elsewhere.complete(QUESTION)


def test_a_damaged_cache_row_is_an_llm_error(client, openai_server, llm_home):
    openai_server.script("fine")
    client.complete(QUESTION)
    with sqlite3.connect(default_store_path()) as database:
        database.execute("UPDATE llm_responses SET response = ?", (json.dumps({"text": "t", "prompt_tokens": 10**400}),))
    with pytest.raises(LLMError, match="damaged"):
        client.complete(QUESTION)


# -------------------------------------------------------------------------------------------------
# The SDK is imported only when a request is made (issue 36, item 8)


def test_the_sdk_is_imported_only_for_a_request(llm_home, openai_server):
    openai_server.script("cached answer", "fresh answer")
    with LLMClient(settings(openai_server.base_url)) as client:
        client.complete(QUESTION)
    program = (
        "import sys\n"
        "from divergent.llm.client import LLMClient\n"
        "from divergent.llm.config import LLMSettings\n"
        f"client = LLMClient(LLMSettings(model='scripted', base_url={openai_server.base_url!r}))\n"
        f"assert client.complete({QUESTION!r}).text == 'cached answer'\n"
        "print('openai' in sys.modules)\n"
        "assert client.complete([{'role': 'user', 'content': 'new'}]).text == 'fresh answer'\n"
        "print('openai' in sys.modules)\n"
        "client.close()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]
