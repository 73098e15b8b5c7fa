"""ProbeGen: the sandboxed generator runner, the tree search, and the LLM engine in ``check``.

Model answers come from the scripted OpenAI-compatible server (tests/scripted_openai.py) through
the real client, so the whole path runs: SDK, HTTP, cache, extraction, sandbox, workers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from divergent.errors import InvalidArgument, LLMError
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from divergent.load import load_implementation
from divergent.probegen.session import ProbeGenSession
from divergent.probegen.strategies import TreeStrategy, branching, max_calls
from divergent.probegen.tree import tree_from_json
from divergent.records import Input
from divergent.sandbox.generators import run_generator
from divergent.store import Store
from scripted_openai import Received, Reply, ScriptedOpenAI

ROOT = Path(__file__).resolve().parents[1]

CASEFOLD = "def same_word(first: str, second: str) -> bool:\n    return first.casefold() == second.casefold()\n"
LOWER = "def same_word(first: str, second: str) -> bool:\n    return first.lower() == second.lower()\n"


def answer(code: str, prose: str = "Here is a generator.") -> str:
    return f"{prose}\n\n```python\n{code.strip()}\n```\n"


PLAIN = answer(
    "def create_fn_inputs():\n"
    "    yield {'args': ['abc', 'ABC'], 'kwargs': {}}\n"
    "    yield {'args': ['hello', 'world'], 'kwargs': {}}\n",
    "Both compare case-insensitively; plain words first.",
)
TARGETED = answer(
    "def create_fn_inputs():\n"
    "    yield {'args': ['Stra\u00dfe', 'STRASSE'], 'kwargs': {}}\n",
    "The feedback shows ASCII agrees. casefold() maps the sharp s to 'ss', lower() does not.",
)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(CASEFOLD)
    b.write_text(LOWER)
    return a, b


@pytest.fixture
def implementations(pair: tuple[Path, Path]) -> list:
    return [load_implementation(str(path), function="same_word") for path in pair]


@pytest.fixture
def signature(implementations: list):
    return implementations[0].signature


def client(server: ScriptedOpenAI, *, cache: bool = False, store: Path | None = None) -> LLMClient:
    settings = LLMSettings(model="scripted", base_url=server.base_url, cache=cache, max_retries=0, backoff_base=0.0)
    return LLMClient(settings, store=store)


# ---------------------------------------------------------------------------------------------
# The generator runner


def generate(source: str, signature, **options):
    options.setdefault("max_inputs", 5)
    options.setdefault("seconds", 2.0)
    return run_generator(source, signature=signature, **options)


def test_a_generator_yields_calls_in_every_accepted_shape(signature) -> None:
    result = generate(
        "def create_fn_inputs():\n"
        "    yield {'args': ['a', 'b'], 'kwargs': {}}\n"
        "    yield {'args': ['c'], 'kwargs': {'second': 'd'}}\n"  # keyword moved to its position
        "    yield ('e', 'f')\n"
        "    yield ['g', 'h']\n"
        "    yield {'args': ['a', 'b']}\n",  # a duplicate
        signature,
    )
    assert result.ok and result.error is None
    assert [i.args for i in result.inputs] == [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h")]
    assert all(not i.kwargs and i.how_generated == "llm" for i in result.inputs)
    assert result.yielded == 5 and result.duplicates == 1


def test_a_function_returning_a_list_is_accepted(signature) -> None:
    result = generate("def create_fn_inputs():\n    return [('x', 'y'), {'args': ['p', 'q']}]\n", signature)
    assert result.ok and [i.args for i in result.inputs] == [("x", "y"), ("p", "q")]


def test_an_infinite_generator_gives_its_first_n_inputs(signature) -> None:
    result = generate(
        "import itertools\ndef create_fn_inputs():\n"
        "    for n in itertools.count():\n        yield (str(n), 'x')\n",
        signature, max_inputs=7,
    )
    assert result.ok and result.reached_limit
    assert [i.args[0] for i in result.inputs] == [str(n) for n in range(7)]


def test_a_lone_value_is_the_argument_of_a_one_parameter_function(tmp_path: Path) -> None:
    path = tmp_path / "one.py"
    path.write_text("def total(xs: list[int]) -> int:\n    return sum(xs)\n")
    signature = load_implementation(str(path), function="total").signature
    result = generate("def create_fn_inputs():\n    yield [1, 2, 3]\n    yield [[4]]\n", signature)
    assert [i.args for i in result.inputs] == [([1, 2, 3],), ([4],)]


@pytest.mark.parametrize(
    ("source", "kind", "words", "kept"),
    [
        ("def create_fn_inputs():\n    yield ('a', 'b')\n    while True:\n        pass\n",
         "timeout", "took longer than", 1),
        ("def create_fn_inputs():\n    while True:\n        try:\n            while True: pass\n"
         "        except BaseException:\n            pass\n", "timeout", "took longer than", 0),
        ("def create_fn_inputs():\n    yield ('a', 'b')\n    raise ValueError('no more ideas')\n",
         "raised", "raised ValueError: no more ideas", 1),
        ("def create_fn_inputs():\n    yield ('a', 'b')\n    yield 42\n",
         "wrong_shape", "wrong shape at item 2", 1),
        ("def create_fn_inputs():\n    yield {'args': 'ab'}\n", "wrong_shape", "wrong shape at item 1", 0),
        ("import os\ndef create_fn_inputs():\n    yield ('a', 'b')\n    os._exit(3)\n",
         "crash", "exit code 3", 1),
        ("import sys\ndef create_fn_inputs():\n    sys.exit(2)\n    yield ('a', 'b')\n", "exit", "exit(2)", 0),
        ("def create_fn_inputs(:\n    yield 1\n", "syntax", "syntax error line 1", 0),
        ("def make_inputs():\n    yield ('a', 'b')\n", "missing", "no function create_fn_inputs", 0),
        ("def create_fn_inputs():\n    return 7\n", "not_iterable", "returned int", 0),
        ("def create_fn_inputs():\n    hog = bytearray(1 << 40)\n    yield ('a', 'b')\n",
         "raised", "MemoryError", 0),
    ],
    ids=["loop", "loop-swallowing-the-alarm", "raise", "wrong-shape", "wrong-args-type", "exit", "sys-exit",
         "syntax", "missing", "not-iterable", "memory"],
)
def test_misbehaving_generators_give_a_verdict_and_keep_what_came_before(
    source: str, kind: str, words: str, kept: int, signature
) -> None:
    result = generate(source, signature, seconds=1.0)
    assert result.error_kind == kind, result
    assert words in (result.error or "")
    assert len(result.inputs) == kept


def test_a_generator_that_forks_still_speaks_with_one_voice(signature) -> None:
    result = generate(
        "import os\ndef create_fn_inputs():\n    os.fork()\n    yield ('a', 'b')\n    yield ('c', 'd')\n",
        signature,
    )
    assert result.ok and [i.args for i in result.inputs] == [("a", "b"), ("c", "d")]
    assert result.yielded == 2


def test_values_that_are_not_builtins_are_dropped_not_unpickled(signature) -> None:
    result = generate(
        "class Sneaky:\n    def __reduce__(self):\n        return (print, ('pwned',))\n"
        "def create_fn_inputs():\n    yield (Sneaky(), 'x')\n    yield ('a', 'b')\n",
        signature,
    )
    assert result.ok and [i.args for i in result.inputs] == [("a", "b")]
    assert result.dropped == 1 and "not a builtin value" in result.drop_reasons[0]


def test_generator_code_does_not_see_the_api_key(signature, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-0123456789")
    result = generate(
        "import os\ndef create_fn_inputs():\n    yield (os.environ.get('OPENAI_API_KEY', 'absent'), 'x')\n",
        signature,
    )
    assert result.inputs[0].args[0] == "absent"


def test_bad_runner_arguments_are_errors(signature) -> None:
    with pytest.raises(InvalidArgument):
        run_generator("", signature=signature, max_inputs=0)
    with pytest.raises(InvalidArgument):
        run_generator("", signature=signature, function="not a name")


# ---------------------------------------------------------------------------------------------
# Strategies and the tree search


@pytest.mark.parametrize(
    ("strategy", "k", "d", "calls"),
    [
        (TreeStrategy.FULL, 3, 2, 3 + 9),
        (TreeStrategy.DECREASING, 3, 4, 3 + 6 + 6 + 6),
        (TreeStrategy.TOP, 3, 4, 3 * 4),
        (TreeStrategy.INCREASING, 2, 3, 2 + 6 + 24),
        (TreeStrategy.HALVING, 4, 3, 4 + 8 + 8),
        (TreeStrategy.DOUBLING, 1, 3, 1 + 2 + 8),
        (TreeStrategy.FULL, 5, 5, (5**6 - 1) // 4 - 1),  # the paper's (K^(D+1) - 1)/(K - 1) - 1
    ],
)
def test_max_calls_of_each_strategy(strategy: TreeStrategy, k: int, d: int, calls: int) -> None:
    assert max_calls(strategy, k, d) == calls


def test_branching_rejects_bad_parameters() -> None:
    assert [branching("decreasing", 3, depth) for depth in range(5)] == [3, 2, 1, 1, 1]
    with pytest.raises(InvalidArgument):
        branching("sideways", 3, 0)
    with pytest.raises(InvalidArgument):
        max_calls("full", 0, 2)


@pytest.mark.parametrize(("strategy", "k", "d"), [("decreasing", 3, 4), ("top", 2, 3), ("halving", 4, 2)])
def test_a_search_that_never_succeeds_makes_exactly_the_strategys_calls(
    strategy: str, k: int, d: int, implementations, llm_home
) -> None:
    # Answers without code: no generator runs, so the count is the tree's shape alone.
    with ScriptedOpenAI(lambda received: "I would rather not write code.") as server:
        with ProbeGenSession(implementations, chat=client(server), store=False) as session:
            result = session.search(strategy=strategy, k=k, d=d)
        assert result.reason == "exhausted" and result.found is None
        assert result.calls == max_calls(strategy, k, d) == len(server.chat_requests)
        nodes = list(session.root.walk())[1:]
        assert len(nodes) == result.calls
        assert all(node.error == "the answer contains no code" for node in nodes)
        # Each child is told what went wrong with its parent.
        deep = [r for r in server.chat_requests if len(r.messages) > 2]
        assert deep and all("did not contain a Python code block" in r.last_user for r in deep)


def test_a_full_tree_samples_k_children_per_node_with_stable_sample_indices(implementations, llm_home) -> None:
    with ScriptedOpenAI(lambda received: PLAIN) as server:
        with ProbeGenSession(implementations, chat=client(server), store=False) as session:
            root = session.sample_tree(strategy="full", k=3, d=2)
        nodes = list(root.walk())[1:]
        assert [node.path for node in nodes] == [
            "0", "0.0", "0.1", "0.2", "1", "1.0", "1.1", "1.2", "2", "2.0", "2.1", "2.2",
        ]
        assert all(not node.differentiating and len(node.probes) == 2 for node in nodes)
        assert sorted(node.depth for node in nodes) == [1] * 3 + [2] * 9
        assert len(server.chat_requests) == 12
        # siblings are samples 0, 1, 2 of the same prompt
        assert sorted(r.body.get("temperature") for r in server.chat_requests) == [0.8] * 12
        data = session.tree(pair="casefold", k=3, d=2).to_json()
    assert data["format"] == "divergent.probegen-tree" and data["K"] == 3
    again = tree_from_json(json.loads(json.dumps(data)))  # plain JSON, read back into the same model
    assert [n.path for n in again.root.walk()][1:] == [n.path for n in nodes]
    assert [n.probes for n in again.nodes()] == [n.probes for n in nodes]
    assert again.pair == "casefold" and again.k == 3 and again.metadata["function"] == "same_word"


def feedback_responder(received: Received) -> str:
    """Appx. D: plausible inputs first; after feedback showing they agree, a targeted guess."""
    return TARGETED if "Try again to generate different inputs" in received.last_user else PLAIN


def test_the_second_turn_sees_the_first_turns_feedback_and_succeeds(implementations, llm_home) -> None:
    store_path = llm_home / "divergent.sqlite3"
    with ScriptedOpenAI(feedback_responder) as server:
        chat = client(server, cache=True, store=store_path)
        with Store(store_path) as store, ProbeGenSession(implementations, chat=chat, store=store) as session:
            result = session.search(strategy="decreasing", k=1, d=3)
            assert result.reason == "found" and result.found is not None
            assert result.found.path == "0.0" and result.calls == 2
            second = server.chat_requests[1]
            roles = [m["role"] for m in second.messages]
            assert roles == ["system", "user", "assistant", "user"]
            assert "All inputs generated from `create_fn_inputs()` yielded the same behavior" in second.last_user
            assert "For input `same_word('abc', 'ABC')` the outputs were equal: True" in second.last_user
            assert "def same_word" in second.messages[1]["content"]  # white box: the sources
            assert "Differentiating inputs found!" in result.found.feedback
            assert "the outputs were different: True vs. False" in result.found.feedback
            run_id = session.run_id
            units = {unit.key: unit.result for unit in store.units(run_id)}
            assert store.get_run(run_id).kind == "probegen"
        assert {"root", "0", "0.0", "result"} <= set(units)
        assert units["0.0"]["differentiating"] and units["0.0"]["generator"]["inputs"] == 1
        assert units["0"]["usage"]["calls"] == 1
        # A rerun is answered from the response cache: no request reaches the server.
        before = len(server.chat_requests)
        with ProbeGenSession(implementations, chat=chat, store=False) as rerun:
            again = rerun.search(strategy="decreasing", k=1, d=3)
        assert again.found is not None and again.found.path == "0.0"
        assert len(server.chat_requests) == before
        assert again.usage.cached_calls == 2 and again.usage.calls == 0


def test_a_vetoed_difference_is_fed_back_and_the_branch_goes_on(implementations, llm_home) -> None:
    with ScriptedOpenAI(lambda received: TARGETED) as server:
        with ProbeGenSession(implementations, chat=client(server), store=False, accept=lambda o: False) as session:
            result = session.search(strategy="top", k=1, d=2)
        assert result.reason == "exhausted" and result.calls == 2
        first = session.root.children[0]
        assert first.differentiating and not first.success
        assert "judged irrelevant" in server.chat_requests[1].last_user


def test_broken_generators_and_rejected_inputs_are_explained_to_the_model(implementations, llm_home) -> None:
    replies = [
        answer("def create_fn_inputs(:\n    yield 1\n"),
        answer("def create_fn_inputs():\n    while True:\n        pass\n"),
        answer("def create_fn_inputs():\n    yield (1, 2)\n    yield ('a', 'a')\n"),
        PLAIN,
    ]
    with ScriptedOpenAI() as server:
        server.script(*replies)
        session = ProbeGenSession(implementations, chat=client(server), store=False, generator_seconds=1.0,
                                  parallel=1)
        with session:
            result = session.search(strategy="top", k=1, d=4)
        assert result.calls == 4
        prompts = [r.last_user for r in server.chat_requests[1:]]
        assert "failed: syntax error line 1" in prompts[0]
        assert "failed: timeout" in prompts[1]
        assert "was discarded" in prompts[2] and "same_word(1, 2)" in prompts[2]
        assert "the outputs were equal: True" in prompts[2]  # ('a', 'a') ran


def test_a_failing_endpoint_ends_the_search_with_the_reason(implementations, llm_home) -> None:
    with ScriptedOpenAI() as server:
        server.script(Reply(status=500, text="overloaded"))
        with ProbeGenSession(implementations, chat=client(server), store=False, parallel=1) as session:
            result = session.search(strategy="top", k=1, d=3)
    assert result.reason.startswith("failed:") and result.calls == 0


def test_expand_grows_one_node_at_a_time(implementations, llm_home) -> None:
    with ScriptedOpenAI(lambda received: PLAIN) as server:
        with ProbeGenSession(implementations, chat=client(server), store=False) as session:
            first = session.expand(None, 1)
            more = session.expand(None, 2)
            below = session.expand(first[0], 1)
        assert [n.path for n in first + more + below] == ["0", "1", "2", "0.0"]
        assert below[0].parent is first[0] and below[0].depth == 2


# ---------------------------------------------------------------------------------------------
# The engine in `divergent check`


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "divergent", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


@pytest.fixture
def fast_config(tmp_path: Path) -> Path:
    """No retries: a dead endpoint fails at once."""
    path = tmp_path / "llm.toml"
    path.write_text("[llm]\nmax_retries = 0\nbackoff_base = 0.0\ntimeout = 5.0\n")
    return path


def test_check_with_the_llm_engine_alone_finds_the_difference_after_feedback(
    pair: tuple[Path, Path], tmp_path: Path, llm_home, fast_config: Path
) -> None:
    (tmp_path / "task.md").write_text("Compare two words ignoring case, for any language.\n")

    def responder(received: Received) -> str:
        if "DIFFERENCES" in received.prompt:  # the spurious-counterexample filter
            return "Unicode case folding is part of the task.\nRATIONALE: real difference\nDIFFERENCES: IMPORTANT"
        return feedback_responder(received)

    with ScriptedOpenAI(responder) as server:
        result = cli("check", "a.py", "b.py", "--function", "same_word", "--engines", "llm", "--model", "scripted",
                     "--base-url", server.base_url, "--llm-config", str(fast_config), "--spec", "task.md",
                     "--budget", "30", "--json", cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        data = json.loads(result.stdout)
        assert data["engine"] == "llm"
        assert [e["name"] for e in data["engines"]] == ["llm"]
        assert data["counterexample"]["filter"]["differences"] == "IMPORTANT"
        assert data["llm"]["model"] == "scripted" and data["llm"]["calls"] >= 3  # two probes, one judgement
        assert data["llm"]["prompt_tokens"] > 0
        probes = [r for r in server.chat_requests if "DIFFERENCES" not in r.prompt]
        assert "Compare two words ignoring case, for any language." in probes[0].messages[1]["content"]
        assert len(probes) >= 4  # the first turn's three samples, then one after feedback
        assert all(len(r.messages) == 2 for r in probes[:3])
        assert "the outputs were equal" in probes[3].last_user
    with Store(llm_home / "divergent.sqlite3") as store:
        runs = store.list_runs("probegen")
        assert runs and runs[0].parameters["engine"] == "llm"
        assert "0" in store.done_keys(runs[0].id)


def test_a_model_that_never_writes_code_stops_only_its_engine(
    pair: tuple[Path, Path], tmp_path: Path, llm_home, fast_config: Path
) -> None:
    with ScriptedOpenAI(lambda received: "Sorry, I cannot help with that.") as server:
        result = cli("check", "a.py", "b.py", "--function", "same_word", "--engines", "llm", "--model", "scripted",
                     "--base-url", server.base_url, "--llm-config", str(fast_config), "--no-filter",
                     "--budget", "20", "--json", cwd=tmp_path)
        assert len(server.chat_requests) == 3  # the first level only
    # no input at all: too few inputs to tell, and the headline says why (the model's engine)
    assert result.returncode == 4, result.stderr
    data = json.loads(result.stdout)
    assert data["exit_reason"] == "exhausted" and "answered without code" in data["reason"]
    assert "answered without code" in data["engines"][0]["stopped"]
    assert any("engine llm stopped" in note for note in data["notes"])


def test_a_dead_endpoint_leaves_the_other_engines_to_find_the_difference(
    pair: tuple[Path, Path], tmp_path: Path, llm_home, fast_config: Path
) -> None:
    result = cli("check", "a.py", "b.py", "--function", "same_word", "--model", "scripted",
                 "--base-url", "http://127.0.0.1:9/v1", "--llm-config", str(fast_config), "--no-filter",
                 "--budget", "20", "--json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["engine"] != "llm"
    assert "llm" in [e["name"] for e in data["engines"]]
    # the llm engine works on its own thread, and the others may find the difference before its
    # first call has failed (test_a_dead_endpoint_stops_the_llm_engine_with_a_clear_note): when it
    # has, the report says so; either way it says what the endpoint was sent
    stopped = [n for n in data["notes"] if n.startswith("engine llm stopped")]
    if stopped:
        assert "failed" in stopped[0] and "127.0.0.1:9" in stopped[0]
    assert any("sent to http://127.0.0.1:9/v1" in n for n in data["notes"]), data["notes"]


def test_the_model_note_says_nothing_was_sent_when_the_model_was_never_asked(llm_home) -> None:
    from divergent.cli.search_options import model_data_note

    settings = LLMSettings(model="scripted", base_url="http://127.0.0.1:9/v1", max_retries=0)
    with LLMClient(settings) as never_asked:
        assert model_data_note(never_asked).endswith("nothing was sent to http://127.0.0.1:9/v1")
        with pytest.raises(LLMError):
            never_asked.complete([{"role": "user", "content": "hello"}])
        # asked, never answered: nothing says it was sent (a refused connection sent nothing)
        assert "were sent to" not in model_data_note(never_asked)
        assert never_asked.requests_out == 0
        assert "nothing was sent to http://127.0.0.1:9/v1" in model_data_note(never_asked)


def test_a_dead_endpoint_stops_the_llm_engine_with_a_clear_note(
    pair: tuple[Path, Path], tmp_path: Path, llm_home, fast_config: Path
) -> None:
    result = cli("check", "a.py", "b.py", "--function", "same_word", "--engines", "llm", "--model", "scripted",
                 "--base-url", "http://127.0.0.1:9/v1", "--llm-config", str(fast_config), "--no-filter",
                 "--budget", "20", "--json", cwd=tmp_path)
    # the model's engine alone judged nothing: too few inputs to tell, because of the endpoint
    assert result.returncode == 4, result.stderr
    data = json.loads(result.stdout)
    assert data["reason"] == "the model endpoint refused the connection"
    note = next(n for n in data["notes"] if n.startswith("engine llm stopped"))
    assert "failed" in note and "127.0.0.1:9" in note
    assert "with --model, nothing was sent to http://127.0.0.1:9/v1: the model endpoint refused the connection" \
        in data["notes"]


def test_without_a_model_the_default_engines_stay_offline(pair: tuple[Path, Path], tmp_path: Path, llm_home) -> None:
    result = cli("check", "a.py", "b.py", "--function", "same_word", "--budget", "10", "--json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert "llm" not in [e["name"] for e in data["engines"]]
    assert data["llm"] is None and not any("llm" in note for note in data["notes"])


def test_the_llm_engine_without_a_model_is_an_input_error(implementations) -> None:
    from divergent.search import check

    with pytest.raises(InvalidArgument, match="no language model configured"):
        check(implementations, engines="llm", budget=5.0)


def test_bad_probegen_options_are_input_errors(pair: tuple[Path, Path], tmp_path: Path, llm_home) -> None:
    from divergent.cli.llm_options import ModelGroup
    from divergent.kinds.options import SearchOptions

    result = cli("check", "a.py", "b.py", "--function", "same_word", "--model", "m", "--probegen-strategy",
                 "sideways", cwd=tmp_path)
    assert result.returncode == 2 and "strategy 'sideways'" in result.stderr
    group = ModelGroup(model="m", spec=tmp_path / "nope.md", probegen_strategy="top", k=2, d=2)
    with pytest.raises(InvalidArgument, match="--spec"):
        group.apply(SearchOptions(), None)


def test_the_engine_takes_part_through_the_python_api(implementations, llm_home) -> None:
    from divergent.search import check

    with ScriptedOpenAI(feedback_responder) as server:
        chat = client(server)
        report = check(implementations, engines="llm", llm=chat, budget=30.0,
                       probegen={"strategy": "top", "k": 1, "d": 3})
    assert report.divergent and report.counterexample is not None
    assert report.counterexample.engine == "llm"
    assert isinstance(report.counterexample.original, Input)
    assert report.llm is not None and report.llm["calls"] == 2
