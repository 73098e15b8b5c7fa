"""``divergent diff FIX~1 FIX`` on real history nobody here wrote: every commit of the ``realbugs/``
suite (73 bug fixes and 17 refactorings of 15 projects; ``realbugs/*/meta.json`` names each commit and
its parent), run in a clone of the project's mirror.

For each commit: the functions the change touches, how many were checked and how many skipped (and
why), which changed behaviour (with the counterexample), whether the suite's own function is among
them. The summary: how many fixes are flagged (at least one function changed), how many flags
the refactorings got (the goal is 0; each is listed, to be checked by hand), functions per commit.

    python benchmarks/diff_history.py [--mirrors /work/.mirror] [--budget-per-function 3]
        [--budget 120] [--jobs 1] [--only REPO] [--plan-only] [--out benchmarks/results/diff_history.jsonl]

The mirrors are fetched as ``MIRRORS/owner+name/repo`` (bare git repositories, as for
``suite.py materialize``); each is cloned once without a checkout into a scratch folder (the diff
reads revisions only). As in the projects' developers' environments, the projects' distributions and
dependencies are installed (``pip install --no-deps humanize dnspython six``: a package whose
``__init__`` reads its own distribution's metadata, or imports them) and what an editable install
writes into the work tree is there (:data:`BUILT_FILES`); the repository's own code at each
revision is what runs (its tree comes first on ``sys.path``)."""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SUITE = ROOT / "realbugs"


def commits(only: str | None = None) -> list[dict]:
    """One entry per distinct (repository, commit) of the suite: its kind and the suite's functions."""
    found: dict[tuple[str, str], dict] = {}
    for meta_file in sorted(SUITE.glob("*/meta.json")):
        meta = json.loads(meta_file.read_text())
        provenance = meta["provenance"]
        repository = provenance["repository"].removeprefix("https://github.com/")
        if only and only not in repository:
            continue
        key = (repository, provenance["commit_b"])
        entry = found.setdefault(key, {"repository": repository, "commit": provenance["commit_b"],
                                       "parent": provenance["commit_a"], "kind": provenance["kind"],
                                       "subject": provenance.get("subject_b", ""), "pairs": [], "functions": []})
        entry["pairs"].append(meta_file.parent.name)
        entry["functions"].append(meta["function"])
        if provenance["kind"] == "fix":
            entry["kind"] = "fix"  # a commit that is a fix for one pair is a fix
    return list(found.values())


#: what installing a project writes into its work tree (``pip install -e .`` with setuptools_scm): the
#: version module its package imports and git ignores; ``divergent diff`` lends it to the revisions
BUILT_FILES = {
    "python-humanize/humanize": {"src/humanize/_version.py": "__version__ = version = '0.0.0'\n"},
    "urllib3/urllib3": {"src/urllib3/_version.py": "__version__ = version = '2.0.0'\n"},
}


def clone(mirrors: Path, repository: str, scratch: Path) -> Path:
    target = scratch / repository.replace("/", "+")
    if not target.is_dir():
        source = mirrors / repository.replace("/", "+") / "repo"
        if not source.is_dir():
            raise SystemExit(f"no mirror of {repository} at {source}: fetch it first (see benchmarks/README.md)")
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(source), str(target)], check=True)
    for name, text in BUILT_FILES.get(repository, {}).items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(text)
        exclude = target / ".git" / "info" / "exclude"
        if name not in exclude.read_text():
            exclude.write_text(exclude.read_text() + name + "\n")
    return target


def run_commit(entry: dict, work: Path, args: argparse.Namespace) -> dict:
    from divergent.changes import DiffSettings, plan_diff, run_diff
    from divergent.kinds.options import SearchOptions

    started = time.monotonic()
    plan = plan_diff([entry["parent"], entry["commit"]], cwd=work)
    planned = time.monotonic() - started
    record = {key: entry[key] for key in ("repository", "commit", "kind", "subject", "pairs", "functions")}
    record["plan_seconds"] = round(planned, 2)
    record["touched"] = len(plan.functions)
    record["tests_not_compared"] = plan.tests
    record["skip_reasons"] = collections.Counter(_reason(f.reason) for f in plan.skipped)
    record["statuses"] = collections.Counter(f.status for f in plan.functions)
    if args.plan_only:
        record["planned"] = [(f.name, f.status, f.why, f.reason) for f in plan.functions]
        return record
    settings = DiffSettings(options=SearchOptions(), budget_per_function=args.budget_per_function,
                            budget=args.budget, jobs=args.jobs)
    result = run_diff(plan, settings)
    record["seconds"] = round(result.seconds, 2)
    record["outcomes"] = collections.Counter(r.status for r in result.results)
    record["unjudged_reasons"] = collections.Counter(
        _reason(r.reason) for r in result.results if r.status in ("skipped", "too-few-inputs", "error", "not-run"))
    record["errors"] = [(r.function.name, r.reason[:300]) for r in result.results if r.status == "error"][:5]
    record["changed"] = [{"function": r.function.name, "counterexample": r.counterexample(), "why": r.function.why}
                         for r in result.changed]
    suite_functions = set(entry["functions"])
    record["suite_function_changed"] = any(r.function.qualname in suite_functions for r in result.changed)
    record["suite_function_status"] = {r.function.qualname: r.status for r in result.results
                                       if r.function.qualname in suite_functions}
    record["exit_code"] = result.exit_code
    return record


def _reason(text: str) -> str:
    """A reason without its particulars, to count them."""
    for prefix in ("signature changed", "instance method", "property", "async", "no way to make inputs",
                   "cannot generate inputs", "does not load", "was a", "the diff's --budget", "class method",
                   "static method"):
        if text.startswith(prefix) or prefix in text[:40]:
            return prefix
    return text.split(":")[0][:60] or "-"


def summary(records: list[dict]) -> None:
    fixes = [r for r in records if r["kind"] == "fix"]
    refactorings = [r for r in records if r["kind"] != "fix"]
    print(f"\n{len(records)} commits: {len(fixes)} fixes, {len(refactorings)} refactorings")
    touched = [r["touched"] for r in records]
    print(f"functions touched per commit: median {statistics.median(touched)}, max {max(touched)}, "
          f"total {sum(touched)}")
    statuses = collections.Counter()
    for r in records:
        statuses.update(r.get("outcomes") or r["statuses"])
    print("functions by status:", dict(statuses))
    reasons = collections.Counter()
    for r in records:
        reasons.update(r.get("unjudged_reasons") or r["skip_reasons"])
    print("not judged, by reason:", dict(reasons))
    if "outcomes" not in records[0]:
        return
    flagged = [r for r in fixes if r["changed"]]
    suite = [r for r in fixes if r["suite_function_changed"]]
    print(f"fixes flagged (a function changed): {len(flagged)}/{len(fixes)}; the suite's own function flagged: "
          f"{len(suite)}/{len(fixes)}")
    print(f"fix commits' seconds: median {statistics.median(r['seconds'] for r in fixes):.1f}")
    flags = sum(len(r["changed"]) for r in refactorings)
    print(f"refactorings: {flags} function(s) flagged in {sum(bool(r['changed']) for r in refactorings)}"
          f"/{len(refactorings)} commits")
    for r in refactorings:
        for changed in r["changed"]:
            print(f"  {r['repository']} {r['commit'][:8]} {changed['function']}: {changed['counterexample']}")
    print("fixes not flagged:")
    for r in fixes:
        if not r["changed"]:
            print(f"  {r['repository']} {r['commit'][:8]} {r['functions']}: {dict(r['outcomes'])} "
                  f"{dict(r['unjudged_reasons'])} {r['suite_function_status']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/divergent-diff-history"))
    parser.add_argument("--budget-per-function", type=float, default=3.0)
    parser.add_argument("--budget", type=float, default=120.0, help="seconds per commit (the whole diff's)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", help="only the repositories whose name holds this")
    parser.add_argument("--plan-only", action="store_true", help="the plans, no search")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "diff_history.jsonl")
    parser.add_argument("--summary", action="store_true", help="print the summary of --out, running nothing")
    args = parser.parse_args()
    if args.summary:
        summary([json.loads(line) for line in args.out.read_text().splitlines() if line.strip()])
        return 0
    args.scratch.mkdir(parents=True, exist_ok=True)
    records = []
    done = set()
    if args.out.exists() and not args.plan_only:
        for line in args.out.read_text().splitlines():
            record = json.loads(line)
            records.append(record)
            done.add((record["repository"], record["commit"]))
    for entry in commits(args.only):
        if (entry["repository"], entry["commit"]) in done:
            continue
        work = clone(args.mirrors, entry["repository"], args.scratch)
        try:
            record = run_commit(entry, work, args)
        except Exception as error:  # noqa: BLE001 - one commit's failure is reported, the others go on
            print(f"{entry['repository']} {entry['commit'][:8]}: failed: {type(error).__name__}: {error}", flush=True)
            continue
        records.append(record)
        line = (f"{entry['repository']:32} {entry['commit'][:8]} {entry['kind']:11} touched {record['touched']:3} "
                f"{dict(record.get('outcomes') or record['statuses'])}")
        print(line, flush=True)
        if not args.plan_only:
            with args.out.open("a") as out:
                out.write(json.dumps(record) + "\n")
    summary(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
