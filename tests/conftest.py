"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scripted_openai import ScriptedOpenAI


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
