"""Shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Imported once for the session: under pytest, Hypothesis' import (its modules rewritten by pytest's
# assertion rewriting) takes seconds, which the first test with a short budget would otherwise pay
# out of its search time.
import divergent.engines.calls.hypothesis  # noqa: F401
from scripted_openai import ScriptedOpenAI

# The recorded benchmark data (the DiffTrust artifact's layout) is found through $DIVERGENT_BENCH_DATA
# (docs/incoherence.md); on the development machine it is shared/data/difftrust beside the checkout.
# Tests that need it skip without it.
_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "difftrust"
if _SHARED_DATA.is_dir():
    os.environ.setdefault("DIVERGENT_BENCH_DATA", str(_SHARED_DATA))


@pytest.fixture
def openai_server() -> Iterator[ScriptedOpenAI]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (see tests/scripted_openai.py)."""
    with ScriptedOpenAI() as server:
        yield server


@pytest.fixture
def llm_home(tmp_path, monkeypatch) -> Iterator:
    """A private DIVERGENT_HOME (store and response cache) and a dummy key, no real endpoint."""
    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    yield tmp_path / "home"


# -- whole programs ------------------------------------------------------------------------------

#: the Debian package of each tool the whole-program tests need (``.ci/run`` installs them)
TOOLCHAIN_PACKAGES = {"gcc": "gcc", "g++": "g++", "javac": "default-jdk-headless", "java": "default-jdk-headless"}


def need_tool(tool: str) -> None:
    """Skip a test whose toolchain is missing, saying what to install; on CI (``CI`` set) fail
    instead: there the tests of every language must run."""
    import os
    import shutil

    if shutil.which(tool) is None:
        message = f"{tool} is not installed (apt-get install {TOOLCHAIN_PACKAGES.get(tool, tool)}; `make test-tools`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[str]:
    """A 2-CPU Ray head started (and stopped) by this process, for one test module; yields its
    address for other drivers. ray.init also sets RAY_AUTH_MODE=token in this process's
    environment, which lets the CLI subprocesses (they inherit it) authenticate to the head."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'divergent[ray]')")
    import logging

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory) -> str:
    """One build cache for the whole test session: each program is compiled once."""
    return str(tmp_path_factory.mktemp("builds"))


@pytest.fixture(scope="session")
def programs_dir(tmp_path_factory):
    """A directory for the session's program sources (shared, so their builds are shared too)."""
    return tmp_path_factory.mktemp("programs")
