"""The language-model engines on whole programs, through the real client against the scripted
OpenAI-compatible server: the model's code yields input texts; the validator's verdict and message
are its feedback.

The two scripts agree except on 4242, which the model's generators reach and the cheap engines do
not (they are not started here).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from divergent.engines.calls.randsearch import GENERATOR_FUNCTION
from divergent.engines.text.llm import TEXT_GENERATOR_FUNCTION
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from divergent.records import Budget, TextInput, Verdict
from divergent.search import check
from scripted_openai import Received, ScriptedOpenAI

DOUBLE = "n = int(input())\nprint(2 * n)\n"
DOUBLE_BUT_ONE = "n = int(input())\nprint(0 if n == 4242 else n + n)\n"
# Inputs are one number from 1 to 10000 (and a newline).
VALIDATOR = """\
import sys
text = sys.stdin.read()
assert text.endswith("\\n") and text.strip().isdigit(), "expected one number and a newline"
n = int(text)
if not 1 <= n <= 10000:
    sys.exit(f"n = {n} out of range [1, 10000]")
"""

RANDOM_INPUT = f"""Values near 4242 look special in program 2.

```python
def {GENERATOR_FUNCTION}(rng):
    return f"{{rng.randint(4232, 4252)}}\\n"
```
"""
RANDOM_TOO_BIG = f"```python\ndef {GENERATOR_FUNCTION}(rng):\n    return f\"{{rng.randint(50000, 60000)}}\\n\"\n```\n"
PROBES = f"""Try the numbers around the special case.

```python
def {TEXT_GENERATOR_FUNCTION}():
    for n in (1, 2, 4241, 4242, 4243):
        yield f"{{n}}\\n"
```
"""
INVALID_PROBES = f"""```python
def {TEXT_GENERATOR_FUNCTION}():
    yield "0\\n"
    yield "-5\\n"
```
"""


@pytest.fixture
def client(openai_server: ScriptedOpenAI, llm_home: Path):
    settings = LLMSettings(model="scripted", base_url=openai_server.base_url, max_retries=1, backoff_base=0.0,
                           timeout=10.0)
    with LLMClient(settings, store=llm_home / "store.db") as llm:
        yield llm


@pytest.fixture
def scripts(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("double.py", DOUBLE), ("odd.py", DOUBLE_BUT_ONE), ("valid.py", VALIDATOR)):
        (tmp_path / name).write_text(textwrap.dedent(text))
        paths[name] = str(tmp_path / name)
    return paths


def search(scripts: dict[str, str], client: LLMClient, build_cache: str, **options):
    options.setdefault("budget", Budget(seconds=30.0))
    return check([scripts["double.py"], scripts["odd.py"]], stdin=True, llm=client, build_cache=build_cache,
                 validator=scripts["valid.py"], time_limit=2.0, **options)


def test_randsearch_writes_a_generator_of_input_texts(scripts, client, openai_server, build_cache):
    openai_server.script(RANDOM_INPUT)
    report = search(scripts, client, build_cache, engines="randsearch", spec="Print twice n.")
    assert report.verdict is Verdict.DIVERGENT
    assert report.counterexample.engine == "randsearch"
    assert report.counterexample.input == TextInput("4242\n", how_generated="randsearch")
    prompt = openai_server.chat_requests[0].prompt
    assert "Print twice n." in prompt and "n == 4242" in prompt and "```python" in prompt
    assert "standard input" in prompt and '"args"' not in prompt


def test_randsearch_is_told_when_the_validator_rejects_its_inputs(scripts, client, openai_server, build_cache):
    openai_server.script(RANDOM_TOO_BIG, RANDOM_INPUT)
    report = search(scripts, client, build_cache, engines="randsearch")
    assert report.verdict is Verdict.DIVERGENT
    repair = openai_server.chat_requests[1].last_user
    assert "validator rejected all" in repair and "out of range [1, 10000]" in repair


def test_probegen_yields_input_texts_and_learns_from_the_validator(scripts, client, build_cache):
    def responder(received: Received) -> str:
        # The first turn writes inputs the validator rejects; its feedback says why.
        return PROBES if "validator rejected" in received.last_user else INVALID_PROBES

    with ScriptedOpenAI(responder) as server:
        settings = LLMSettings(model="scripted", base_url=server.base_url, max_retries=1, backoff_base=0.0,
                               timeout=10.0)
        with LLMClient(settings, store=None) as llm:
            report = search(scripts, llm, build_cache, engines="llm")
        assert report.verdict is Verdict.DIVERGENT, report.notes
        assert report.counterexample.engine == "llm"
        assert report.counterexample.input.text == "4242\n"
        first, later = server.chat_requests[0], server.chat_requests[-1]
        assert f"{TEXT_GENERATOR_FUNCTION}()" in first.prompt and "standard input" in first.prompt
        assert "out of range [1, 10000]" in later.last_user


def test_engines_for_python_values_do_not_start_for_programs(scripts, build_cache):
    report = check([scripts["double.py"], scripts["odd.py"]], stdin=True, build_cache=build_cache,
                   examples=[TextInput("5\n")], budget=Budget(seconds=20, executions=60))
    names = [stats.name for stats in report.engines]
    assert "hypothesis" not in names and "symbolic" not in names
    from divergent.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"hypothesis makes no inputs for whole programs"):
        check([scripts["double.py"], scripts["odd.py"]], stdin=True, build_cache=build_cache,
              engines="hypothesis", budget=2.0)
