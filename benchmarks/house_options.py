"""How the command line declares its options (issue 33, item 5): per command function, its
parameters; how many shared options are restated by hand in command signatures; how many flags
each command takes in all (a group's fields count once, where the group declares them).

    python benchmarks/house_options.py [ROOT ...]      # ROOT: a checkout (default: this one)

A "shared option restated by hand" is a function parameter in ``src/divergent/cli`` annotated with a
shared option alias (``JsonOpt``, ``ModelOpt``, ``StoreOpt``... any ``*Opt``), outside the option
groups' classes: the flag is declared again in that signature instead of once in a group. The
lines figure is the lines of ``src/divergent/cli`` and ``src/divergent/bench``. Run on two
checkouts (main and a branch), it prints both columns side by side.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _parameters(node: ast.FunctionDef) -> list[ast.arg]:
    args = node.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _is_command(node: ast.FunctionDef) -> bool:
    return any(".command" in ast.unparse(d) or "callback" in ast.unparse(d) for d in node.decorator_list)


def _restated(annotation: ast.expr | None) -> bool:
    return isinstance(annotation, ast.Name) and annotation.id.endswith("Opt")


def measure(root: Path) -> dict[str, object]:
    cli = root / "src" / "divergent" / "cli"
    commands: dict[str, int] = {}
    restated = 0
    for path in sorted(cli.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                restated += sum(_restated(arg.annotation) for arg in _parameters(node))
                if _is_command(node):
                    commands[f"{path.stem}:{node.name}"] = len(_parameters(node))
    lines = sum(len(p.read_text(encoding="utf-8").splitlines())
                for folder in ("cli", "bench") for p in (root / "src" / "divergent" / folder).rglob("*.py"))
    return {"commands": commands, "restated": restated, "lines": lines}


def main(argv: list[str]) -> None:
    if {"-h", "--help"} & set(argv):
        print(__doc__)
        return
    roots = [Path(a) for a in argv] or [ROOT]
    figures = [measure(root) for root in roots]
    names = sorted(set().union(*(f["commands"] for f in figures)),  # type: ignore[arg-type]
                   key=lambda n: -max(f["commands"].get(n, 0) for f in figures))  # type: ignore[union-attr]
    print("parameters of each command function" + "".join(f" | {r}" for r in roots))
    for name in names:
        print(f"  {name:40}" + "".join(f" {f['commands'].get(name, '-'):>6}" for f in figures))  # type: ignore[union-attr]
    for label, key in (("command functions with > 8 parameters", None), ("shared options restated by hand", "restated"),
                       ("lines in src/divergent/cli + bench", "lines")):
        values = [sum(n > 8 for n in f["commands"].values()) if key is None else f[key]  # type: ignore[union-attr]
                  for f in figures]
        print(f"{label:42}" + "".join(f" {v:>6}" for v in values))


if __name__ == "__main__":
    main(sys.argv[1:])
