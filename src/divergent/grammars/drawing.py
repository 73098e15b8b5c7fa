"""Running Hypothesis outside a test, in divergent's own process: its storage in divergent's cache
directory (never ``.hypothesis`` in the user's working directory), no scanning of divergent's
modules for constants, and :func:`draw`, one seeded, generate-only run that collects what a
strategy draws (how the grammars sample regular expressions).

Hypothesis keeps nothing there but its table of Unicode categories (the runs have no example
database): a table built by scanning every code point, 0.1-0.35 s of the first draw of text in a
process, which a fresh directory per process paid on every check.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from divergent import paths

__all__ = ["cache_home", "draw", "skip_scanning_loaded_modules", "storage_outside_working_directory"]

#: one Hypothesis run at a time in this process (its storage setting is global)
_RUNNING = threading.RLock()

_scratch_home: tempfile.TemporaryDirectory[str] | None = None
#: Hypothesis' home for divergent's runs, once chosen (see :func:`_home`)
_chosen_home: str | None = None


@contextmanager
def storage_outside_working_directory() -> Iterator[None]:
    """Point Hypothesis' storage at divergent's cache directory for the duration of a run (one run
    at a time: the setting is the process's)."""
    with _RUNNING:
        yield from _private_storage()


def cache_home() -> str:
    """Where divergent keeps Hypothesis' storage: the ``hypothesis`` cache
    (:func:`divergent.paths.cache_dir`), private to the user."""
    return str(paths.cache_dir("hypothesis"))


def _home() -> str:
    """The cache home when it can be created and written, else a private temporary directory
    (removed at exit; the Unicode table is then rebuilt once per process)."""
    global _chosen_home, _scratch_home
    if _chosen_home is None:
        home = cache_home()
        try:
            os.makedirs(home, mode=0o700, exist_ok=True)
            usable = os.access(home, os.W_OK | os.X_OK)
        except OSError:
            usable = False
        if not usable:
            _scratch_home = tempfile.TemporaryDirectory(prefix="divergent-hypothesis-")
            home = _scratch_home.name
        _warm_unicode_table(home)
        _chosen_home = home
    return _chosen_home


def _warm_unicode_table(home: str) -> None:
    """A new home (``DIVERGENT_HOME`` moves the caches: a test, a second profile) gets Hypothesis'
    Unicode table copied from the user's own cache when that has one: the table depends only on
    Python's Unicode version, and building it takes seconds of a search's budget."""
    table = os.path.join(home, "unicode_data")
    if os.path.isdir(table) or not os.environ.get(paths.HOME_VARIABLE):
        return
    without_home = {name: value for name, value in os.environ.items() if name != paths.HOME_VARIABLE}
    built = paths.cache_dir("hypothesis", without_home) / "unicode_data"
    if built.is_dir():
        with contextlib.suppress(OSError):
            shutil.copytree(built, table, dirs_exist_ok=True)


def _private_storage() -> Iterator[None]:
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield  # the user said where Hypothesis writes
        return
    from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

    previous = storage_directory(intent_to_write=False).home_directory
    set_hypothesis_home_dir(_home())
    try:
        yield
    finally:
        set_hypothesis_home_dir(previous)


def skip_scanning_loaded_modules() -> None:
    """Tell Hypothesis that every module loaded so far was already scanned for constants.

    Hypothesis mixes constants from the *local* modules loaded in its process into its draws, and
    scans every newly loaded one (parsing its source) whenever ``sys.modules`` grows. Here that
    process is divergent's own: the programs under test never load in it, their constants are
    harvested by divergent itself (:mod:`divergent.engines.constants`), and the scan would parse
    divergent's own source (about a second, again after every lazy import). Hypothesis has no
    setting for this; where its internals differ (another version), nothing is changed.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        return
    seen = getattr(providers, "_seen_modules", None)
    if not isinstance(seen, set) or not hasattr(providers, "_sys_modules_len"):
        return
    try:
        modules = list(sys.modules.values())
    except RuntimeError:  # another thread imported a module meanwhile: the next run catches up
        return
    if providers._sys_modules_len == len(modules):
        return
    seen.update(id(module) for module in modules)
    providers._sys_modules_len = len(modules)


def draw(strategy: Any, count: int, seed: int) -> list[Any]:
    """``count`` draws of ``strategy`` in one seeded, generate-only Hypothesis run."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings

    drawn: list[Any] = []

    @settings(
        max_examples=count, database=None, deadline=None, phases=[Phase.generate],
        suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, print_blob=False,
    )  # fmt: skip
    @hypothesis.seed(seed)
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    skip_scanning_loaded_modules()
    with storage_outside_working_directory(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collect()
    return drawn
