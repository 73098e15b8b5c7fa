"""Live sampling for incoherence: the coder prompt, LLMCandidates, and the command end to end.

The model is the scripted OpenAI-compatible server; the command runs as a subprocess pointed at it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from divergent.datasets import CandidateSource, Task
from divergent.datasets.sampling import LLMCandidates, coder_messages
from divergent.errors import LLMCacheMiss, LLMUnavailable
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from scripted_openai import Received, Reply, ScriptedOpenAI

ROOT = Path(__file__).resolve().parents[1]

TASKS = [
    {"task_id": "T/0", "entry_point": "double", "description": "Return twice the integer x.",
     "ground_truth": "def double(x: int) -> int:\n    return 2 * x\n",
     "tests": ["assert double(3) == 6", "assert double(-1) == -2"]},
    {"task_id": "T/1", "entry_point": "last", "description": "Return the last element of a non-empty list.",
     "ground_truth": "def last(xs: list[int]) -> int:\n    return xs[-1]\n",
     "tests": ["assert last([1, 2]) == 2"]},
]

# What the model says for each task, in the order the samples are asked for (the server cannot tell
# sample indices apart: they are the same request, so each task's answers are served in turn).
ANSWERS = {
    "double": [
        "Here is the function:\n\n```python\ndef double(x: int) -> int:\n    return x + x\n```\n",
        "```py\ndef double(x):\n    return x * 2\n```",
        "I'm sorry, I can't write code for that.",  # a non-answer: no code at all
    ],
    "last": [
        "```python\ndef last(xs):\n    return xs[-1]\n```\nThis returns the final item.",
        "```python\ndef last(xs)\n    return xs[len(xs) - 1]\n```",  # malformed: a syntax error
        "```python\ndef last(xs):\n    return xs[0]\n```",  # wrong
    ],
}


class ScriptedCoder:
    """Answers the coder prompt by the function it names, one scripted answer after another."""

    def __init__(self) -> None:
        self.served: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()

    def __call__(self, received: Received) -> Reply | str:
        name = next(n for n in ANSWERS if f"`{n}`" in received.last_user)
        with self.lock:
            index = self.served[name]
            self.served[name] += 1
        return ANSWERS[name][index % len(ANSWERS[name])]


def task(entry_point: str, description: str = "", signature_source: str = "") -> Task:
    return Task(task_id="X/1", description=description, entry_point=entry_point, signature_source=signature_source)


# -------------------------------------------------------------------------------------------------
# The coder prompt


def test_coder_prompt_shows_the_signature_and_the_description_once():
    humaneval_like = task(
        "add", "Add two numbers x and y.",
        'def add(x: int, y: int) -> int:\n    """Add two numbers x and y.\n    >>> add(2, 3)\n    5\n    """\n',
    )
    system, user = coder_messages(humaneval_like)
    assert system["role"] == "system" and "Python" in system["content"]
    assert user["role"] == "user"
    assert "`add`" in user["content"] and "def add(x: int, y: int) -> int:" in user["content"]
    assert user["content"].count("Add two numbers x and y.") == 1  # the docstring already holds it
    assert "```python" in user["content"] and "$" not in user["content"]
    mbpp_like = task("is_not_prime", "Write a python function to identify non-prime numbers.",
                     "import math\n\ndef is_not_prime(n):\n    ...\n")
    text = coder_messages(mbpp_like)[1]["content"]
    assert "Task:\nWrite a python function to identify non-prime numbers." in text
    assert "def is_not_prime(n):" in text
    bare = coder_messages(task("f", "Do the thing."))[1]["content"]
    assert "The function is named `f`." in bare


# -------------------------------------------------------------------------------------------------
# LLMCandidates


@pytest.fixture
def coder_server():
    with ScriptedOpenAI(ScriptedCoder()) as server:
        yield server


def settings(base_url: str, **overrides) -> LLMSettings:
    values = dict(model="coder-7b", base_url=base_url, max_retries=1, backoff_base=0.001, backoff_max=0.01)
    values.update(overrides)
    return LLMSettings(**values)


def test_candidates_are_sampled_extracted_and_cached(llm_home, coder_server):
    double = Task(task_id="T/0", description=TASKS[0]["description"], entry_point="double")
    with LLMClient(settings(coder_server.base_url)) as chat, LLMCandidates(chat, 0.6, parallel=3) as source:
        assert isinstance(source, CandidateSource)
        assert source.label == "coder-7b@0.6"
        first = source.candidates(double, 3)
        assert [c.index for c in first] == [0, 1, 2]
        assert all(c.model == "coder-7b" and c.temperature == 0.6 and c.task_id == "T/0" for c in first)
        sources = sorted(c.source for c in first)
        assert sources[0] == ""  # the non-answer: an unloadable candidate
        assert sources[1:] == ["def double(x):\n    return x * 2\n", "def double(x: int) -> int:\n    return x + x\n"]
        assert source.no_code == 1 and source.sampled == 3
        assert "has no code" in source.notes[0] and "T/0#" in source.notes[0]
        [received] = {json.dumps(r.body, sort_keys=True) for r in coder_server.chat_requests}
        assert json.loads(received)["temperature"] == 0.6
    # a rerun (a new client, same store) reads the very same samples from the cache
    with LLMClient(settings(coder_server.base_url)) as chat, LLMCandidates(chat, 0.6) as again:
        assert again.candidates(double, 3) == first
        assert chat.usage().cached_calls == 3 and chat.usage().calls == 0
    assert len(coder_server.chat_requests) == 3


def test_an_empty_answer_is_an_unloadable_candidate(llm_home):
    with ScriptedOpenAI(lambda received: Reply(text="")) as server, \
            LLMClient(settings(server.base_url)) as chat, LLMCandidates(chat, 0.2) as source:
        [candidate] = source.candidates(Task(task_id="E", description="", entry_point="f"), 1)
    assert candidate.source == ""
    assert "no answer" in source.notes[0] and "no text" in source.notes[0]


def test_an_unreachable_model_stops_the_sampling(llm_home, coder_server):
    with LLMClient(settings(coder_server.base_url, max_retries=0)) as chat, LLMCandidates(chat, 0.6) as source:
        coder_server.script(Reply(status=503), Reply(status=503))
        with pytest.raises(LLMUnavailable, match=coder_server.base_url):
            source.candidates(Task(task_id="T/0", description="", entry_point="double"), 2)


def test_replay_miss_stops_the_sampling(llm_home, coder_server):
    with LLMClient(settings(coder_server.base_url, replay=True)) as chat, LLMCandidates(chat, 0.6) as source, \
            pytest.raises(LLMCacheMiss):
        source.candidates(Task(task_id="T/0", description="", entry_point="double"), 2)
    assert coder_server.chat_requests == []


# -------------------------------------------------------------------------------------------------
# The command


def divergent(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(home),
           "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    for name in ("OPENAI_BASE_URL", "DIVERGENT_LLM_MODEL", "DIVERGENT_LLM_REPLAY"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "divergent", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_incoherence_samples_live_then_reruns_from_the_cache(tmp_path, coder_server):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    out = tmp_path / "results.json"
    command = ["incoherence", "--tasks", str(tasks), "--model", "coder-7b", "--base-url", coder_server.base_url,
               "--temperature", "0.6", "-m", "3", "-n", "30", "--timeout", "0.5", "--json", str(out)]
    result = divergent(*command, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert len(coder_server.chat_requests) == 6
    data = json.loads(out.read_text())
    (model,) = data["models"]
    assert (model["model"], model["temperature"]) == ("coder-7b", 0.6)
    by_task = {t["task_id"]: t for t in model["tasks"]}
    assert set(by_task) == {"T/0", "T/1"}
    # T/0: two right programs and a non-answer; T/1: one right, one unparseable, one wrong
    # the non-answer is wrong wherever the ground truth returns (inputs where it raises may agree);
    # the error is the paper's sampled estimator (one random sample per input): about 1/3 and 2/3
    assert 0.1 < by_task["T/0"]["error"] < 0.6
    assert by_task["T/0"]["incoherence"] > 0
    assert 0.3 < by_task["T/1"]["error"] < 0.95  # xs[0] is right on one-element lists
    assert "live sampling coder-7b@0.6: 6 samples, 6 model calls (0 from the cache" in " ".join(result.stdout.split())
    assert "1 sample(s) without code" in result.stdout  # the unparseable one has code: loading it fails later

    # the same command resumes the stored run: no model call, the same numbers
    again = divergent(*command, home=tmp_path / "home")
    assert again.returncode == 0, again.stderr
    assert json.loads(out.read_text())["models"] == data["models"]
    assert len(coder_server.chat_requests) == 6
    # a fresh store-less study of the same samples, offline: every sample comes from the cache
    offline = divergent(*command, "-n", "31", "--replay", home=tmp_path / "home")
    assert offline.returncode == 0, offline.stderr
    assert "6 model calls" not in offline.stdout and "(6 from the cache" in " ".join(offline.stdout.split())
    assert len(coder_server.chat_requests) == 6


def test_bad_combinations_and_an_unreachable_endpoint_are_clear_errors(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(TASKS[0]) + "\n")
    home = tmp_path / "home"
    both = divergent("incoherence", "--tasks", str(tasks), "--samples", str(tmp_path), "--model", "m", home=home)
    assert both.returncode == 2 and "--samples" in both.stderr and "--model" in both.stderr
    stray = divergent("incoherence", "--tasks", str(tasks), "--temperature", "0.6", home=home)
    assert stray.returncode == 2 and "--model" in stray.stderr
    picked = divergent("incoherence", "--tasks", str(tasks), "--model", "m", "--models", "a@0.1", home=home)
    assert picked.returncode == 2 and "--models" in picked.stderr
    config = tmp_path / "llm.toml"
    config.write_text("[llm]\nmax_retries = 0\n")
    dead = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
    unreachable = divergent("incoherence", "--tasks", str(tasks), "--model", "m", "--base-url", dead,
                            "--llm-config", str(config), "-m", "2", "-n", "5", home=home)
    assert unreachable.returncode == 2
    assert dead in unreachable.stderr and "cannot connect" in unreachable.stderr
    assert unreachable.stderr.count("\n") == 1  # one line, no traceback
