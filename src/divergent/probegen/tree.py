"""The ProbeGen tree: one model of its nodes, and one JSON file format, for the search and the analysis.

A :class:`ProbeGenSession <divergent.probegen.session.ProbeGenSession>` grows a tree of
:class:`ProbeNode` (one model call each, with its prompt, answer, generator run, probes and feedback)
and writes it as a :class:`ProbeTree`; the strategy analysis (:mod:`divergent.probegen.analysis`)
reads the same files into the same model. What counts there is a node's ``success`` (its input made
the implementations differ and the spurious-counterexample filter, when there was one, agreed): a
success ends its branch.

Tree files (JSON)::

    {
      "format": "divergent.probegen-tree",   # required, exactly this
      "version": 1,                          # required
      "pair": "clamp_nan",                   # required: a label for the implementations compared
      "K": 5, "D": 5,                        # branching and depth the tree was sampled with
                                             #   (null for a search tree; the analysis requires them)
      "model": "gpt-4o-mini",                # optional, informational (so are any other top-level
                                             #   keys: the session writes the function, the sources'
                                             #   labels, the system prompt, the usage...)
      "prompt": "...",                       # optional: the first prompt (the root is no model call)
      "children": [ NODE, ... ]              # required: the first turn's samples
    }

    NODE = {
      "path": "0.3",                         # optional: child indices from the root
      "differentiating": false,              # required: an input of this node made the implementations differ
      "success": false,                      # optional (default: differentiating): differentiating and
                                             #   accepted by the spurious-counterexample filter
      "usage": {"prompt_tokens": 812,        # optional: what the node's model call cost
                "completion_tokens": 240, "cost": 0.0004, "calls": 1, "cached_calls": 0},
      "children": [ NODE, ... ],             # the next turn's samples (absent: none)
      ...                                    # the session also writes index, depth, prompt, answer,
    }                                        #   code, generator, probes, feedback, error, seconds

Reading checks the structure and the types (:class:`TreeFormatError` names the file and the node);
whether a tree is *full*, as the analysis needs, is the analysis's check.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from divergent.errors import InvalidArgument
from divergent.llm.chat import Usage
from divergent.records import Input, Observation

__all__ = [
    "TREE_FORMAT",
    "TREE_VERSION",
    "ProbeNode",
    "ProbeResult",
    "ProbeTree",
    "TreeFormatError",
    "read_tree",
    "tree_from_json",
    "write_tree",
]

TREE_FORMAT = "divergent.probegen-tree"
TREE_VERSION = 1


class TreeFormatError(InvalidArgument):
    """A document that is not a valid ProbeGen tree (the message names the file and the node)."""


@dataclass
class ProbeResult:
    """One input of a node, with what every implementation did (rendered), or why it was not run."""

    call: str
    outputs: tuple[str, ...] = ()
    #: behaviour classes (implementation indices); one class = all the same
    classes: tuple[tuple[int, ...], ...] = ()
    differentiating: bool = False
    #: the accept hook's word on a differentiating input (None: not asked)
    accepted: bool | None = None
    #: why it was not run (annotations, precondition), or "" when it ran
    rejected: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "outputs": list(self.outputs),
            "classes": [list(c) for c in self.classes],
            "differentiating": self.differentiating,
            "accepted": self.accepted,
            "rejected": self.rejected,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProbeResult:
        return cls(
            call=str(data.get("call", "")),
            outputs=tuple(data.get("outputs", ())),
            classes=tuple(tuple(c) for c in data.get("classes", ())),
            differentiating=bool(data.get("differentiating", False)),
            accepted=data.get("accepted"),
            rejected=str(data.get("rejected", "")),
        )


@dataclass
class ProbeNode:
    """One model call of the tree: its prompt, answer, generator run, probes and feedback.

    The root (``path == ""``, depth 0) is not a call: it holds the first prompt's children.
    """

    path: str = ""
    depth: int = 0
    #: position among its siblings; also the call's ``sample_index``
    index: int = 0
    parent: ProbeNode | None = field(default=None, repr=False, compare=False)
    children: list[ProbeNode] = field(default_factory=list, repr=False)
    #: the last user message sent (the task for depth 1, the parent's feedback below)
    prompt: str = ""
    answer: str = ""
    code: str | None = None
    #: how the generator run ended (as ``GeneratedInputs.as_dict``), None when there was no code
    generator: dict[str, Any] | None = None
    probes: list[ProbeResult] = field(default_factory=list)
    #: what the children of this node are told about it
    feedback: str = ""
    #: some input it produced made the implementations differ
    differentiating: bool = False
    #: differentiating, and the accept hook took at least one such input: the search may stop here
    success: bool = False
    #: the model call failed or gave no code ("" when it did)
    error: str = ""
    #: what the node's model call cost (:meth:`Completion.usage`); None when not recorded
    usage: Usage | None = None
    seconds: float = 0.0
    #: the live inputs and observations (not serialised), for engines that hand them on
    inputs: tuple[Input, ...] = field(default=(), repr=False, compare=False)
    observations: tuple[Observation, ...] = field(default=(), repr=False, compare=False)

    @property
    def is_root(self) -> bool:
        return self.depth == 0

    @property
    def tokens(self) -> int | None:
        """Prompt and completion tokens of the call, None when its usage was not recorded."""
        return None if self.usage is None else self.usage.prompt_tokens + self.usage.completion_tokens

    def walk(self) -> Iterator[ProbeNode]:
        """This node and all below it, depth first, in sibling order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def branch(self) -> list[ProbeNode]:
        """The nodes from the first level down to this one (empty for the root)."""
        nodes = []
        node: ProbeNode | None = self
        while node is not None and not node.is_root:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def as_dict(self, *, children: bool = True, path: str = "", depth: int = 0) -> dict[str, Any]:
        """The node as the tree format has it; ``path`` and ``depth`` are its position, used when
        the node does not know it (a node built by hand)."""
        own_path, own_depth = self.path or path, self.depth or depth
        data: dict[str, Any] = {
            "path": own_path,
            "depth": own_depth,
            "index": self.index,
            "differentiating": self.differentiating,
            "success": self.success,
            "error": self.error,
        }
        if self.usage is not None:
            data["usage"] = self.usage.as_dict()
        data.update({
            "seconds": round(self.seconds, 3),
            "prompt": self.prompt,
            "answer": self.answer,
            "code": self.code,
            "generator": self.generator,
            "probes": [probe.as_dict() for probe in self.probes],
            "feedback": self.feedback,
        })
        if children:
            data["children"] = [
                child.as_dict(path=f"{own_path}.{i}" if own_path else str(i), depth=own_depth + 1)
                for i, child in enumerate(self.children)
            ]
        return data


@dataclass
class ProbeTree:
    """A ProbeGen tree with its labels: the pair compared, and the shape it was sampled with."""

    root: ProbeNode
    pair: str
    #: branching and depth of a sampled full tree (None for a search's tree)
    k: int | None = None
    depth: int | None = None
    model: str | None = None
    #: the file's other top-level keys (function, implementations, temperature, usage, ...)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: the file it was read from
    source: Path | None = None

    @property
    def children(self) -> list[ProbeNode]:
        """The first turn's nodes."""
        return self.root.children

    def nodes(self) -> Iterator[ProbeNode]:
        """Every model call of the search, depth first; a success ends its branch (anything below
        one was not part of the search)."""

        def below(node: ProbeNode) -> Iterator[ProbeNode]:
            yield node
            if not node.success:
                for child in node.children:
                    yield from below(child)

        for child in self.root.children:
            yield from below(child)

    @property
    def node_count(self) -> int:
        return sum(1 for _ in self.nodes())

    @property
    def disproved(self) -> bool:
        """Some node of the tree succeeded (exposed a difference that counts)."""
        return any(node.success for node in self.nodes())

    @property
    def tokens_known(self) -> bool:
        return all(node.tokens is not None for node in self.nodes())

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "format": TREE_FORMAT, "version": TREE_VERSION, "pair": self.pair, "K": self.k, "D": self.depth,
        }
        if self.model is not None:
            document["model"] = self.model
        document.update({key: value for key, value in self.metadata.items() if key not in _TOP_LEVEL})
        if self.root.prompt:
            document["prompt"] = self.root.prompt
        document["children"] = [child.as_dict(path=str(i), depth=1) for i, child in enumerate(self.root.children)]
        return document


#: top-level keys the tree model itself holds (the rest is metadata)
_TOP_LEVEL = frozenset({"format", "version", "pair", "K", "D", "model", "prompt", "children"})


def tree_from_json(document: Any, *, source: Path | None = None) -> ProbeTree:
    """Check a decoded tree document and build the tree; errors say which file and which node."""
    where = str(source) if source is not None else "tree"

    def problem(message: str) -> TreeFormatError:
        return TreeFormatError(f"{where}: {message}")

    if not isinstance(document, dict):
        raise problem("expected a JSON object at the top level")
    if document.get("format") != TREE_FORMAT:
        raise problem(f"not a ProbeGen tree file (\"format\" must be {TREE_FORMAT!r})")
    if document.get("version") != TREE_VERSION:
        raise problem(f"unsupported version {document.get('version')!r} (this divergent reads {TREE_VERSION})")
    pair = document.get("pair")
    if not isinstance(pair, str) or not pair:
        raise problem('"pair" must be a non-empty string')
    k, depth = document.get("K"), document.get("D")
    for name, value in (("K", k), ("D", depth)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise problem(f'"{name}" must be a positive integer, not {value!r}')
    model = document.get("model")
    if model is not None and not isinstance(model, str):
        raise problem('"model" must be a string')
    raw_children = document.get("children")
    if not isinstance(raw_children, list):
        raise problem('"children" must be a list (the first turn\'s samples)')
    root = ProbeNode(path="", depth=0, prompt=str(document.get("prompt") or ""))
    root.children = [_node(raw, str(i), i, root, problem) for i, raw in enumerate(raw_children)]
    metadata = {key: value for key, value in document.items() if key not in _TOP_LEVEL}
    return ProbeTree(root=root, pair=pair, k=k, depth=depth, model=model, metadata=metadata, source=source)


def _node(
    raw: Any, path: str, index: int, parent: ProbeNode, problem: Callable[[str], TreeFormatError]
) -> ProbeNode:
    depth = parent.depth + 1
    label = f"node {path} (depth {depth})"
    if not isinstance(raw, dict):
        raise problem(f"{label}: expected an object")
    differentiating = raw.get("differentiating")
    if not isinstance(differentiating, bool):
        raise problem(f'{label}: "differentiating" must be true or false')
    success = raw.get("success", differentiating)
    if not isinstance(success, bool):
        raise problem(f'{label}: "success" must be true or false')
    raw_children = raw.get("children", [])
    if not isinstance(raw_children, list):
        raise problem(f'{label}: "children" must be a list')
    stated_path, stated_index, probes = raw.get("path"), raw.get("index"), raw.get("probes")
    seconds = raw.get("seconds")
    node = ProbeNode(
        path=stated_path if isinstance(stated_path, str) and stated_path else path,
        depth=depth,
        index=stated_index if isinstance(stated_index, int) else index,
        parent=parent,
        prompt=str(raw.get("prompt") or ""),
        answer=str(raw.get("answer") or ""),
        code=raw.get("code") if isinstance(raw.get("code"), str) else None,
        generator=raw.get("generator") if isinstance(raw.get("generator"), dict) else None,
        probes=[ProbeResult.from_dict(p) for p in probes if isinstance(p, dict)] if isinstance(probes, list) else [],
        feedback=str(raw.get("feedback") or ""),
        differentiating=differentiating,
        success=success,
        error=str(raw.get("error") or ""),
        usage=_usage(raw.get("usage"), problem, label),
        seconds=float(seconds) if isinstance(seconds, int | float) else 0.0,
    )
    node.children = [_node(child, f"{path}.{i}", i, node, problem) for i, child in enumerate(raw_children)]
    return node


def _usage(raw: Any, problem: Callable[[str], TreeFormatError], label: str) -> Usage | None:
    """The node's usage; None when absent or when it gives no token counts (tokens unknown)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise problem(f'{label}: "usage" must be an object')
    for name in ("prompt_tokens", "completion_tokens", "calls", "cached_calls", "retries"):
        value = raw.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise problem(f'{label}: usage "{name}" must be a non-negative integer, not {value!r}')
    for name in ("cost", "seconds"):
        value = raw.get(name)
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool) or value < 0):
            raise problem(f'{label}: usage "{name}" must be a non-negative number, not {value!r}')
    if raw.get("prompt_tokens") is None and raw.get("completion_tokens") is None:
        return None
    return Usage(**{name: raw[name] for name in Usage.__dataclass_fields__ if raw.get(name) is not None})


def read_tree(path: Path) -> ProbeTree:
    """Read one tree file (see the module docstring for the format)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TreeFormatError(f"{path}: cannot read: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise TreeFormatError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    return tree_from_json(document, source=path)


def write_tree(tree: ProbeTree, path: Path) -> Path:
    """Write a tree file after checking that it reads back, atomically (a half-written file never
    looks like a finished tree)."""
    document = tree.to_json()
    tree_from_json(json.loads(json.dumps(document)), source=path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
    partial.replace(path)
    return path
