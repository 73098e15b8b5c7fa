"""Shrinking whole programs' counterexamples end to end: found by the generator program, read from
``--inputs``, and made by structure-aware mutation.

An early version of the text shrinker reused the name of its input for a chunk offset and crashed
(``'int' object has no attribute 'how_generated'``) on the first input it could shrink: these
tests run the shrinker past its first round, through ``check`` and through the CLI, as the REFUTE
and EquiBench harnesses do."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from typer.testing import CliRunner

import divergent
from divergent.cli import app
from divergent.records import Budget, TextInput, Verdict

runner = CliRunner()

# They agree on values below 100 and differ on any larger one (b caps each value at 100).
SUM = "import sys\nd = sys.stdin.read().split()\nprint(sum(int(x) for x in d[1:1 + int(d[0])]))\n"
CAPPED_SUM = "import sys\nd = sys.stdin.read().split()\nprint(sum(min(int(x), 100) for x in d[1:1 + int(d[0])]))\n"


def write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def options(build_cache: str, **changes) -> dict:
    return {"budget": Budget(seconds=20.0), "build_cache": build_cache, "time_limit": 2.0, "stdin": True, **changes}


def assert_shrunk(report, engine: str) -> None:
    assert report.verdict is Verdict.DIVERGENT, report.notes
    cx = report.counterexample
    assert cx.engine == engine
    assert isinstance(cx.input, TextInput) and isinstance(cx.original, TextInput)
    assert cx.input.how_generated == cx.original.how_generated == engine
    assert cx.shrink_steps and cx.shrink_steps[-1] == cx.input
    assert len(cx.input.text) < len(cx.original.text)


def test_a_counterexample_from_the_generator_program_is_shrunk(programs_dir, build_cache):
    a = write(programs_dir, "shrink_sum.py", SUM)
    b = write(programs_dir, "shrink_capped.py", CAPPED_SUM)
    generator = write(programs_dir, "shrink_gen.py", """\
        import random, sys
        rng = random.Random(int(sys.argv[1]))
        values = [rng.randint(1, 10**6) for _ in range(rng.randint(5, 9))]
        print(len(values))
        print(*values)
    """)
    report = divergent.check([a, b], generator=generator, engines="generator", **options(build_cache))
    assert_shrunk(report, "generator")
    assert report.counterexample.input.text == "1\n101\n"


def test_a_counterexample_from_an_inputs_directory_is_shrunk_through_the_cli(programs_dir, build_cache, tmp_path):
    a = write(programs_dir, "shrink_sum.py", SUM)
    b = write(programs_dir, "shrink_capped.py", CAPPED_SUM)
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "01.txt").write_text("3\n1 2 3\n")
    (tests / "02.txt").write_text("6\n5 98 13 7000 2 8\n")
    result = runner.invoke(app, ["check", a, b, "--stdin", "--inputs", str(tests), "--engines", "seeds",
                                 "--budget", "20", "--build-cache", build_cache, "--json"])
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    counterexample = document["counterexample"]
    assert counterexample["stdin"] == "1\n101\n"
    assert document["engine"] == "seeds"
    assert counterexample["shrink_steps"] and counterexample["shrink_steps"][-1] == "1\n101\n"
    assert counterexample["original_stdin"] == "6\n5 98 13 7000 2 8\n"


def test_a_counterexample_made_by_mutation_is_shrunk_with_counts_kept(programs_dir, build_cache):
    a = write(programs_dir, "shrink_sum.py", SUM)
    b = write(programs_dir, "shrink_capped.py", CAPPED_SUM)
    sample = write(programs_dir, "shrink_sample.txt", "4\n1 2 3 4\n")
    report = divergent.check([a, b], examples=[sample], engines="mutation", **options(build_cache))
    assert_shrunk(report, "mutation")
    count, *values = report.counterexample.input.text.split()
    assert int(count) == len(values) == 1 and int(values[0]) > 100
