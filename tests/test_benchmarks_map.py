"""benchmarks/README.md opens with a map: every script and every suite folder of benchmarks/ has its
row (what it measures, which suite, how to run it), so a newcomer finds each from one table."""

from __future__ import annotations

import re
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def map_rows() -> set[str]:
    text = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    section = text.split("## Map", 1)[1].split("\n## ", 1)[0]
    return {name for line in section.splitlines() if line.startswith("| `")
            for name in re.findall(r"`([^`]+)`", line.split("|")[1])}


def test_every_script_and_suite_of_benchmarks_is_on_the_map() -> None:
    rows = map_rows()
    scripts = {path.name for path in BENCHMARKS.glob("*.py")}
    folders = {f"{path.name}/" for path in BENCHMARKS.iterdir() if path.is_dir() and not path.name.startswith((".", "_"))}
    assert not (scripts | folders) - rows, f"not on the map of benchmarks/README.md: {sorted((scripts | folders) - rows)}"
    assert all(name.endswith((".py", "/")) for name in rows), rows
