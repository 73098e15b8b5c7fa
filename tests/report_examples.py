"""One report of each kind, made from real runs where a run is cheap (check, cluster, incoherence)
and from data made here otherwise (a ProbeGen tree, a benchmark's judgements); and headless
Chromium to open them with, watching for any network request.

Used by tests/test_report_html.py, and to remake the screenshots in docs/::

    .venv/bin/python tests/report_examples.py docs/
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAST = {"engines": "seeds,mutation"}


@dataclass(frozen=True)
class Example:
    """A rendered report and what its page must show."""

    kind: str
    html: str
    #: text the verdict banner must hold
    verdict: str
    #: text the counterexample (or the witnesses of a study) must hold
    counterexample: str
    #: the id of the page's section holding it
    section: str = "counterexample-section"
    #: the page's kind when it is not the builder's name (a benchmark's page is a "bench" page)
    page_kind: str = ""


def check_example(directory: Path) -> Example:
    from dataclasses import replace

    import divergent
    from divergent.kinds.reports import report_html
    from divergent.report.reproduce import call_reproduction
    from divergent.search import load_programs

    # labelled as `divergent check examples/old.py examples/new.py` in the repository shows them
    implementations = [
        replace(p, label=f"examples/{Path(p.path).name}")
        for p in load_programs([str(ROOT / "examples/old.py"), str(ROOT / "examples/new.py")],
                                         function="normalize")
    ]
    report = divergent.check(implementations, budget=10, **FAST)
    assert report.counterexample is not None
    test = call_reproduction(report.counterexample, implementations, test_dir=directory)
    return Example("check", report_html(report, test=test), "Implementations differ", report.counterexample.call)


def cluster_example(directory: Path) -> Example:
    from divergent.clustering import cluster
    from divergent.report.html import cluster_page, render_html

    bodies = ["return x * 2", "return x + x", "return x << 1", "return x * 3", "return abs(x) * 2"]
    files = []
    for i, body in enumerate(bodies):
        path = directory / f"sample_{i}.py"
        path.write_text(f"def f(x: int) -> int:\n    {body}\n")
        files.append(str(path))
    from dataclasses import replace

    from divergent.search import load_programs

    # labelled by file name, as `divergent cluster sample_*.py` run in that directory would show them
    programs = [replace(p, label=Path(p.path).name) for p in load_programs(files, function="f")]
    clustering = cluster(programs, budget=4, **FAST)
    document = _cluster_document(clustering)
    first_split = document["splits"][0]["call"]
    return Example("cluster", render_html(cluster_page(document)), "behaviour classes among 5 implementations",
                   first_split, section="classes")


#: a sum of n numbers, and the same in a 32-bit integer (as C's int would): they differ past 2**31
SUM = "n = int(input())\nprint(sum(int(x) for x in input().split()[:n]))\n"
SUM_INT32 = ("n = int(input())\ntotal = sum(int(x) for x in input().split()[:n])\n"
             "print((total + 2**31) % 2**32 - 2**31)\n")


def programs_example(directory: Path) -> Example:
    """A whole-program check (two scripts reading stdin) as `divergent check sum.py sum_int32.py
    --stdin --seeds sample.txt --html FILE` writes it."""
    from dataclasses import replace

    import divergent
    from divergent.kinds.program_options import ProgramOptions
    from divergent.kinds.reports import report_json
    from divergent.report.html import check_page, render_html
    from divergent.search import load_programs

    (directory / "sum.py").write_text(SUM)
    (directory / "sum_int32.py").write_text(SUM_INT32)
    (directory / "sample.txt").write_text("3\n1 2 3\n")
    options = divergent.SearchOptions(budget=divergent.Budget(seconds=20), engines=("seeds", "mutation"),
                                      seeds=(str(directory / "sample.txt"),), programs=ProgramOptions(stdin=True))
    programs = [replace(p, label=Path(p.path).name)
                for p in load_programs([str(directory / "sum.py"), str(directory / "sum_int32.py")], options=options)]
    report = divergent.check(programs, options)
    assert report.counterexample is not None, report.notes
    document = report_json(report)
    return Example("programs", render_html(check_page(document)), "Implementations differ",
                   document["counterexample"]["stdin"].split()[-1], page_kind="check")


def _cluster_document(clustering: object) -> dict:
    from divergent.cli.cluster import clustering_json

    return clustering_json(clustering, "f")


INCOHERENCE_TASKS = [
    {"task_id": "T/0", "entry_point": "double", "ground_truth": "def double(x: int) -> int:\n    return 2 * x\n"},
    {"task_id": "T/1", "entry_point": "last", "ground_truth": "def last(xs: list[int]) -> int:\n    return xs[-1]\n"},
    {"task_id": "T/2", "entry_point": "clamp",
     "ground_truth": "def clamp(n: int) -> int:\n    return min(max(n, 0), 100)\n"},
]
INCOHERENCE_SAMPLES = {
    "careful@0.2": {
        "T_0": ["def double(x):\n    return x + x\n"] * 2 + ["def double(x):\n    return x * 2\n"],
        "T_1": ["def last(xs):\n    return xs[-1]\n"] * 3,
        "T_2": ["def clamp(n):\n    return min(max(n, 0), 100)\n"] * 2 + ["def clamp(n):\n    return max(0, min(n, 100))\n"],
    },
    "hasty@0.8": {
        "T_0": ["def double(x):\n    return x * 2 if x != 7 else 15\n", "def double(x):\n    return 2 * x\n",
                "def double(x):\n    return x * 2\n"],
        "T_1": ["def last(xs):\n    return xs[len(xs) - 1]\n", "def last(xs):\n    return xs[0]\n",
                "def last(xs):\n    return xs[-1]\n"],
        "T_2": ["def clamp(n):\n    return min(n, 100)\n"] * 3,
    },
}


def incoherence_document(directory: Path) -> dict:
    """A real study of two recorded "models" on three small tasks."""
    from divergent.bench.benchmark import Workbench
    from divergent.incoherence.study import StudyConfig, run_study, summarize, summary_json
    from divergent.store import Store

    tasks = directory / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(task) + "\n" for task in INCOHERENCE_TASKS))
    samples = directory / "samples"
    for model, by_task in INCOHERENCE_SAMPLES.items():
        for task_dir, sources in by_task.items():
            (samples / model / task_dir).mkdir(parents=True)
            for i, source in enumerate(sources):
                (samples / model / task_dir / f"{i}.py").write_text(source)
    config = StudyConfig(tasks=str(tasks), samples=str(samples), m=3, n=60, timeout=1.0)
    with Store(directory / "store.db") as store:
        run = run_study(config, Workbench(store)).run
        return summary_json(summarize(store, run))


def incoherence_example(directory: Path) -> Example:
    from divergent.report.html import incoherence_page, render_html

    document = incoherence_document(directory)
    return Example("incoherence", render_html(incoherence_page(document)), "erroneous task samples", "T/",
                   section="witnesses")


def probegen_units() -> dict:
    """A small ProbeGen tree in the store's format (what ProbeGenSession saves per node)."""
    from divergent.probegen.tree import ProbeNode, ProbeResult

    generator = "def create_fn_inputs():\n    return [(0,), (100,), (101,)]\n"
    nodes = [
        ProbeNode(path="0", depth=1, index=0, answer="...", code=generator,
                  probes=[ProbeResult(call="clamp(0)", outputs=("0", "0"), classes=((0, 1),))], seconds=1.2),
        ProbeNode(path="1", depth=1, index=1, error="the answer held no code", seconds=0.8),
        ProbeNode(path="0.0", depth=2, index=0, code=generator, differentiating=True, success=True, seconds=1.5,
                  probes=[ProbeResult(call="clamp(101)", outputs=("100", "101"), classes=((0,), (1,)),
                                      differentiating=True, accepted=True)]),
    ]
    units = {node.path: node.as_dict(children=False) for node in nodes}
    units["result"] = {"reason": "differentiated", "calls": 3, "usage": {}}
    return units


def probegen_example(directory: Path) -> Example:
    from divergent.report.html import probegen_page, render_html

    parameters = {"function": "clamp", "implementations": ["a.py:clamp", "b.py:clamp"], "model": "scripted",
                  "temperature": 0.8, "seed": 0}
    page = probegen_page(parameters, probegen_units(), run_id="0123456789abcdef", status="finished")
    return Example("probegen", render_html(page), "A generator found a difference", "clamp(101)")


def bench_judgements() -> list:
    from divergent.report.evaluation import ScoredAnswer

    judgements = []
    truths = {"dce": ["equivalent", "inequivalent"] * 4, "cuda": ["equivalent"] * 3 + ["inequivalent"] * 5,
              "algorithms": ["inequivalent"] * 6 + ["equivalent"] * 2}
    for category, labels in truths.items():
        for i, truth in enumerate(labels):
            item = f"{category}-{i}"
            judgements.append(ScoredAnswer(item, category, truth, "equivalent", judge="always-equivalent"))
            guess = truth if i % 3 else ("inequivalent" if truth == "equivalent" else None)
            judgements.append(ScoredAnswer(item, category, truth, guess, judge="careful-model"))
    return judgements


def bench_example(directory: Path) -> Example:
    from divergent.report.blocks import Banner, Section, Table
    from divergent.report.evaluation import (
        accuracy,
        accuracy_by_category,
        bias_table,
        confusion_matrix,
        strategy_overlap,
    )
    from divergent.report.html import bench_page, render_html

    judgements = bench_judgements()
    solved = {"randsearch": {"p1", "p2", "p5"}, "probegen": {"p2", "p3", "p5", "p6"}, "divergent": {"p1", "p2", "p3", "p4"}}
    missed = Table.of(["item", "category", "truth", "careful-model said"],
                      [(j.item, j.category, j.truth, j.predicted) for j in judgements
                       if j.judge == "careful-model" and not j.correct])
    best = accuracy(j for j in judgements if j.judge == "careful-model")
    page = bench_page(
        "Equivalence judges on a made-up benchmark",
        Banner(f"careful-model: {best:.0%} accurate", "24 pairs in 3 categories, 2 judges", tone="neutral"),
        [
            Section("Accuracy", (accuracy_by_category(judgements),), id="accuracy"),
            Section("Bias", (bias_table(judgements, positive="equivalent"),), id="bias"),
            Section("Confusion", (confusion_matrix(judgements, judge="careful-model"),), id="confusion"),
            Section("Strategies", strategy_overlap(solved, total=8), id="overlap"),
            Section("Misjudged pairs", (missed,), id="counterexample-section"),
        ],
    )
    return Example("bench", render_html(page), "careful-model", "cuda-0")


def _stored_results(directory: Path, kind: str, parameters: dict, results: list[tuple[str, dict]]) -> tuple:
    """A benchmark run stored as the harness stores it (one unit per item), and the store."""
    from divergent.bench.common import run_items
    from divergent.store import Store

    store = Store(directory / "store.db")
    run, _ = run_items(store, kind, parameters, results, lambda result: result)
    return store, run


def _votes(right: bool, truth: bool, index: int) -> dict:
    """A model's stored answer (one sample): right or wrong, read exactly, from the last sentences, or
    (every eleventh) unreadable and decided by the seeded coin."""
    source = "random" if index % 11 == 5 else ("sentences" if index % 3 else "exact")
    prediction = truth if right else not truth
    return {"prediction": prediction, "votes": [{"equivalent": prediction, "source": source}],
            "unparseable": int(source == "random"), "tie": False, "answers": ["..."], "extractor_answers": [],
            "usage": {"calls": 1, "cached_calls": 0, "prompt_tokens": 900 + 13 * index, "completion_tokens": 40,
                      "cost": 0.0002, "seconds": 0.4, "retries": 0}}


def equibench_document(directory: Path) -> dict:
    """A stored EquiBench run of the hybrid judge (execution first, then a model) on made-up results
    in the harness's format, summarized by the harness: OJ_A pairs the execution judge runs (witnesses
    on inequivalent pairs, one on an equivalent pair), DCE pairs it runs and finds alike, CUDA pairs it
    cannot run."""
    from divergent.bench.equibench.data import Category
    from divergent.bench.equibench.execution import ExecutionSettings
    from divergent.bench.equibench.run import EquiBenchConfig, JudgeKind, summarize, summary_json

    config = EquiBenchConfig(data=str(directory), categories=(Category.DCE, Category.CUDA, Category.OJ_A),
                             judge=JudgeKind.HYBRID, execution=ExecutionSettings(budget=10))
    results = []
    for category, count in (("DCE", 10), ("CUDA", 8), ("OJ_A", 12)):
        for i in range(count):
            truth = i % 2 == 0
            result: dict = {"category": category, "pair_id": str(i), "truth": truth}
            if category == "CUDA":
                result["execution"] = {"verdict": "not-executable", "reason": "CUDA kernels need a GPU and a launch "
                                       "harness (not available here)", "witness": None, "inputs": 0, "seconds": 0.0,
                                       "notes": []}
            elif category == "OJ_A" and ((not truth and i != 7) or i == 4):
                result["execution"] = {"verdict": "inequivalent", "reason": "found by mutation",
                                       "witness": {"input": f"{i}\n{i * 7} 3\n", "outputs": [f"{i * 10}", "-1"]},
                                       "inputs": 40 + i, "seconds": 1.5, "notes": []}
            else:
                result["execution"] = {"verdict": "no-difference-found", "reason": "800 inputs, budget-seconds",
                                       "witness": None, "inputs": 800, "seconds": 10.0, "notes": []}
            if result["execution"]["verdict"] == "inequivalent":
                result.update(prediction=False, decided_by="execution")
            else:
                result["llm"] = _votes(right=(i + len(category)) % 4 != 0, truth=truth, index=i)
                result.update(prediction=result["llm"]["prediction"], decided_by="llm")
            results.append((f"{category}/{i}", result))
    store, run = _stored_results(directory, "bench-equibench", config.parameters("scripted-judge"), results)
    with store:
        return summary_json(summarize(store, run))


def equibench_example(directory: Path) -> Example:
    from divergent.bench.equibench.html import equibench_page
    from divergent.report.html import render_html

    document = equibench_document(directory)
    wrong = next(item for item in document["items"] if item["prediction"] != item["truth"])
    return Example("equibench", render_html(equibench_page(document)), "accurate on", wrong["key"],
                   section="misjudged", page_kind="bench")


def cetbench_document(directory: Path) -> dict:
    """A stored CETBench run of a model (with the original pairs) on made-up results in the harness's
    format, summarized by the harness."""
    from divergent.bench.cetbench.run import CetConfig, summarize, summary_json
    from divergent.bench.equibench.run import JudgeKind

    kinds = ["if_else_swap", "for_while_swap", "if_condition_flip", "variable_renaming", "boolean_inversion",
             "statement_reorder", "expression_reformat"]
    config = CetConfig(pairs=str(directory / "pairs.jsonl"), judge=JudgeKind.LLM, originals=True, digest="0" * 16)
    results = []
    index = 0
    for category in ("id", "fe", "ne", "di"):
        for flag in ("np", "sp"):
            for n in range(4):
                index += 1
                k = 1 + (index + n) % 5
                truth = flag == "sp" and category in ("id", "fe")
                pair_id = f"{category}-{flag}-{n}"
                # a judge fooled more often as the perturbations pile up, and by breaking ones that look small
                right = (index * 7 + k) % 10 >= k + (2 if flag == "np" else 0)
                base = {"pair_id": pair_id, "category": category, "k": k,
                        "kinds": sorted({kinds[(index + j) % 7] for j in range(k)})}
                llm = _votes(right, truth, index)
                results.append((pair_id, {**base, "original": False, "flag": flag, "truth": truth, "llm": llm,
                                          "prediction": llm["prediction"], "decided_by": "llm"}))
                original_truth = category in ("id", "fe")
                llm = _votes(index % 5 != 0, original_truth, index + 1)
                results.append((f"original/{pair_id}", {**base, "original": True, "flag": "", "k": 0, "kinds": [],
                                                        "truth": original_truth, "llm": llm,
                                                        "prediction": llm["prediction"], "decided_by": "llm"}))
    store, run = _stored_results(directory, "bench-cetbench", config.parameters("scripted-judge"), results)
    with store:
        return summary_json(summarize(store, run))


def cetbench_example(directory: Path) -> Example:
    from divergent.bench.cetbench.html import cetbench_page
    from divergent.report.html import render_html

    document = cetbench_document(directory)
    wrong = next(item for item in document["items"] if item["prediction"] != item["truth"] and not item["original"])
    return Example("cetbench", render_html(cetbench_page(document)), "perturbed pairs", wrong["pair_id"],
                   section="misjudged", page_kind="bench")


def refute_documents() -> list[dict]:
    """Two models' REFUTE results documents (their ``summary``, as the harness summarizes stored
    attempts) on made-up attempts: six problems, three strategies each."""
    from divergent.bench.refute.report import overlap, summarize_strategy

    problems = [f"R0{i}" for i in range(1, 7)]
    outcomes = {"zero-shot": ["success", "validation-failed", "no-difference", "success",
                              "unparseable-answer", "no-difference"],
                "divergent": ["success", "success", "success", "no-difference", "success",
                              "no-difference"],
                "hybrid": ["success", "success", "success", "success", "success", "validation-failed"]}
    documents = []
    for model, lucky in (("model-a", 0), ("model-b", 1)):
        strategies = []
        for name, statuses in outcomes.items():
            units = [{"problem_id": pid, "attempt": 0,
                      "verdict": {"status": "success" if name == "zero-shot" and i == lucky else status},
                      "usage": {} if name == "divergent" else {"prompt_tokens": 1500, "completion_tokens": 300,
                                                               "cost": 0.002, "calls": 1},
                      "seconds": 3.0 + i} for i, (pid, status) in enumerate(zip(problems, statuses, strict=True))]
            strategies.append(summarize_strategy(name, units, problems, 1))
        summary = {"model": model, "problems": problems, "strategies": strategies,
                   "skipped": [{"problem_id": "R07", "reason": "no validator (--no-validator takes every input)"}],
                   "overlap": overlap({entry["name"]: entry["solved"] for entry in strategies})}
        documents.append({"benchmark": "refute", "format": 1, "parameters": {}, "summary": summary})
    return documents


def refute_example(directory: Path) -> Example:
    from divergent.bench.refute.html import refute_page
    from divergent.report.html import render_html

    return Example("refute", render_html(refute_page(refute_documents())), "refutes 5 of 6 problems",
                   "validation-failed", section="statuses", page_kind="bench")


BUILDERS: dict[str, Callable[[Path], Example]] = {
    "check": check_example, "programs": programs_example, "cluster": cluster_example, "incoherence": incoherence_example,
    "probegen": probegen_example, "bench": bench_example, "equibench": equibench_example,
    "cetbench": cetbench_example, "refute": refute_example,
}


# -- Chromium ---------------------------------------------------------------------------------------

def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def chromium_flags(profile: Path) -> list[str]:
    """Headless, no background services, and no name resolves: nothing can leave the machine."""
    return ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--hide-scrollbars",
            "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={profile}"]


class DevTools:
    """Chromium driven through its DevTools protocol over a pipe (``--remote-debugging-pipe``: JSON
    messages separated by NUL bytes on file descriptors 3 and 4), so no websocket library is needed."""

    def __init__(self, binary: str, profile: Path) -> None:
        to_chromium_read, self._to_chromium = os.pipe()
        self._from_chromium, from_chromium_write = os.pipe()

        # the pipe ends Chromium expects as fds 3 and 4, put there by the shell (bash: fds past 9) that execs it (whatever
        # numbers they have here: this process may hold 3 and 4 for something else, or not at all)
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_chromium_read} 4>&{from_chromium_write}',
             binary, *chromium_flags(profile), "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(to_chromium_read, from_chromium_write),
        )
        os.close(to_chromium_read)
        os.close(from_chromium_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            ready, _, _ = select.select([self._from_chromium], [], [], 0.5)
            if ready:
                chunk = os.read(self._from_chromium, 1 << 16)
                if not chunk:
                    raise ConnectionError("Chromium closed the pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, *, session: str | None = None,
             timeout: float = 30.0) -> dict:
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_chromium, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (OSError, RuntimeError, TimeoutError, ConnectionError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_chromium)
        os.close(self._from_chromium)


@contextmanager
def loaded(page: Path, *, width: int | None = None, network: bool = False) -> Iterator[tuple[DevTools, str]]:
    """Chromium with ``page`` loaded (in a window ``width`` pixels wide; watching its requests with
    ``network``): the tools and the page's session."""
    binary = chromium()
    assert binary is not None
    with tempfile.TemporaryDirectory() as profile:
        tools = DevTools(binary, Path(profile))
        try:
            target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            if width is not None:
                tools.send("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 1500, "deviceScaleFactor": 1, "mobile": False}, session=session)
            if network:
                tools.send("Network.enable", session=session)
            tools.send("Page.enable", session=session)
            tools.send("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
            tools.wait_for("Page.loadEventFired")
            yield tools, session
        finally:
            tools.close()


def evaluate(tools: DevTools, session: str, expression: str) -> object:
    return tools.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                      session=session)["result"]["value"]


def dump_dom(page: Path) -> tuple[str, list[str]]:
    """The page's DOM after Chromium loaded it, and every network request the page made (its own
    requests, as DevTools reports them: not the browser's background services)."""
    with loaded(page, network=True) as (tools, session):
        time.sleep(0.3)  # late requests (an image a stylesheet names) are reported by now
        dom = str(evaluate(tools, session, "document.documentElement.outerHTML"))
        evaluate(tools, session, "1")  # drain pending events
    requests = [event["params"]["request"]["url"] for event in tools.events
                if event.get("method") == "Network.requestWillBeSent"]
    return dom, [url for url in requests if not url.startswith(("file:", "data:", "about:"))]


def wider_than_the_page(page: Path, width: int = 1200) -> list[str]:
    """The tables (by their section's id) that do not fit a window ``width`` pixels wide: their
    content is wider than their box, so part of it is cut off or needs a scroll."""
    with loaded(page, width=width) as (tools, session):
        measured = evaluate(tools, session, "JSON.stringify([...document.querySelectorAll('.table-wrap')].filter("
                                            "w => w.scrollWidth > w.clientWidth + 1).map(w => w.closest('section').id))")
    return json.loads(str(measured))


def screenshot(page: Path, png: Path, *, width: int = 1200, height: int = 1500) -> None:
    binary = chromium()
    assert binary is not None
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([binary, *chromium_flags(Path(profile)), f"--window-size={width},{height}",
                        f"--screenshot={png.resolve()}", page.resolve().as_uri()],
                       capture_output=True, text=True, timeout=120, check=True)


def main(target: Path) -> None:
    """Write each example report and its screenshot (report-KIND.png) into ``target``."""
    with tempfile.TemporaryDirectory() as scratch:
        for kind, build in BUILDERS.items():
            work = Path(scratch) / kind
            work.mkdir()
            example = build(work)
            page = work / f"report-{kind}.html"
            page.write_text(example.html, encoding="utf-8")
            screenshot(page, target / f"report-{kind}.png")
            print(f"{target / f'report-{kind}.png'}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs")
