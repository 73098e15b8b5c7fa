"""The benchmark type: a dataset, a solver and a scorer (the shape of Inspect AI's ``Task``), and
the registry of divergent's benchmarks.

A :class:`Benchmark` is one benchmark as divergent runs it (``divergent bench NAME``, ``divergent
incoherence``): an instance per benchmark, declared beside its harness, found by name or by the
kind of a stored run in the registry of the command line (:mod:`divergent.cli.benchmarks`: it names
benchmarks of this package and above it), never by a naming convention.

* Its **options** are one record (``Config``: :class:`~divergent.bench.equibench.run.EquiBenchConfig`,
  ...), what its command's option group builds (:mod:`divergent.cli.harness`).
* Its **dataset** and **solver** meet in :attr:`Benchmark.work`: from the options it makes each
  stored run's :class:`~divergent.bench.common.RunPlan` (the run's identity, its items, the picklable
  solver called on each) and works it on the :class:`Workbench` (the store, the executor, the
  models), resuming what is stored (:func:`~divergent.bench.common.run_plan`).
* Its **scorer** is :attr:`Benchmark.summarize` (every figure from a stored run's results alone, so
  a stored run is shown again with nothing running) and :attr:`Benchmark.document` (those figures as
  the results envelope, ``--json``); :attr:`Benchmark.page` draws that document as an HTML page.

A new benchmark is a package under ``bench/`` whose run module declares its instance, one line in
:data:`divergent.cli.benchmarks.BENCHMARKS`, and its command (a module in ``cli/`` built on
:mod:`divergent.cli.harness`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from divergent.bench.common import ItemProgress
from divergent.errors import InvalidArgument
from divergent.executors.base import Executor, ThreadExecutor

if TYPE_CHECKING:
    from divergent.llm.chat import ChatModel
    from divergent.store import RunRecord, Store

__all__ = ["Benchmark", "Workbench", "Worked", "imported"]

Config = TypeVar("Config")
Summary = TypeVar("Summary")

@dataclass(frozen=True)
class Workbench:
    """What a benchmark's run works with: the store (its runs, the models' response cache), where
    the items are worked on, the models it may ask, and who hears of each saved item."""

    store: Store
    executor: Executor = field(default_factory=ThreadExecutor)
    #: the model that answers (a judge, a strategy's model); None: the run asks none
    chat: ChatModel | None = None
    #: the model that reads answers the parser cannot (None: ``chat``)
    extractor: ChatModel | None = None
    on_progress: Callable[[ItemProgress], None] | None = None

    def served(self) -> tuple[ChatModel | None, ChatModel | None]:
        """The models as the executor's workers call them (on a cluster, stand-ins for the driver's
        clients): the chat, and the extractor (the chat itself when none was given)."""
        chat = self.executor.serve_model(self.chat) if self.chat is not None else None
        if self.extractor is None or self.extractor is self.chat:
            return chat, chat
        return chat, self.executor.serve_model(self.extractor)

    def progress(self, state: ItemProgress) -> None:
        if self.on_progress is not None:
            self.on_progress(state)


@dataclass
class Worked:
    """What working a benchmark did: its stored run (the last, for one run per strategy), how it
    went, and what the run has to say beside the progress' messages."""

    run: RunRecord
    progress: ItemProgress
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Benchmark(Generic[Config, Summary]):
    """A benchmark: its options, dataset and solver (``work``), and its scorer (see the module
    docstring)."""

    #: its name: ``divergent bench NAME``, its results' ``benchmark``
    name: str
    #: as tables and messages name it ("EquiBench")
    title: str
    #: the store's kinds of its runs
    kinds: tuple[str, ...]
    #: the record of its options
    options: type[Config]
    #: the dataset through the solver: the stored run(s) the options make, worked (resumed) on the workbench
    work: Callable[[Config, Workbench], Worked]
    #: the scorer: every figure of a stored run, from its stored results alone
    summarize: Callable[[Store, RunRecord], Summary]
    #: the figures as the results envelope (:func:`~divergent.bench.common.results_envelope`)
    document: Callable[[Summary], dict[str, Any]]
    #: "module:function" drawing a document as an HTML page (imported when asked for); "": none
    page: str = ""

    def html(self, document: Mapping[str, Any], **options: Any) -> Any:
        """The document's HTML page (:class:`~divergent.report.blocks.Page`)."""
        if not self.page:
            raise InvalidArgument(f"--html: a {self.title} run has no HTML report")
        return imported(self.page)(document, **options)

    def report(self, store: Store, run: RunRecord) -> dict[str, Any]:
        """A stored run's results document (nothing runs)."""
        return self.document(self.summarize(store, run))


def imported(dotted: str) -> Any:
    """The attribute ``module:attribute`` names (its module imported now)."""
    module_name, _, attribute = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attribute)
