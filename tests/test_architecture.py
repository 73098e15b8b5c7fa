"""The shape of the package: the public surface, and imports that point one way."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable
from pathlib import Path

import pytest

import architecture_rules as rules
import divergent

PACKAGE = Path(divergent.__file__).resolve().parent


def imported_divergent_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("divergent"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("divergent"))
    return found


def test_public_api_is_pinned() -> None:
    assert divergent.__all__ == sorted([
        "Budget", "Clustering", "Counterexample", "DEFAULT_POLICY", "DiffResult", "DivergentError", "EqualityPolicy",
        "ExceptionEquality", "Implementation", "Input", "InvalidArgument", "Limits", "LoadError", "Outcome",
        "OutcomeKind", "Program", "PythonFunction", "Report", "SearchOptions", "StdinProgram", "TextInput", "Verdict",
        "__version__",
        "assert_equivalent", "check", "cluster", "diff", "load_implementation",
    ])
    for name in divergent.__all__:
        assert getattr(divergent, name) is not None


def test_foundation_modules_import_nothing_of_divergent_above_them() -> None:
    for name in ("errors.py", "values.py"):
        assert imported_divergent_modules(PACKAGE / name) == set(), name
    assert imported_divergent_modules(PACKAGE / "records.py") <= {"divergent.values", "divergent.errors"}


def test_store_knows_only_records() -> None:
    for path in (PACKAGE / "store").glob("*.py"):
        modules = imported_divergent_modules(path)
        assert all(m.startswith(("divergent.store", "divergent.errors", "divergent.records")) or m == "divergent"
                   for m in modules), (path.name, modules)


def test_the_sandbox_children_import_only_the_encoding() -> None:
    children = sorted((PACKAGE / "sandbox" / "child").glob("*.py"))
    assert {path.name for path in children} >= {"kit.py", "worker.py", "generator.py", "symbolic.py", "launcher.py"}
    for path in children:
        modules = imported_divergent_modules(path)
        assert all(m in ("divergent", "divergent.values") or m.startswith("divergent.sandbox.child.")
                   for m in modules), (path.name, modules)


def test_nothing_below_the_cli_imports_it() -> None:
    for path in PACKAGE.rglob("*.py"):
        if "cli" in path.relative_to(PACKAGE).parts or path.name == "__main__.py":
            continue
        assert not any(m.startswith("divergent.cli") for m in imported_divergent_modules(path)), path


# -- the layer table ---------------------------------------------------------------------------------
# Every module of src/divergent has a layer: the entry for its dotted name (relative to the package),
# or for the longest package prefix that has one. An import (at any place in the module, lazy or under
# TYPE_CHECKING) may only point to the same or a lower layer. docs/architecture.md draws this table.
LAYERS: dict[str, int] = {
    # 0: the foundation: records, errors, the encoding, and the seams' vocabulary
    "__init__": 0, "errors": 0, "values": 0, "records": 0, "programs": 0, "comparison": 0, "annotations": 0,
    "probegen.strategies": 0, "trace": 0, "paths": 0,
    # 1: rules and services that know only records; the input formats of whole programs
    "policy": 1, "text_comparison": 1, "preconditions": 1, "store": 1, "llm": 1, "report": 1,
    "grammars": 1, "executors": 1, "formats": 1,
    # 2: turning specs into programs; running them in the sandbox; the structure of inputs mined from code
    "load": 2, "sandbox": 2, "structure": 2,
    # 3: the engines, the spurious-counterexample filter
    "engines": 3, "spurious": 3,
    # 4: ProbeGen's tree search and the datasets
    "probegen": 4, "datasets": 4,
    # 5: the engines that drive a language model
    "engines.calls.llm_probes": 5, "engines.calls.randsearch": 5, "engines.text.llm": 5,
    # 6: the kinds of program (what differs between them, their shrinkers among it) and the options they read
    "kinds": 6, "options": 6,
    # 7: the search loop
    "search": 7,
    # 8: what is built on the search
    "clustering": 8, "incoherence": 8, "bench": 8, "changes": 8,
    # 9: the command line
    "cli": 9, "__main__": 9,
}
MAX_MODULE_LINES = 600

# -- the folder table --------------------------------------------------------------------------------
# Each top-level package (or module) of src/divergent is one layer; a folder imports only folders on a
# lower layer (no two folders import each other, even through a third), so the folders can be read, and
# replaced, from the bottom up. Unlike the module table above it has no exception for a single module:
# a folder that needs a piece of a higher one takes the piece down. docs/architecture.md draws it.
FOLDER_LAYERS: dict[str, int] = {
    # 0: the vocabulary every folder shares: errors, values, the program protocol, paths, tracing
    "errors": 0, "values": 0, "programs": 0, "paths": 0, "trace": 0, "annotations": 0,
    # 1: records (inputs, outcomes, reports' records) and what stores them; grammars; input formats
    "records": 1, "store": 1, "grammars": 1, "formats": 1,
    # 2: comparing outcomes, the model client, loading programs, preconditions, structure mined from code
    "comparison": 2, "llm": 2, "load": 2, "preconditions": 2, "structure": 2,
    # 3: the policy, comparing texts, the sandbox, executors, datasets, the spurious filter
    "policy": 3, "text_comparison": 3, "sandbox": 3, "executors": 3, "datasets": 3, "spurious": 3,
    # 4: ProbeGen's tree search; the reports' renderers
    "probegen": 4, "report": 4,
    # 5: the engines (engines/calls: of Python calls; engines/text: of whole programs' texts)
    "engines": 5,
    # 6: (free: the options of a search live in kinds/options.py); 7: the kinds of program; 8: the search
    "kinds": 7, "search": 8,
    # 9..11: what is built on the search
    "clustering": 9, "bench": 10, "incoherence": 11, "changes": 11,
    # 12: the command line
    "cli": 12, "__main__": 13,
}

#: TEMPORARY: imports that run back up while work in flight breaks a circle (module -> module: whose work
#: removes it). Empty since issue 33's circles were broken; an entry that no longer matches fails the test.
TEMPORARY_UPWARD_IMPORTS: dict[str, str] = {}


def layer_of(name: str) -> int:
    parts = name.split(".")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise AssertionError(f"divergent.{name} has no layer in LAYERS: add it")


modules = rules.modules
resolved_imports = rules.resolved_imports


def test_every_import_points_to_the_same_or_a_lower_layer() -> None:
    upward = []
    for name, path in modules().items():
        for target in resolved_imports(path):
            if target in ("__init__",) or f"{name} -> {target}" in TEMPORARY_UPWARD_IMPORTS:
                continue  # `import divergent` for its version or lazy names
            if layer_of(target) > layer_of(name):
                upward.append(f"{name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)})")
    assert not upward, "\n".join(sorted(upward))


def test_the_import_graph_has_no_circle() -> None:
    edges = [(name, target) for name, path in modules().items() for target in resolved_imports(path)
             if target != "__init__"]
    assert not rules.circles(edges), "import circles:\n" + "\n".join(" -> ".join(c) for c in rules.circles(edges))


def folders_running_up(ties: dict[tuple[str, str], list[str]], layers: dict[str, int],
                       allowed: Iterable[str] = ()) -> list[str]:
    """The folders' imports that do not point to a lower folder (one line per tie), and the
    folders with no layer."""
    allowed = set(allowed)
    found = [f"{folder} has no layer in FOLDER_LAYERS: add it" for folder in
             sorted({folder for pair in ties for folder in pair} - set(layers) - {"__init__"})]
    for (importer, imported), lines in sorted(ties.items()):
        if importer in layers and imported in layers and layers[imported] >= layers[importer]:
            found += [f"{importer} (layer {layers[importer]}) imports {imported} (layer {layers[imported]}): {line}"
                      for line in lines if line not in allowed]
    return found


def folder_circles(ties: dict[tuple[str, str], list[str]], allowed: Iterable[str] = ()) -> list[str]:
    allowed = set(allowed)
    edges = [pair for pair, lines in ties.items() if set(lines) - allowed]
    return [" -> ".join(circle) for circle in rules.circles(edges)]


def test_every_folder_imports_only_folders_below_it() -> None:
    ties = rules.folder_imports()
    assert set(FOLDER_LAYERS) >= {rules.folder_of(name) for name in modules()} - {"__init__"}
    assert not folders_running_up(ties, FOLDER_LAYERS, TEMPORARY_UPWARD_IMPORTS), \
        "take the shared piece down into the lower folder:\n" + "\n".join(
            folders_running_up(ties, FOLDER_LAYERS, TEMPORARY_UPWARD_IMPORTS))
    found = {line for lines in ties.values() for line in lines}
    assert not set(TEMPORARY_UPWARD_IMPORTS) - found, "gone: remove from TEMPORARY_UPWARD_IMPORTS"


def test_no_two_folders_import_each_other() -> None:
    assert not folder_circles(rules.folder_imports(), TEMPORARY_UPWARD_IMPORTS)


def test_the_folder_rules_see_a_circle(tmp_path: Path) -> None:
    """A folder circle that no module circle shows: a.one -> b.two, b.three -> a.four (lazily)."""
    root = tmp_path / "pkg"
    for folder in ("a", "b"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "a" / "one.py").write_text("from pkg.b.two import X\n")
    (root / "b" / "two.py").write_text("X = 1\n")
    (root / "b" / "three.py").write_text("def f():\n    from pkg.a import four\n    return four\n")
    (root / "a" / "four.py").write_text("")
    ties = rules.folder_imports(root)
    assert ties == {("a", "b"): ["a.one -> b.two"], ("b", "a"): ["b.three -> a.four"]}
    assert folder_circles(ties) == ["a -> b -> a"]
    assert folders_running_up(ties, {"a": 1, "b": 0}) == ["b (layer 0) imports a (layer 1): b.three -> a.four"]
    assert folders_running_up(ties, {"a": 1, "b": 1}) == [
        "a (layer 1) imports b (layer 1): a.one -> b.two", "b (layer 1) imports a (layer 1): b.three -> a.four"]
    assert folders_running_up(ties, {"a": 1}) == ["b has no layer in FOLDER_LAYERS: add it"]
    module_edges = [(name, target) for name, path in rules.modules(root).items()
                    for target in rules.resolved_imports(path, root)]
    assert not rules.circles(module_edges)  # the module-level rule cannot see it


def test_no_module_imports_another_modules_private_names() -> None:
    offenders = []
    for path in [*PACKAGE.rglob("*.py"), *(PACKAGE.parents[1] / "tests").glob("*.py")]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("divergent"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                hidden_module = any(part.startswith("_") and not part.startswith("__")
                                    for part in node.module.split("."))
                if private or hidden_module:
                    offenders.append(f"{path.name}: from {node.module} import {', '.join(a.name for a in node.names)}")
    assert not offenders, "\n".join(offenders)


def test_no_module_is_a_god_module() -> None:
    long = {name: len(path.read_text().splitlines()) for name, path in modules().items()}
    assert not {n: count for n, count in long.items() if count > MAX_MODULE_LINES}, long


def test_every_package_says_what_is_inside_and_where_a_change_goes() -> None:
    folders = sorted({path.parent for path in modules().values()} - {PACKAGE})
    quiet = [str(folder.relative_to(PACKAGE)) for folder in folders if not (folder / "__init__.py").exists()
             or len((ast.get_docstring(rules.syntax(folder / "__init__.py")) or "").split()) < 15]
    assert not quiet, "give these packages an __init__.py whose docstring says what is inside and where a " \
                      "change goes:\n" + "\n".join(quiet)


# -- one pipeline for every kind of program -------------------------------------------------------
# What differs between kinds of program (Python functions, whole programs reading stdin, ...) lives in
# the kind's object (divergent.kinds); everything else holds a kind and never asks which it is. The
# rules (tests/architecture_rules.py) derive what a branch on the kind is made of (the kinds' classes,
# the attributes only some kind's records have, the kinds' names, the per-kind fields) and the modules
# that are a kind's own (where such a branch is no branch) from the registry: nothing here is listed by
# hand but the seams and the temporary entries below.

#: TEMPORARY: branches on the kind in code being reworked (module: what -> whose work removes it). Empty
#: since issue 33 gave kinds their options, one report frame and titles; a stale entry fails the test.
TEMPORARY_KIND_BRANCHES: dict[str, str] = {}


def branches_on_the_kind(among: Iterable[str] | None = None, vocabulary: rules.KindVocabulary | None = None
                          ) -> list[str]:
    """Every branch on the kind outside the kinds' own modules (``among`` those modules only), as
    ``module: what`` (line numbers apart, so the temporary entries survive edits)."""
    vocabulary = vocabulary or rules.kind_vocabulary()
    own = rules.kinds_own_modules()
    return [f"{name}: {what}" for name, path in modules().items() if name not in own and (among is None or name in among)
            for _, what in rules.kind_branches(rules.syntax(path), vocabulary, rules.imported_aliases(rules.syntax(path)))]


def offending(branches: Iterable[str]) -> list[str]:
    return [branch for branch in branches if branch not in TEMPORARY_KIND_BRANCHES]


def test_nothing_outside_a_kinds_own_modules_asks_which_kind_it_holds() -> None:
    found = branches_on_the_kind()
    assert not offending(found), "ask the kind instead (divergent.kinds.base.ProgramKind):\n" + "\n".join(offending(found))
    assert not set(TEMPORARY_KIND_BRANCHES) - set(found), "gone: remove from TEMPORARY_KIND_BRANCHES"


def test_a_kinds_own_modules_come_from_the_registry() -> None:
    from divergent.kinds.registry import all_kinds

    own = rules.kinds_own_modules()
    for kind in all_kinds():
        assert type(kind).__module__.removeprefix("divergent.") in own, kind.name
    assert {"engines.text.seeds", "engines.calls.symbolic", "report.runs", "report.calls"} <= set(own)
    for shared in ("kinds.base", "kinds.registry", "search.loop", "report.pages", "engines.base", "sandbox.runner"):
        assert shared not in own, shared
    vocabulary = rules.kind_vocabulary()
    assert {"TextInput", "StdinProgram", "PythonFunction", "Input", "ProcessRunner", "RunPresentation",
            "CallPresentation", "OutputComparison", "EqualityPolicy"} <= vocabulary.classes
    assert {"text", "args", "entry_point"} <= vocabulary.attributes
    assert {"label", "kind", "key", "call", "name"}.isdisjoint(vocabulary.attributes)  # every kind's records have them
    assert "services" in vocabulary.probes | vocabulary.attributes  # the text kinds' services, optional or per kind
    assert vocabulary.names == {kind.name for kind in all_kinds()}


def test_a_kind_taken_from_the_registry_takes_its_own_modules_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is exempt by hand: without the commands' line in the registry, the commands' module
    is nobody's own, and its branches on the kind (``isinstance(spec, Command)``) are offences."""
    from divergent.kinds import registry

    derived = (rules.kinds_own_modules, rules.kind_vocabulary, rules.exported_aliases)
    monkeypatch.setattr(registry, "KINDS", {name: dotted for name, dotted in registry.KINDS.items() if name != "command"})
    for cached in derived:
        cached.cache_clear()
    try:
        assert "kinds.commands" not in rules.kinds_own_modules()
        assert "kinds.stdin_programs" in rules.kinds_own_modules()
        assert any(branch.startswith("kinds.commands: isinstance(") for branch in branches_on_the_kind(["kinds.commands"]))
    finally:
        monkeypatch.undo()
        for cached in derived:
            cached.cache_clear()
    assert not branches_on_the_kind(["kinds.commands"])


#: the ways to ask which kind a module holds (issue 33 found the first rule saw only the first)
PROBES = {
    "isinstance": "def f(x):\n    return isinstance(x, TextInput)\n",
    "a tuple alias": "TEXTS = (TextInput, StdinProgram)\ndef f(x):\n    return isinstance(x, TEXTS)\n",
    "getattr": "def f(x):\n    return getattr(x, 'text', None)\n",
    "hasattr": "def f(x):\n    if hasattr(x, 'args'):\n        return 1\n",
    "a per-kind field": "def f(context):\n    if not context.services:\n        return 1\n",
    "the kind's name": "def f(kind):\n    return kind.name == 'stdin-program'\n",
    "a runner's class": "def f(runner):\n    return isinstance(runner, ProcessRunner)\n",
    "type().__name__": "def f(x):\n    return type(x).__name__ == 'PythonFunction'\n",
    "a presentation's class": "def f(p):\n    return isinstance(p, RunPresentation)\n",
    "an imported alias": "from divergent.records import TextInput as T\ndef f(x):\n    return isinstance(x, T)\n",
    "another module's alias": "from divergent.programs import Implementation\ndef f(x):\n"
                              "    return isinstance(x, Implementation)\n",
    "the kind's instance": "def f(kind):\n    return kind is STDIN_PROGRAMS\n",
    "a match": "def f(x):\n    match x:\n        case TextInput():\n            return 1\n",
    "a list of kinds": "KINDS = ('python-function', 'command')\n",
    "a per-kind field is None": "def f(context):\n    return context.services is None\n",
}
#: what looks alike and asks nothing about the kind
NOT_BRANCHES = (
    "def f(x, kind, other):\n    if isinstance(x, int) or getattr(x, 'label', None) or hasattr(x, 'close'):\n"
    "        return type(x).__name__ == 'int' or kind.name == other.name or kind is other\n"
    "    return [kind.name for kind in ALL] + ['python', 'function']\n"
)


def probes_vocabulary() -> rules.KindVocabulary:
    """The package's vocabulary, with ``services`` a holder's optional per-kind field (EngineContext's
    once), in case no holder has one any more."""
    return dataclasses.replace(rules.kind_vocabulary(), probes=rules.kind_vocabulary().probes | {"services"})


def test_the_kind_rule_sees_every_way_to_branch() -> None:
    vocabulary = probes_vocabulary()
    for way, probe in PROBES.items():
        tree = ast.parse(probe)
        assert len(rules.kind_branches(tree, vocabulary, rules.imported_aliases(tree))) == 1, (way, probe)
    assert rules.kind_branches(ast.parse(NOT_BRANCHES), vocabulary) == []


def test_the_kind_rule_fails_on_a_branch_in_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each probe, put into the search loop, is an offence the guarding test reports."""
    loop, syntax = modules()["search.loop"], rules.syntax
    assert not offending(branches_on_the_kind(["search.loop"], probes_vocabulary()))
    for way, probe in PROBES.items():
        with_probe = ast.Module(body=[*syntax(loop).body, *ast.parse(probe).body], type_ignores=[])
        monkeypatch.setattr(rules, "syntax", lambda path, tree=with_probe: tree if path == loop else syntax(path))
        assert len(offending(branches_on_the_kind(["search.loop"], probes_vocabulary()))) == 1, way


def test_no_command_function_takes_more_than_eight_parameters() -> None:
    """A command takes its flags as records (option groups, divergent.cli.option_groups), not one
    parameter per flag: no function of the command line that is a command (decorated with
    ``.command``/``.callback``, or handed to ``.command(...)`` or ``with_option_groups``) takes more
    than eight parameters. The rule checks itself on a probe first."""

    def commands(source: str) -> dict[str, int]:
        tree = ast.parse(source)
        handed = {arg.id for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and any(word in ast.unparse(node.func) for word in (".command", "with_option_groups"))
                  for arg in node.args if isinstance(arg, ast.Name)}
        found = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (node.name in handed or any(
                    word in ast.unparse(d) for d in node.decorator_list for word in (".command", ".callback"))):
                args = node.args
                found[node.name] = len([a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                                        if a.arg not in ("self", "cls")])
        return found

    probe = ("@app.command('x')\ndef wide(a, b, c, d, e, f, g, h, i): ...\n"
             "def nested(a, b, c, d, e, f, g, h, i): ...\ngroup.command('y')(with_option_groups(nested))\n"
             "@app.command('z')\n@with_option_groups\ndef narrow(path, flags): ...\n"
             "def helper(a, b, c, d, e, f, g, h, i): ...\n")
    assert commands(probe) == {"wide": 9, "nested": 9, "narrow": 2}
    wide = {f"cli/{path.name}:{name}": count for path in sorted((PACKAGE / "cli").glob("*.py"))
            for name, count in commands(path.read_text()).items() if count > 8}
    assert not wide, f"commands with more than 8 parameters (take an option group instead): {wide}"
