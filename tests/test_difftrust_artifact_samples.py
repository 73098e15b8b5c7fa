"""benchmarks/difftrust_artifact_samples.py reads the artifact's pickled sample caches without running
anything in them."""

from __future__ import annotations

import gzip
import importlib.util
import json
import pickle
import sys
import types
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "difftrust_artifact_samples.py"


@pytest.fixture(scope="module")
def converter() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("difftrust_artifact_samples", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _artifact_pickle(functions: list[tuple[str, str]]) -> bytes:
    """Pickles shaped like the artifact's caches: a list of Function(spec=Specification(...), code)."""
    names = ("difftrust", "difftrust.core", "difftrust.core.function", "difftrust.core.specification")
    modules = {name: types.ModuleType(name) for name in names}

    class Specification:
        pass

    class Function:
        pass

    for cls, module in ((Function, "difftrust.core.function"), (Specification, "difftrust.core.specification")):
        cls.__qualname__, cls.__module__ = cls.__name__, module  # as if defined in the artifact
        setattr(modules[module], cls.__name__, cls)
    items = []
    for name, code in functions:
        spec = Specification()
        spec.__dict__.update(name=name, signature="(x)", description="d")
        function = Function()
        function.__dict__.update(spec=spec, code=code)
        items.append(function)
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        return pickle.dumps(items, protocol=5)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


class _Hostile:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple:
        return (Path.write_text, (self.path, "ran"))


def test_the_caches_come_out_as_plain_data(converter: types.ModuleType) -> None:
    data = _artifact_pickle([("f", "def f(x):\n    return x\n"), ("f", "def f(x):\n    return -x\n")])
    assert converter.candidates(data) == [
        {"code": "def f(x):\n    return x\n", "name": "f", "signature": "(x)"},
        {"code": "def f(x):\n    return -x\n", "name": "f", "signature": "(x)"},
    ]


def test_a_pickle_that_calls_something_fails_and_runs_nothing(converter: types.ModuleType, tmp_path: Path) -> None:
    target = tmp_path / "touched"
    with pytest.raises(TypeError):
        converter.candidates(pickle.dumps([_Hostile(target)]))
    assert not target.exists()


def test_the_layout_reproduce_difftrust_reads(converter: types.ModuleType, tmp_path: Path, monkeypatch) -> None:
    artifact, out = tmp_path / "artifact", tmp_path / "out"
    model = artifact / "MBPP" / ".experiments-ablation-samples" / "toy_temp0.6"
    (model / "cache").mkdir(parents=True)
    (model / "logs").mkdir()
    (artifact / "MBPP" / ".data").mkdir()
    (artifact / "MBPP" / ".data" / "sanitized-mbpp.json").write_text("[]")
    (model / "cache" / "candidates_7").write_bytes(_artifact_pickle([("f", "def f(x):\n    return x\n")]))
    (model / "cache" / "candidates_8").write_bytes(pickle.dumps([_Hostile(tmp_path / "touched")]))
    log = [{"name": "f", "task_id": 7, "Dis": 0.0, "Err": 0.0, "TotalTime": 1.0}]
    (model / "logs" / "experiment-pointwise_10_candidate.json").write_text(json.dumps(log))
    monkeypatch.setattr(sys, "argv", ["convert", str(artifact), str(out)])
    converter.main()
    with gzip.open(out / "candidates_MBPP_dev.jsonl.gz", "rt") as lines:
        records = [json.loads(line) for line in lines]
    assert records == [{"dataset": "MBPP", "model": "toy", "temperature": 0.6, "kind": "candidates", "task_id": 7,
                        "entry_point": "f", "signature": "(x)", "index": 0, "code": "def f(x):\n    return x\n"}]
    assert json.loads((out / "MBPP/experiments/toy_temp0.6/logs/experiment-pointwise_10_candidate.json").read_text()) == log
    assert (out / "MBPP" / "data" / "sanitized-mbpp.json").is_file()
    assert not (tmp_path / "touched").exists()
