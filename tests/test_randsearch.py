"""The RandSearch engine (REFUTE, Sec. 5.2, Appx. A) through the real LLM client against the scripted
OpenAI-compatible server: the model's random generator runs in the sandbox, batch after batch.

The pair under test agrees everywhere but on one input, 4242, that the scripted generator reaches
(it draws from 4000..4500) and that the cheap engines are unlikely to guess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from divergent.engines.base import CallContext
from divergent.engines.calls.randsearch import (
    BRUTE_FORCE_ORIGIN,
    GENERATOR_FUNCTION,
    RandSearchEngine,
    brute_force_reference,
)
from divergent.engines.constants import Constants
from divergent.engines.settings import ModelAccess
from divergent.errors import EngineCannotProceed, LLMError
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from divergent.load import load_source
from divergent.sandbox.limits import Limits
from divergent.search import check
from scripted_openai import Received, Reply, ScriptedOpenAI

DOUBLE = "def f(x: int) -> int:\n    return 2 * x\n"
DOUBLE_BUT_ONE = "def f(x: int) -> int:\n    if x == 4242:\n        return 0\n    return x + x\n"

GENERATOR = f"""Values near 4242 look special in version 2.

```python
def {GENERATOR_FUNCTION}(rng):
    return {{"args": [rng.randint(4000, 4500)], "kwargs": {{}}}}
```
"""
LOOPING = f"```python\ndef {GENERATOR_FUNCTION}(rng):\n    while True:\n        pass\n```\n"
RAISING = f"```python\ndef {GENERATOR_FUNCTION}(rng):\n    raise ValueError('no idea')\n```\n"
CONSTANT = f"```python\ndef {GENERATOR_FUNCTION}(rng):\n    return {{'args': [7], 'kwargs': {{}}}}\n```\n"
PROSE = "I think the versions are equivalent; there is nothing to generate."
BRUTE_FORCE = "Straight from the definition.\n\n```python\ndef f(x: int) -> int:\n    return sum([x, x])\n```\n"


@pytest.fixture
def client(openai_server: ScriptedOpenAI, llm_home: Path):
    settings = LLMSettings(
        model="scripted", base_url=openai_server.base_url, max_retries=1, backoff_base=0.0, timeout=10.0
    )
    with LLMClient(settings, store=llm_home / "store.db") as llm:
        yield llm


def pair():
    return [load_source(DOUBLE, function="f", label="double"), load_source(DOUBLE_BUT_ONE, function="f", label="odd")]


def search(impls, client, **options):
    options.setdefault("engines", "randsearch")
    options.setdefault("budget", 20.0)
    options.setdefault("limits", Limits(timeout=0.25))
    return check(impls, llm=client, **options)


def randsearch_stop(report) -> str:
    return next(stats.stopped for stats in report.engines if stats.name == "randsearch")


def test_finds_the_difference_the_generator_reaches(client, openai_server):
    openai_server.script(GENERATOR)
    report = search(pair(), client, spec="Return twice x.")
    assert report.divergent
    assert report.counterexample.engine == "randsearch"
    assert report.counterexample.input.args == (4242,)
    assert len(openai_server.chat_requests) == 1  # one model call; the rest is sandboxed generation
    prompt = openai_server.chat_requests[0].prompt
    assert "Return twice x." in prompt and "x == 4242" in prompt and f"{GENERATOR_FUNCTION}(rng)" in prompt
    assert "brute-force" not in prompt


def test_a_looping_generator_is_repaired_with_what_went_wrong(client, openai_server):
    openai_server.script(LOOPING, GENERATOR)
    report = search(pair(), client)
    assert report.divergent and report.counterexample.input.args == (4242,)
    requests = openai_server.chat_requests
    assert len(requests) == 2
    assert "timeout" in requests[1].last_user
    assert "while True" in requests[1].prompt  # the conversation carries the failed answer


def test_a_generator_that_keeps_raising_stops_the_engine_with_a_note(client, openai_server):
    openai_server.script(RAISING, RAISING, RAISING)
    report = search(pair(), client, engines="seeds,randsearch", budget=10.0)
    assert not report.divergent
    stopped = randsearch_stop(report)
    assert stopped.startswith("failed") and "ValueError: no idea" in stopped and "3 tries" in stopped
    assert len(openai_server.chat_requests) == 3
    assert any("engine randsearch stopped" in note for note in report.notes)


def test_a_model_that_answers_without_code_stops_the_engine(client, openai_server):
    openai_server.script(PROSE, PROSE, PROSE)
    report = search(pair(), client, budget=10.0)
    assert not report.divergent
    stopped = randsearch_stop(report)
    assert stopped.startswith("failed") and "no Python code" in stopped
    assert "did not contain a Python code block" in openai_server.chat_requests[1].last_user


def test_a_generator_with_nothing_new_to_give_is_exhausted(client, openai_server):
    openai_server.script(CONSTANT)
    report = search(pair(), client, budget=10.0)
    assert not report.divergent
    stopped = randsearch_stop(report)
    assert stopped.startswith("exhausted") and "no new input" in stopped
    assert report.inputs == 1


def test_a_dead_endpoint_stops_only_this_engine(llm_home):
    settings = LLMSettings(model="scripted", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2.0)
    impls = [load_source(DOUBLE, function="f", label="double"),
             load_source("def f(x: int) -> int:\n    return x * 3\n", function="f", label="triple")]
    with LLMClient(settings, store=llm_home / "store.db") as dead:
        report = check(impls, llm=dead, engines="mutation,randsearch", budget=10.0)
    assert report.divergent and report.counterexample.engine == "mutation"


def test_the_same_seed_gives_the_same_inputs(client, openai_server):
    openai_server.responder = lambda received: Reply(text=GENERATOR)
    impls = pair()

    def first_inputs(seed: int) -> list:
        context = CallContext(
            implementations=tuple(impls), signature=impls[0].signature, seeds=(), constants=Constants(),
            seed=seed, limits=Limits(timeout=0.25), seconds=10.0, model=ModelAccess(chat=client),
        )
        engine = RandSearchEngine(context)
        try:
            found: list = []
            while len(found) < 50:
                found.extend(engine.propose(50 - len(found)))
            return [item.args for item in found]
        finally:
            engine.close()

    assert first_inputs(1) == first_inputs(1)
    assert first_inputs(1) != first_inputs(2)


def test_without_a_model_the_engine_cannot_start():
    impls = pair()
    context = CallContext(
        implementations=tuple(impls), signature=impls[0].signature, seeds=(), constants=Constants(),
    )
    with pytest.raises(EngineCannotProceed, match="needs a language model"):
        RandSearchEngine(context)


# -- the brute-force reference ------------------------------------------------------------------


def test_a_brute_force_reference_checks_a_single_implementation(client, openai_server):
    def answer(received: Received) -> Reply:
        return Reply(text=BRUTE_FORCE if "Write a brute-force reference" in received.prompt else GENERATOR)

    openai_server.responder = answer
    suspect = load_source(DOUBLE_BUT_ONE, function="f", label="odd")
    reference = brute_force_reference([suspect], client, spec="Return twice x.")
    assert reference.origin.startswith(BRUTE_FORCE_ORIGIN) and "LLM-written" in reference.label
    report = search([suspect, reference], client)
    assert report.divergent and report.counterexample.input.args == (4242,)
    generator_prompt = openai_server.chat_requests[-1].prompt
    assert "brute-force reference" in generator_prompt and "keep the inputs small" in generator_prompt


def test_a_brute_force_with_another_signature_is_asked_again_then_refused(client, openai_server):
    wrong = "```python\ndef f(x: int, y: int) -> int:\n    return x + y\n```\n"
    openai_server.script(wrong, PROSE, wrong)
    with pytest.raises(LLMError, match="no usable brute-force reference"):
        brute_force_reference([load_source(DOUBLE, function="f", label="double")], client)
    requests = openai_server.chat_requests
    assert len(requests) == 3 and "positional parameter" in requests[1].last_user


# -- the command line --------------------------------------------------------------------------


def check_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "divergent", "check", *args], capture_output=True, text=True, timeout=180,
        env=os.environ.copy(),
    )


def test_cli_checks_one_implementation_against_a_brute_force_reference(openai_server, llm_home, tmp_path):
    def answer(received: Received) -> Reply:
        return Reply(text=BRUTE_FORCE if "Write a brute-force reference" in received.prompt else GENERATOR)

    openai_server.responder = answer
    suspect = tmp_path / "odd.py"
    suspect.write_text(DOUBLE_BUT_ONE)
    result = check_cli(str(suspect), "--function", "f", "--model", "scripted", "--base-url", openai_server.base_url,
                       "--engines", "randsearch", "--brute-force", "--timeout", "0.25", "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["engine"] == "randsearch" and data["counterexample"]["call"] == "f(4242)"
    assert data["implementations"][1].startswith("brute-force[LLM-written by scripted]")


def test_cli_brute_force_without_a_model_is_exit_2(llm_home, tmp_path):
    suspect = tmp_path / "odd.py"
    suspect.write_text(DOUBLE_BUT_ONE)
    result = check_cli(str(suspect), "--function", "f", "--brute-force", "--engines", "seeds")
    assert result.returncode == 2
    assert "--brute-force needs a model" in result.stderr and len(result.stderr.strip().splitlines()) == 1
