"""The LLM client against a real scripted HTTP server: answers, retries, errors, cache, replay, config."""

from __future__ import annotations

import socket
import sqlite3
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from divergent.cli.llm_options import chat_model_from_options
from divergent.errors import InvalidArgument, LLMCacheMiss, LLMError, LLMUnavailable
from divergent.llm.chat import ChatModel, Usage
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings, resolve_llm_settings
from divergent.llm.costs import DEFAULT_PRICES, Price, completion_cost, price_for
from divergent.llm.extract import code_blocks, extract_code, extract_function_source
from divergent.sandbox import isolation
from divergent.store import Store, default_store_path
from scripted_openai import Received, Reply, ScriptedOpenAI

KEY = "sk-test-not-a-real-key"
QUESTION = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hello."}]


def fast_settings(base_url: str, **overrides) -> LLMSettings:
    """Settings whose retries take milliseconds."""
    values = dict(model="gpt-4o-mini", base_url=base_url, timeout=5.0, max_retries=3, backoff_base=0.005,
                  backoff_max=0.02, retry_after_max=0.05)
    values.update(overrides)
    return LLMSettings(**values)


@pytest.fixture
def make_client(llm_home, openai_server):
    clients: list[LLMClient] = []

    def make(**overrides) -> LLMClient:
        client = LLMClient(fast_settings(openai_server.base_url, **overrides))
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


# -------------------------------------------------------------------------------------------------
# Answers, usage and cost


def test_plain_answer_with_usage_and_cost(make_client, openai_server):
    openai_server.script(Reply(text="Hello.", prompt_tokens=1000, completion_tokens=2000))
    client = make_client()
    assert isinstance(client, ChatModel)
    completion = client.complete(QUESTION, temperature=0.3, max_tokens=50)
    assert completion.text == "Hello."
    assert (completion.prompt_tokens, completion.completion_tokens) == (1000, 2000)
    assert completion.cost == pytest.approx((1000 * 0.15 + 2000 * 0.60) / 1e6)
    assert completion.finish_reason == "stop"
    assert completion.cached is False
    [received] = openai_server.chat_requests
    assert received.body["model"] == "gpt-4o-mini"
    assert received.body["messages"] == QUESTION
    assert received.body["temperature"] == 0.3
    assert received.body["max_tokens"] == 50
    assert received.headers["authorization"] == f"Bearer {KEY}"
    usage = client.usage()
    assert (usage.calls, usage.cached_calls, usage.retries) == (1, 0, 0)
    assert (usage.prompt_tokens, usage.completion_tokens) == (1000, 2000)
    assert usage.cost == pytest.approx(completion.cost)


def test_unknown_model_costs_zero_and_says_so(make_client, openai_server):
    openai_server.script(Reply(text="hi", prompt_tokens=10, completion_tokens=10))
    client = make_client(model="my-local-coder")
    assert client.complete(QUESTION).cost == 0.0
    assert client.price_known is False
    assert price_for("my-local-coder") is None


def test_price_table_lookup_and_overrides():
    assert price_for("gpt-4o-mini-2024-07-18") == DEFAULT_PRICES["gpt-4o-mini"]
    assert price_for("gpt-4o-2024-08-06") == DEFAULT_PRICES["gpt-4o"]
    assert price_for("gpt-4omni") is None
    assert price_for("llama3") is None
    mine = {"gpt-4o": Price(1.0, 2.0)}
    assert price_for("gpt-4o", mine) == Price(1.0, 2.0)
    assert completion_cost("gpt-4o", 1_000_000, 500_000, mine) == pytest.approx(2.0)
    with pytest.raises(InvalidArgument):
        Price(-1.0, 0.0)


# -------------------------------------------------------------------------------------------------
# Retries and failures


def test_429_then_500_then_answer_counts_two_retries(make_client, openai_server):
    openai_server.script(Reply(status=429), Reply(status=500), Reply(text="finally"))
    client = make_client()
    assert client.complete(QUESTION).text == "finally"
    assert len(openai_server.chat_requests) == 3
    assert client.usage().retries == 2
    assert client.usage().calls == 1


def test_retry_after_is_honoured_and_capped(make_client, openai_server, monkeypatch):
    waits: list[float] = []
    original = LLMClient._backoff

    def spy(self, attempt, server_wait):
        waits.append(original(self, attempt, server_wait))
        return waits[-1]

    monkeypatch.setattr(LLMClient, "_backoff", spy)
    openai_server.script(
        Reply(status=429, headers={"Retry-After": "0.03"}),
        Reply(status=429, headers={"Retry-After": "3600"}),
        Reply(status=503),
        Reply(text="ok"),
    )
    assert make_client().complete(QUESTION).text == "ok"
    assert waits[0] == pytest.approx(0.03)
    assert waits[1] == pytest.approx(0.05)  # capped by retry_after_max
    assert 0.005 * 4 * 0.5 <= waits[2] <= 0.02  # third attempt: base * 2**2, jittered, capped at backoff_max


def test_persistent_rate_limit_is_unavailable_after_the_retries(make_client, openai_server):
    openai_server.script(*[Reply(status=429)] * 4)
    client = make_client(max_retries=3)
    with pytest.raises(LLMUnavailable, match=r"rate limited.*gave up after 4 attempts"):
        client.complete(QUESTION)
    assert client.usage().retries == 3
    assert client.usage().calls == 0


def test_slow_answer_times_out_is_retried_then_unavailable(make_client, openai_server):
    openai_server.script(Reply(text="late", delay=1.0), Reply(text="late again", delay=1.0))
    client = make_client(timeout=0.25, max_retries=1)
    with pytest.raises(LLMUnavailable) as raised:
        client.complete(QUESTION)
    message = str(raised.value)
    assert "no answer within 0.25 s" in message
    assert openai_server.base_url in message
    assert len(openai_server.chat_requests) == 2
    assert client.usage().retries == 1


def test_wrong_key_fails_at_once_naming_the_variable_not_the_key(llm_home, monkeypatch):
    secret = "sk-wrong-secret-0123456789abcdef"
    monkeypatch.setenv("MY_LLM_KEY", secret)
    with ScriptedOpenAI(api_key="the-right-key") as server:
        client = LLMClient(fast_settings(server.base_url, api_key_env="MY_LLM_KEY"))
        with pytest.raises(LLMUnavailable) as raised:
            client.complete(QUESTION)
        assert len(server.chat_requests) == 1  # no retry on 401
    message = str(raised.value)
    assert "MY_LLM_KEY" in message and "refused the API key" in message
    assert secret not in message and "0123456789abcdef" not in message
    assert secret not in "".join(traceback.format_exception(raised.value))
    client.close()


def test_a_key_echoed_by_the_server_is_redacted(make_client, openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-ECHOEDSECRET42")
    openai_server.script(Reply(status=400, text="invalid request for key sk-proj-ECHOEDSECRET42"))
    with pytest.raises(LLMError) as raised:
        make_client().complete(QUESTION)
    assert "ECHOEDSECRET42" not in str(raised.value)
    assert "[redacted]" in str(raised.value)
    assert len(openai_server.chat_requests) == 1  # a 400 is not retried


def test_missing_model_on_the_server_is_unavailable(make_client, openai_server):
    openai_server.script(Reply(status=404, text="The model `nope` does not exist"))
    with pytest.raises(LLMUnavailable, match="has no model 'gpt-4o-mini'"):
        make_client().complete(QUESTION)


def test_unreachable_endpoint_names_the_base_url_and_is_not_retried(llm_home):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    with LLMClient(fast_settings(base_url, max_retries=2, backoff_base=5.0)) as client:
        started = time.monotonic()
        with pytest.raises(LLMUnavailable, match=r"cannot connect.*refused") as raised:
            client.complete(QUESTION)
        # nobody listens: another try would not change that (a dead endpoint must not hold a search)
        assert time.monotonic() - started < 3.0
        assert base_url in str(raised.value)
        assert client.usage().retries == 0


def test_malformed_body_is_retried_then_an_llm_error(make_client, openai_server):
    openai_server.script(*[Reply(raw=b'{"choices": [oops')] * 3)
    client = make_client(max_retries=2)
    with pytest.raises(LLMError, match="malformed answer: the body is not JSON") as raised:
        client.complete(QUESTION)
    assert not isinstance(raised.value, LLMUnavailable)
    assert len(openai_server.chat_requests) == 3


def test_malformed_then_good_answer_succeeds(make_client, openai_server):
    openai_server.script(Reply(raw=b"{}"), Reply(text="good"))
    client = make_client()
    assert client.complete(QUESTION).text == "good"
    assert client.usage().retries == 1


def test_answer_without_text_is_an_llm_error(make_client, openai_server):
    openai_server.script(*[Reply(text="", finish_reason="length")] * 2)
    with pytest.raises(LLMError, match=r"no text \(finish reason 'length'\)"):
        make_client(max_retries=1).complete(QUESTION)


def test_no_key_for_the_default_endpoint_is_unavailable(llm_home, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with LLMClient(LLMSettings(model="gpt-4o-mini")) as client, pytest.raises(
        LLMUnavailable, match="set the environment variable OPENAI_API_KEY"
    ):
        client.complete(QUESTION)


def test_local_server_needs_no_key(make_client, openai_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    openai_server.script("local answer")
    assert make_client().complete(QUESTION).text == "local answer"


def test_bad_messages_are_invalid_arguments(make_client):
    client = make_client()
    with pytest.raises(InvalidArgument):
        client.complete([{"role": "robot", "content": "hi"}])
    with pytest.raises(InvalidArgument):
        client.complete([])
    with pytest.raises(InvalidArgument):
        client.complete(QUESTION, temperature=3.0)


def test_closed_client_refuses_calls(make_client):
    client = make_client()
    client.close()
    with pytest.raises(LLMError, match="closed"):
        client.complete(QUESTION)


def test_closing_the_client_ends_a_call_in_flight(make_client, openai_server):
    openai_server.responder = lambda received: Reply(text="x", drip=0.2, endless=True)
    client = make_client(timeout=60.0)
    failures: list[BaseException] = []

    def call() -> None:
        try:
            client.complete(QUESTION)
        except BaseException as error:  # noqa: BLE001 - what the call raised is the test's to check
            failures.append(error)

    caller = threading.Thread(target=call)
    caller.start()
    while not openai_server.chat_requests:
        time.sleep(0.02)
    closed = time.monotonic()
    client.close()
    caller.join(10)
    assert not caller.is_alive() and time.monotonic() - closed < 5.0
    assert len(failures) == 1 and isinstance(failures[0], LLMError), failures
    assert "closed" in str(failures[0])


# -------------------------------------------------------------------------------------------------
# Concurrency


def test_concurrency_limit_is_respected_and_usage_is_summed(llm_home):
    in_flight = 0
    most = 0
    lock = threading.Lock()

    def slow(received: Received) -> str:
        nonlocal in_flight, most
        with lock:
            in_flight += 1
            most = max(most, in_flight)
        time.sleep(0.15)
        with lock:
            in_flight -= 1
        return "answer " + received.last_user

    with ScriptedOpenAI(slow) as server, LLMClient(fast_settings(server.base_url, concurrency=2)) as client:
        def ask(index: int) -> str:
            return client.complete([{"role": "user", "content": f"q{index}"}]).text

        with ThreadPoolExecutor(max_workers=6) as pool:
            answers = list(pool.map(ask, range(6)))
        assert answers == [f"answer q{index}" for index in range(6)]
        assert most == 2
        assert client.usage().calls == 6
        # every thread wrote its answer to the cache through its own store connection
        with Store() as store:
            assert store.cached_response_count("gpt-4o-mini") == 6


# -------------------------------------------------------------------------------------------------
# Cache and replay


def test_rerun_is_served_from_the_cache_and_identical(llm_home, openai_server):
    openai_server.script(Reply(text="first answer", prompt_tokens=100, completion_tokens=20))
    with LLMClient(fast_settings(openai_server.base_url)) as first_run:
        original = first_run.complete(QUESTION, temperature=0.7, sample_index=3)
    with LLMClient(fast_settings(openai_server.base_url)) as second_run:
        again = second_run.complete(QUESTION, temperature=0.7, sample_index=3)
        assert len(openai_server.chat_requests) == 1
        assert again.cached is True
        assert (again.text, again.prompt_tokens, again.completion_tokens, again.cost, again.model) == (
            original.text, original.prompt_tokens, original.completion_tokens, original.cost, original.model
        )
        assert second_run.usage() == Usage(cached_calls=1)
    # one call's record keeps the answer's tokens and price as made; the cache says it was not paid now
    made, read_back = original.usage(), again.usage()
    assert (made.calls, made.cached_calls, read_back.calls, read_back.cached_calls) == (1, 0, 0, 1)
    assert (read_back.prompt_tokens, read_back.completion_tokens, read_back.cost) == (100, 20, original.cost) != (
        0, 0, 0.0
    )


def test_distinct_sample_index_or_parameters_are_distinct_calls(make_client, openai_server):
    openai_server.script("zero", "one", "hot", "short")
    client = make_client()
    assert client.complete(QUESTION, sample_index=0).text == "zero"
    assert client.complete(QUESTION, sample_index=1).text == "one"
    assert client.complete(QUESTION, sample_index=0, temperature=1.0).text == "hot"
    assert client.complete(QUESTION, sample_index=0, max_tokens=5).text == "short"
    assert client.complete(QUESTION, sample_index=1).text == "one"
    assert len(openai_server.chat_requests) == 4
    assert client.usage().cached_calls == 1


def test_cache_rows_never_hold_the_key(make_client, openai_server, llm_home):
    openai_server.script("stored")
    make_client().complete(QUESTION)
    with sqlite3.connect(default_store_path()) as database:
        rows = database.execute("SELECT request_key, model, request, response FROM llm_responses").fetchall()
    assert len(rows) == 1
    assert KEY not in repr(rows)
    assert "Say hello." in rows[0][2]


def test_cache_off_calls_every_time(make_client, openai_server):
    openai_server.script("a", "b")
    client = make_client(cache=False)
    assert [client.complete(QUESTION).text, client.complete(QUESTION).text] == ["a", "b"]


def test_replay_hit_and_clear_miss(llm_home, openai_server):
    openai_server.script("recorded")
    with LLMClient(fast_settings(openai_server.base_url)) as recording:
        recording.complete(QUESTION)
    with LLMClient(fast_settings(openai_server.base_url, replay=True)) as replaying:
        assert replaying.complete(QUESTION).text == "recorded"
        long_question = [{"role": "user", "content": "Write a function that " + "x" * 200}]
        with pytest.raises(LLMCacheMiss) as raised:
            replaying.complete(long_question, temperature=0.5, sample_index=2)
    message = str(raised.value)
    assert "'gpt-4o-mini'" in message and "1 messages" in message and "sample 2" in message
    assert "Write a function that " + "x" * 58 in message and "x" * 100 not in message
    assert len(openai_server.chat_requests) == 1


def test_a_given_store_is_used(tmp_path, openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    openai_server.script("kept")
    with Store(tmp_path / "mine.sqlite3") as store:
        with LLMClient(fast_settings(openai_server.base_url), store=store) as client:
            client.complete(QUESTION)
        assert store.cached_response_count() == 1


# -------------------------------------------------------------------------------------------------
# Configuration


def write_config(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_flags_beat_environment_beat_config_file(tmp_path):
    config = write_config(tmp_path / "llm.toml", """
[llm]
model = "file-model"
base_url = "http://file.example/v1"
timeout = 7
concurrency = 3
api_key_env = "FILE_KEY"

[llm.prices."file-model"]
input = 1.5
output = 3
""")
    from_file = resolve_llm_settings(config_file=config, environ={})
    assert (from_file.model, from_file.base_url, from_file.timeout, from_file.concurrency) == (
        "file-model", "http://file.example/v1", 7.0, 3
    )
    assert from_file.api_key_env == "FILE_KEY"
    assert from_file.prices == {"file-model": Price(1.5, 3.0)}
    environ = {"DIVERGENT_LLM_MODEL": "env-model", "OPENAI_BASE_URL": "http://env.example/v1",
               "DIVERGENT_LLM_REPLAY": "1"}
    from_env = resolve_llm_settings(config_file=config, environ=environ)
    assert (from_env.model, from_env.base_url, from_env.replay, from_env.timeout) == (
        "env-model", "http://env.example/v1", True, 7.0
    )
    from_flags = resolve_llm_settings(model="flag-model", base_url="http://flag.example/v1",
                                      api_key_env="FLAG_KEY", config_file=config, environ=environ)
    assert (from_flags.model, from_flags.base_url, from_flags.api_key_env) == (
        "flag-model", "http://flag.example/v1", "FLAG_KEY"
    )


def test_default_config_file_is_under_divergent_home(tmp_path):
    write_config(tmp_path / "home" / "config.toml", '[llm]\nmodel = "home-model"\n')
    settings = resolve_llm_settings(environ={"DIVERGENT_HOME": str(tmp_path / "home")})
    assert settings.model == "home-model"
    xdg = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    write_config(tmp_path / "xdg" / "divergent" / "config.toml", '[llm]\nmodel = "xdg-model"\n')
    assert resolve_llm_settings(environ=xdg).model == "xdg-model"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[llm]\nmodle = "x"\n', "unknown key 'modle'"),
        ('[llm]\nmodel = "x"\ntimeout = "fast"\n', "timeout must be a number"),
        ('[llm]\nmodel = "x"\nmax_retries = true\n', "max_retries must be a int"),
        ("[llm\nmodel = 1\n", "not valid TOML"),
        ('[llm]\nmodel = "x"\n[llm.prices.x]\ninput = 1\n', "exactly the keys input and output"),
        ('[llm]\nmodel = "x"\nconcurrency = 0\n', "concurrency=0 must be >= 1"),
        ('[llm]\nmodel = "x"\ntimeout = inf\n', "timeout=inf must be a number of seconds > 0"),
        ('[llm]\nmodel = "x"\nbase_url = "http://host:port/v1"\n', "is not a URL"),
        ('[llm]\nmodel = "x"\nbase_url = "https:///v1"\n', "names no host"),
        ('[llm]\nmodel = "x"\nbackoff_base = nan\n', "backoff_base=nan must be a number of seconds >= 0"),
        ('[llm]\nmodel = "x"\n[llm.prices.x]\ninput = inf\noutput = 1\n', "price input=inf must be"),
        ('llm = 3\n', "'llm' must be a table"),
    ],
)
def test_malformed_config_files_are_clear_errors(tmp_path, text, complaint):
    config = write_config(tmp_path / "bad.toml", text)
    with pytest.raises(InvalidArgument, match=complaint.replace("(", r"\(")):
        resolve_llm_settings(config_file=config, environ={})


def test_no_model_anywhere(tmp_path):
    environ = {"DIVERGENT_HOME": str(tmp_path)}
    with pytest.raises(InvalidArgument, match="no language model configured: pass --model"):
        resolve_llm_settings(environ=environ)
    assert resolve_llm_settings(environ=environ, require_model=False) is None
    with pytest.raises(InvalidArgument, match="not found"):
        resolve_llm_settings(model="m", config_file=tmp_path / "missing.toml", environ=environ)


def test_a_pasted_key_as_the_variable_name_is_not_echoed():
    with pytest.raises(InvalidArgument) as raised:
        LLMSettings(model="m", api_key_env="sk-proj-abcdef123456")
    assert "abcdef123456" not in str(raised.value)


def test_chat_model_from_options(llm_home, openai_server):
    assert chat_model_from_options(None, None, None, None, False) is None
    with pytest.raises(InvalidArgument, match="--base-url given but no model"):
        chat_model_from_options(None, openai_server.base_url, None, None, False)
    client = chat_model_from_options("scripted", openai_server.base_url, None, None, False)
    assert isinstance(client, LLMClient)
    assert client.settings.base_url == openai_server.base_url and client.model == "scripted"
    client.close()


# -------------------------------------------------------------------------------------------------
# The key never reaches sandboxed code


def test_sandboxed_code_cannot_see_the_api_key(llm_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    program = "import os, sys; sys.stdout.write(repr(dict(os.environ)))"
    process = isolation.spawn([sys.executable, "-c", program], limits=isolation.Limits(),
                              level=isolation.choose_level())
    try:
        seen, _ = process.popen.communicate(timeout=30)
    finally:
        process.kill()
    assert b"LANG" in seen  # the program ran and printed its environment
    assert KEY.encode() not in seen
    assert b"OPENAI_API_KEY" not in seen and b"MY_LLM_KEY" not in seen



# -------------------------------------------------------------------------------------------------
# Code extraction


ANSWER_WITH_SEVERAL_BLOCKS = '''Sure! First, a helper:

```python
def _is_vowel(c: str) -> bool:
    return c.lower() in "aeiou"
```

Now the function itself:

```py
def count_vowels(s: str) -> int:
    """Count the vowels."""
    return sum(_is_vowel(c) for c in s)
```

Example usage:

```python
print(count_vowels("banana"))  # 3
```

And a shell command, which is not Python:

```bash
python solution.py
```
'''


def test_extract_prefers_the_block_defining_the_function():
    code = extract_code(ANSWER_WITH_SEVERAL_BLOCKS, "count_vowels")
    assert code.startswith("def count_vowels(s: str) -> int:")
    assert "print(" not in code
    # without a name: the first block that parses
    assert extract_code(ANSWER_WITH_SEVERAL_BLOCKS).startswith("def _is_vowel")
    assert code_blocks(ANSWER_WITH_SEVERAL_BLOCKS)[2].startswith("print(")
    assert len(code_blocks(ANSWER_WITH_SEVERAL_BLOCKS)) == 3  # the bash block is not Python


def test_extract_untagged_fence_and_unclosed_fence():
    untagged = "Here you go:\n```\ndef f(x):\n    return x + 1\n```\nDone."
    assert extract_code(untagged, "f") == "def f(x):\n    return x + 1\n"
    cut_off = "```python\ndef f(x):\n    total = 0\n    for i in range(x):\n        total += i"
    assert extract_code(cut_off, "f").startswith("def f(x):")


def test_extract_bare_code_prose_and_broken_blocks():
    bare = "import math\n\ndef area(r):\n    return math.pi * r * r\n"
    assert extract_code(bare, "area") == bare
    assert extract_code("I cannot help with that request.") is None
    assert extract_code("Yes") is None  # one bare word parses as Python but is not code
    assert extract_code("") is None
    broken = "```python\ndef f(x)\n    return x\n```"
    assert extract_code(broken, "f") == "def f(x)\n    return x\n"  # returned as is: loading it fails later
    doctest = "```pycon\n>>> def g():\n...     return 1\n>>> g()\n1\n```"
    assert extract_code(doctest, "g") == "def g():\n    return 1\ng()\n"


def test_extract_function_source_keeps_decorators_and_drops_the_rest():
    answer = "```python\nimport functools\n\n@functools.cache\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\nprint(fib(10))\n```"
    assert extract_function_source(answer, "fib") == (
        "@functools.cache\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    )
    assert extract_function_source(answer, "missing") is None
    assert extract_function_source("def h():\n    pass\n", "h") == "def h():\n    pass\n"


def test_a_server_wanting_a_key_that_is_unset_says_to_set_it(llm_home, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with ScriptedOpenAI(api_key="needed") as server, LLMClient(fast_settings(server.base_url)) as client, \
            pytest.raises(LLMUnavailable, match="set the environment variable OPENAI_API_KEY \\(it is not set\\)"):
        client.complete(QUESTION)
