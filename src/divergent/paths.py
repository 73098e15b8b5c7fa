"""Where divergent keeps its files: one place that reads ``DIVERGENT_HOME`` and the XDG variables.

================  ===============================  =====================================================
what              with ``DIVERGENT_HOME=H``        without it
================  ===============================  =====================================================
data (the store)  ``H``                            ``$XDG_DATA_HOME/divergent`` (``~/.local/share/divergent``)
config            ``H``                            ``$XDG_CONFIG_HOME/divergent`` (``~/.config/divergent``)
caches            ``H/cache/NAME``                 ``$XDG_CACHE_HOME/divergent/NAME`` (``~/.cache/divergent/NAME``)
================  ===============================  =====================================================

So one variable moves everything divergent writes (a test, a CI job, a second profile); the caches
(built programs, saved inputs, Hypothesis' storage) are only ever re-made, never a result. Each
function reads the environment when called (``environ``: another mapping, for tests)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["cache_dir", "config_dir", "data_dir", "divergent_home"]

HOME_VARIABLE = "DIVERGENT_HOME"


def divergent_home(environ: Mapping[str, str] | None = None) -> Path | None:
    """``$DIVERGENT_HOME`` (user-expanded), None when it is not set."""
    home = (os.environ if environ is None else environ).get(HOME_VARIABLE)
    return Path(home).expanduser() if home else None


def _xdg(variable: str, fallback: tuple[str, ...], environ: Mapping[str, str] | None) -> Path:
    value = (os.environ if environ is None else environ).get(variable)
    return (Path(value).expanduser() if value else Path.home().joinpath(*fallback)) / "divergent"


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the store and installed data live."""
    return divergent_home(environ) or _xdg("XDG_DATA_HOME", (".local", "share"), environ)


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where ``config.toml`` lives."""
    return divergent_home(environ) or _xdg("XDG_CONFIG_HOME", (".config",), environ)


def cache_dir(name: str, environ: Mapping[str, str] | None = None) -> Path:
    """The cache called ``name`` (``builds``, ``inputs``, ``hypothesis``)."""
    home = divergent_home(environ)
    return (home / "cache" if home is not None else _xdg("XDG_CACHE_HOME", (".cache",), environ)) / name
