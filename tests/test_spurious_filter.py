"""The spurious-counterexample filter (ProbeGen, Sec. 3.1, Appx. C), through the real LLM client
against the scripted OpenAI-compatible server.

The pair under test has two differences: on non-ASCII case folding (``'Straße'``: ``lower`` keeps
the ß, ``casefold`` makes it ``ss``), which the scripted model calls irrelevant, and on a negative
count (one returns ``''``, the other raises), which it calls important.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from divergent.clustering import cluster
from divergent.errors import InvalidArgument
from divergent.kinds.reports import plain_report, report_json
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from divergent.programs import PythonFunction, Signature
from divergent.records import ExceptionInfo, FilterDecision, Input, Outcome, OutcomeKind, Verdict
from divergent.search import check
from divergent.spurious import SpuriousFilter, parse_filter_answer
from scripted_openai import Received, Reply, ScriptedOpenAI

LOWER = '''
def shout(word: str, times: int) -> str:
    """The word in lower case, repeated `times` times."""
    return word.lower() * times
'''

CASEFOLD_STRICT = '''
def shout(word: str, times: int) -> str:
    """The word in lower case, repeated `times` times."""
    if times < 0:
        raise ValueError("times must not be negative")
    return word.casefold() * times
'''

CASEFOLD = '''
def shout(word: str, times: int) -> str:
    return word.casefold() * times
'''

LOWER_STRICT = '''
def shout(word: str, times: int) -> str:
    if times < 0:
        raise ValueError("times must not be negative")
    return word.lower() * times
'''

SPEC = "Return the word in lower case, repeated `times` times."
IRRELEVANT = "Locale-specific folding of ß is beyond this exercise.\nRATIONALE: locale-specific case folding\nDIFFERENCES: IRRELEVANT"
IMPORTANT = "One raises, the other returns.\nRATIONALE: negative counts handled differently\nDIFFERENCES: IMPORTANT"


@pytest.fixture
def pair(tmp_path: Path) -> list[str]:
    (tmp_path / "lower.py").write_text(LOWER)
    (tmp_path / "casefold_strict.py").write_text(CASEFOLD_STRICT)
    return [f"{tmp_path / 'lower.py'}:shout", f"{tmp_path / 'casefold_strict.py'}:shout"]


@pytest.fixture
def client(openai_server: ScriptedOpenAI, llm_home: Path):
    settings = LLMSettings(
        model="scripted", base_url=openai_server.base_url, max_retries=1, backoff_base=0.0, timeout=10.0
    )
    with LLMClient(settings, store=llm_home / "store.db") as llm:
        yield llm


def inputs_section(prompt: str) -> str:
    """The call shown under "### Inputs" in a filter prompt."""
    match = re.search(r"### Inputs\s*'''\s*(.*?)\s*'''", prompt, re.DOTALL)
    assert match, prompt
    return match.group(1)


def by_input(received: Received) -> Reply:
    """The scripted model: non-ASCII case folding is irrelevant, everything else matters."""
    return Reply(text=IRRELEVANT if "ß" in inputs_section(received.last_user) else IMPORTANT)


def run(pair: list[str], client: LLMClient | None, seeds: list[tuple], **options) -> object:
    spurious_filter = SpuriousFilter(client, spec=SPEC) if client is not None else None
    return check(
        pair, engines="seeds", seeds=seeds, budget=30.0, spurious_filter=spurious_filter, **options
    )


# ---------------------------------------------------------------------------------------------
# Reading the answer


@pytest.mark.parametrize(
    ("answer", "decision", "rationale"),
    [
        ("Reasoning...\nRATIONALE: precondition violation\nDIFFERENCES: IRRELEVANT", "IRRELEVANT",
         "precondition violation"),
        ("**RATIONALE:** negative counts\n**DIFFERENCES:** IMPORTANT", "IMPORTANT", "negative counts"),
        ("## RATIONALE\nlocale specific\n\n## DIFFERENCES\nIrrelevant.", "IRRELEVANT", "locale specific"),
        ("I must end with DIFFERENCES: IMPORTANT or IRRELEVANT.\nRATIONALE: order\nDIFFERENCES: not important",
         "IRRELEVANT", "order"),
        ("<think>DIFFERENCES: IMPORTANT</think>\nRATIONALE: float noise\nDIFFERENCES: IRRELEVANT", "IRRELEVANT",
         "float noise"),
        ("RATIONALE:\nDIFFERENCES: IMPORTANT", "IMPORTANT", ""),
        ("So, RATIONALE: ordering only. Final answer - DIFFERENCES: Irrelevant", "IRRELEVANT",
         "ordering only. Final answer"),
        ("The differences are important.", None, ""),
        ("RATIONALE: unsure\nDIFFERENCES: IMPORTANT or IRRELEVANT", None, "unsure"),
        ("Differences in output: big\nRationale for it: none", None, ""),
    ],
)
def test_answers_are_read_in_the_appendix_c_format(answer: str, decision: str | None, rationale: str) -> None:
    found, why = parse_filter_answer(answer)
    assert (found.value if found else None, why) == (decision, rationale)


# ---------------------------------------------------------------------------------------------
# The prompt


def test_the_prompt_shows_task_sources_input_and_each_outcome(client: LLMClient) -> None:
    impls = [
        PythonFunction(label="old.py:shout", entry_point="shout", source=LOWER, signature=Signature()),
        PythonFunction(label="new.py:shout", entry_point="shout", source=CASEFOLD_STRICT, signature=Signature()),
    ]
    outcomes = (
        Outcome(kind=OutcomeKind.RETURNED, value=""),
        Outcome(kind=OutcomeKind.RAISED, exception=ExceptionInfo("ValueError", "times must not be negative")),
    )
    spurious_filter = SpuriousFilter(client, spec=SPEC)
    prompt = spurious_filter.prompt(impls, Input(args=("a{b}", -1)), outcomes)
    assert SPEC in prompt
    assert LOWER.strip() in prompt and CASEFOLD_STRICT.strip() in prompt
    assert "Implementation A (`old.py:shout`)" in prompt and "Implementation B (`new.py:shout`)" in prompt
    assert inputs_section(prompt) == "shout('a{b}', -1)"  # braces in values survive the template
    assert "returned ''" in prompt and "raised ValueError: times must not be negative" in prompt
    assert "RATIONALE:" in prompt and "DIFFERENCES:" in prompt
    without_spec = SpuriousFilter(client, spec=None).prompt(impls, Input(args=("a", -1)), outcomes)
    assert "No task description was given" in without_spec and "`shout`" in without_spec
    with pytest.raises(InvalidArgument, match="2 implementations but 1 outcomes"):
        spurious_filter.prompt(impls, Input(args=("a", -1)), outcomes[:1])


# ---------------------------------------------------------------------------------------------
# In the search


def test_a_relevant_verdict_ends_the_search_and_is_reported(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    openai_server.responder = by_input
    report = run(pair, client, [("abc", -1)], shrink=False)
    assert report.verdict is Verdict.DIVERGENT
    cx = report.counterexample
    assert cx.input.args == ("abc", -1)
    assert cx.filter is not None and cx.filter.relevant
    assert cx.filter.differences is FilterDecision.IMPORTANT
    assert cx.filter.rationale == "negative counts handled differently"
    assert cx.filter.model == "scripted" and cx.filter.usage["calls"] == 1
    assert report.splits[-1].filter == cx.filter
    assert report.filtered_out == ()
    # The model saw the sources, the input and what each implementation did.
    (request,) = openai_server.chat_requests
    assert request.body["temperature"] == 0.0
    prompt = request.last_user
    assert LOWER.strip() in prompt and CASEFOLD_STRICT.strip() in prompt and SPEC in prompt
    assert inputs_section(prompt) == "shout('abc', -1)"
    assert "returned ''" in prompt and "raised ValueError: times must not be negative" in prompt
    data = report_json(report)
    assert data["counterexample"]["filter"] == {
        "relevant": True, "rationale": "negative counts handled differently", "differences": "IMPORTANT",
        "model": "scripted",
    }
    assert data["filtered_out"] == []
    assert "filter verdict: IMPORTANT — negative counts handled differently (filter: scripted)" in plain_report(report)


def test_an_irrelevant_difference_does_not_end_the_search(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    openai_server.responder = by_input
    report = run(pair, client, [("Straße", 2), ("abc", -1)], shrink=False)
    assert report.verdict is Verdict.DIVERGENT
    assert report.counterexample.input.args == ("abc", -1)
    assert report.counterexample.filter.relevant
    (filtered,) = report.filtered_out
    assert filtered.input.args == ("Straße", 2)
    assert filtered.filter.differences is FilterDecision.IRRELEVANT
    assert filtered.filter.rationale == "locale-specific case folding"
    assert [o.value for o in filtered.outcomes] == ["straßestraße", "strassestrasse"]
    data = json.loads(json.dumps(report_json(report)))
    (filtered_json,) = data["filtered_out"]
    assert filtered_json["call"] == "shout('Straße', 2)"
    assert filtered_json["filter"]["relevant"] is False
    assert filtered_json["filter"]["differences"] == "IRRELEVANT"
    text = plain_report(report)
    assert "set apart, not claimed (1):" in text and "locale-specific case folding" in text


def test_only_irrelevant_differences_mean_no_relevant_difference(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    openai_server.responder = by_input
    report = run(pair, client, [("Straße", 2), ("ß", 1)], min_inputs=2)  # the two seeds are all it judges
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND and report.counterexample is None
    assert [cx.input.args for cx in report.filtered_out] == [("Straße", 2), ("ß", 1)]
    assert plain_report(report).startswith("no relevant difference found")
    assert report_json(report)["counterexample"] is None


def test_without_a_filter_every_difference_counts(
    pair: list[str], openai_server: ScriptedOpenAI
) -> None:
    report = run(pair, None, [("Straße", 2), ("abc", -1)], shrink=False)
    assert report.counterexample.input.args == ("Straße", 2)
    assert report.counterexample.filter is None and report.filtered_out == ()
    assert report_json(report)["counterexample"]["filter"] is None
    assert openai_server.chat_requests == []


def test_an_unreadable_answer_keeps_the_difference(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    openai_server.responder = lambda received: "Hmm, hard to say. Both implementations look reasonable to me."
    report = run(pair, client, [("Straße", 2)], shrink=False)
    assert report.verdict is Verdict.DIVERGENT
    verdict = report.counterexample.filter
    assert verdict.relevant and verdict.differences is FilterDecision.UNPARSED
    assert "could not be parsed" in verdict.rationale
    assert verdict.raw.startswith("Hmm, hard to say")
    assert report_json(report)["counterexample"]["filter"]["differences"] == "UNPARSED"


def test_a_failing_model_leaves_the_difference_unjudged_and_the_run_goes_on(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    openai_server.responder = lambda received: Reply(status=500, text="the model is on fire")
    report = run(pair, client, [("Straße", 2), ("abc", -1)])
    assert report.verdict is Verdict.DIVERGENT
    verdict = report.counterexample.filter
    assert verdict.relevant and verdict.differences is FilterDecision.UNJUDGED
    assert verdict.rationale.startswith("not judged:")
    assert any(note.startswith("filter: not judged") for note in report.notes)
    assert "kept, not judged" in plain_report(report)
    # One call and its one retry; the shrunk input is not asked again of a model that is down.
    assert len(openai_server.chat_requests) == 2


def test_a_rerun_is_answered_from_the_cache(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI, llm_home: Path
) -> None:
    openai_server.responder = by_input
    first = run(pair, client, [("Straße", 2), ("abc", -1)], shrink=False)
    asked = len(openai_server.chat_requests)
    assert asked == 2
    settings = LLMSettings(model="scripted", base_url=openai_server.base_url, replay=True)
    with LLMClient(settings, store=llm_home / "store.db") as replaying:
        second = run(pair, replaying, [("Straße", 2), ("abc", -1)], shrink=False)
        assert replaying.usage().cached_calls == 2 and replaying.usage().calls == 0
    assert len(openai_server.chat_requests) == asked
    assert second.counterexample.filter.rationale == first.counterexample.filter.rationale
    assert second.counterexample.filter.usage["cached_calls"] == 1
    assert [cx.filter.rationale for cx in second.filtered_out] == ["locale-specific case folding"]


def test_a_shrunk_input_judged_irrelevant_gives_way_to_the_found_one(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    # The model accepts the found input but calls any smaller one a precondition violation.
    def judge(received: Received) -> Reply:
        if inputs_section(received.last_user) == "shout('abc', -7)":
            return Reply(text=IMPORTANT)
        return Reply(text="RATIONALE: precondition violation\nDIFFERENCES: IRRELEVANT")

    openai_server.responder = judge
    report = run(pair, client, [("abc", -7)])
    cx = report.counterexample
    assert cx.input.args == ("abc", -7) and cx.filter.differences is FilterDecision.IMPORTANT
    (shrunk,) = report.filtered_out
    assert shrunk.input.key != cx.input.key and shrunk.filter.rationale == "precondition violation"
    assert any(note.startswith("not shrunk: the filter judged the smaller") for note in report.notes)


def test_a_shrunk_input_judged_relevant_is_reported_with_its_own_verdict(
    pair: list[str], client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    openai_server.responder = by_input
    report = run(pair, client, [("abc", -7)])
    cx = report.counterexample
    assert cx.original.args == ("abc", -7) and cx.input.key != cx.original.key
    prompts = [inputs_section(r.last_user) for r in openai_server.chat_requests]
    assert prompts == ["shout('abc', -7)", cx.call]
    assert cx.filter.relevant and report.filtered_out == ()


def test_the_same_difference_is_asked_once_and_the_accept_hook_vetoes(
    client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    from divergent.records import Observation

    openai_server.responder = by_input
    impls = [
        PythonFunction(label=f"{name}.py:shout", entry_point="shout", source=source, signature=Signature())
        for name, source in (("lower", LOWER), ("casefold", CASEFOLD))
    ]
    outcomes = (Outcome(kind=OutcomeKind.RETURNED, value="ß"), Outcome(kind=OutcomeKind.RETURNED, value="ss"))
    spurious_filter = SpuriousFilter(client, spec=SPEC)
    accept = spurious_filter.accept(impls)
    observation = Observation(input=Input(args=("ß", 1)), outcomes=outcomes, classes=((0,), (1,)))
    assert accept(observation) is False
    again = spurious_filter.assess(impls, observation.input, outcomes)
    assert again.differences is FilterDecision.IRRELEVANT
    assert len(openai_server.chat_requests) == 1


def test_clustering_splits_only_on_relevant_differences(
    tmp_path: Path, client: LLMClient, openai_server: ScriptedOpenAI
) -> None:
    sources = {"lower": LOWER, "casefold": CASEFOLD, "lower_strict": LOWER_STRICT}
    specs = []
    for name, source in sources.items():
        (tmp_path / f"{name}.py").write_text(source)
        specs.append(f"{tmp_path / name}.py:shout")
    openai_server.responder = by_input
    clustering = cluster(
        specs, engines="seeds", seeds=[("Straße", 2), ("abc", -1)], budget=30.0,
        spurious_filter=SpuriousFilter(client, spec=SPEC),
    )
    # ß sets casefold apart, but that split is irrelevant; the negative count sets lower_strict apart.
    assert clustering.classes == ((0, 1), (2,))
    (split,) = clustering.splits
    assert split.input.args == ("abc", -1) and split.filter.relevant
    (filtered,) = clustering.report.filtered_out
    assert filtered.input.args == ("Straße", 2) and not filtered.filter.relevant
    data = report_json(clustering.report, "shout")
    assert data["splits"][0]["filter"]["differences"] == "IMPORTANT"
    assert data["filtered_out"][0]["filter"]["rationale"] == "locale-specific case folding"
