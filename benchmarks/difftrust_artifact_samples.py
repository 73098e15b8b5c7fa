"""Every model's MBPP samples and per-task logs from a checkout of the incoherence paper's artifact.

``shared/data/difftrust`` ships MBPP samples and logs for three configurations only. The authors'
public artifact (https://github.com/mpi-softsec/difftrust; the paper's Sec. 6.4) holds all 16 models
at T = 0.6: per model, ``MBPP/.experiments-ablation-samples/<model>_temp0.6/cache/candidates_<task>``
(pickles) and ``logs/experiment-pointwise_10_candidate.json``. This writes them in the layout
``reproduce_difftrust.py`` reads, so that the MBPP comparison runs on every model::

    python benchmarks/difftrust_artifact_samples.py ARTIFACT_CHECKOUT OUT_DIR
    DIVERGENT_BENCH_DATA=OUT_DIR python benchmarks/reproduce_difftrust.py --benchmark mbpp

``OUT_DIR`` gets ``candidates_MBPP_dev.jsonl.gz`` (the shared format), ``MBPP/experiments/<model>_temp0.6/
logs/`` and a copy of ``MBPP/data`` from the checkout.

The caches are pickles written by the artifact: untrusted data. Nothing in them runs. The unpickler
resolves every class a pickle names to an inert placeholder that only keeps the state it is given,
so what comes out is plain strings, lists and dicts; a pickle that asks for anything else (a call
with arguments, an unknown opcode) fails to load and is reported.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import pickle
import shutil
import sys
from pathlib import Path
from typing import Any

SAMPLES_DIR = Path("MBPP") / ".experiments-ablation-samples"
LOG_NAME = "experiment-pointwise_10_candidate.json"


class _Inert:
    """What every class named in a pickle becomes: it keeps the state the pickle sets, no more."""

    state: Any = None

    def __setstate__(self, state: Any) -> None:
        self.state = state


class InertUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        # A fresh subclass per name, and never the class the pickle names: nothing of the
        # artifact (or anything else) is imported or called.
        return type(f"{module}.{name}", (_Inert,), {})


def _state(value: Any) -> dict:
    state = getattr(value, "state", None)
    return state if isinstance(state, dict) else {}


def candidates(data: bytes) -> list[dict[str, Any]]:
    """The ``{code, name, signature}`` of each function in one cache file, in order."""
    items = InertUnpickler(io.BytesIO(data)).load()
    if not isinstance(items, list):
        raise ValueError(f"expected a list of functions, got {type(items).__name__}")
    found = []
    for item in items:
        state = _state(item)
        code, spec = state.get("code"), _state(state.get("spec"))
        if not isinstance(code, str):
            raise ValueError("a function without source code")
        found.append({"code": code, "name": spec.get("name"), "signature": spec.get("signature")})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact", type=Path, help="a checkout of the artifact (holds MBPP/)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--temperature", default="0.6")
    options = parser.parse_args()
    source = options.artifact / SAMPLES_DIR
    if not source.is_dir():
        sys.exit(f"{source}: not found; give the root of a checkout of the artifact")
    options.out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(options.artifact / "MBPP" / ".data", options.out / "MBPP" / "data", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.pkl"))
    suffix = f"_temp{options.temperature}"
    with gzip.open(options.out / "candidates_MBPP_dev.jsonl.gz", "wt", encoding="utf-8") as out:
        for directory in sorted(d for d in source.iterdir() if d.name.endswith(suffix)):
            model = directory.name[: -len(suffix)]
            log = directory / "logs" / LOG_NAME
            if not log.is_file():
                print(f"{model}: no {LOG_NAME}; skipped")
                continue
            logs = options.out / "MBPP" / "experiments" / directory.name / "logs"
            logs.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, logs / LOG_NAME)
            written = problems = 0
            for cache in sorted((directory / "cache").glob("candidates_*")):
                task = cache.name.removeprefix("candidates_")
                try:
                    found = candidates(cache.read_bytes())
                except (pickle.UnpicklingError, ValueError, TypeError, EOFError) as error:
                    print(f"{model}/{cache.name}: not read ({error})")
                    problems += 1
                    continue
                for index, item in enumerate(found):
                    record = {"dataset": "MBPP", "model": model, "temperature": float(options.temperature),
                              "kind": "candidates", "task_id": int(task) if task.isdigit() else task,
                              "entry_point": item["name"], "signature": item["signature"], "index": index,
                              "code": item["code"]}  # fmt: skip
                    out.write(json.dumps(record) + "\n")
                    written += 1
            print(f"{model}: {written} samples" + (f", {problems} cache files not read" if problems else ""))


if __name__ == "__main__":
    main()
