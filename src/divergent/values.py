"""The safe canonical encoding of values that cross process boundaries.

Untrusted code runs in sandbox workers; what it returns comes back to the parent as JSON built by
:func:`encode`, never as a pickle, so the parent never runs code of the sandbox's choosing to read a
result. The encoding is *canonical*: equal builtin values encode alike (sets are sorted), so encoded
values can be compared, hashed and rendered without the original objects.

Format: ``None``, ``bool``, ``int``, ``float`` and ``str`` encode as themselves (JSON keeps ``1`` and
``1.0`` apart, and Python's json module round-trips ``NaN`` and ``Infinity``). Everything else is a
list whose first item is a tag::

    ["list", [items]]          ["tuple", [items]]          ["set", [sorted items]]
    ["frozenset", [sorted]]    ["dict", [[key, value], ...]]  (insertion order)
    ["bytes", latin-1 text]    ["bytearray", latin-1 text]  ["complex", re, im]
    ["decimal", text]          ["fraction", num, den]       ["range", start, stop, step]
    ["bigint", hex text]       ints too long for decimal text
    ["object", "mod.Qual", [[field, value], ...]]   dataclasses, __dict__ and __slots__ objects
    ["enum", "mod.Qual", name, value]
    ["iter", "generator", [first items], truncated]  generators and iterators (first 1,000 items)
    ["ndarray", dtype, shape, [flat items]]        ["dataframe", ...] / ["series", ...] (pandas)
    ["exception", "mod.Qual", [args]]              ["type", "mod.Qual"]
    ["opaque", "mod.Qual", short repr]             functions, modules, anything else
    ["cycle", n]              a reference to the container n levels up (a cycle)
    ["truncated", reason]     past a depth or size limit; ["str-truncated", prefix, length]

This module imports nothing from divergent: the sandbox worker imports it on the untrusted side.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import re
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

Encoded = Any

_ITER_TYPES = (
    types.GeneratorType,
    map,
    filter,
    zip,
    enumerate,
    reversed,
    type(iter([])),
    type(iter(())),
    type(iter("")),
    type(iter(range(0))),
    type(iter({}.items())),
    type(iter({}.keys())),
    type(iter({}.values())),
    type(iter(set())),
)
_VIEW_TYPES = (type({}.keys()), type({}.values()), type({}.items()))


@dataclass(frozen=True)
class EncodeLimits:
    max_depth: int = 64
    #: total nodes in one encoded value
    max_nodes: int = 200_000
    max_string: int = 100_000
    #: items taken from a generator or iterator
    max_iter_items: int = 1_000
    max_repr: int = 200


class _Budget:
    __slots__ = ("nodes",)

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes


#: the modules of the implementations loaded in this process (a sandbox child's): a class they
#: define is named without its module, so two versions of one file, imported under different module
#: names, raising their own ``InvalidName`` raise the same type (see :func:`register_home_module`)
_HOME_MODULES: set[str] = {"builtins", "__main__", ""}


def _home_prefix_pattern() -> re.Pattern[str]:
    """A home module's name before a dotted name in a repr (``pair_a.Utc``; see :func:`_short_repr`)."""
    alternatives = "|".join(re.escape(name) for name in sorted(filter(None, _HOME_MODULES), key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{alternatives})\.(?=[A-Za-z_])")


_HOME_PREFIX = _home_prefix_pattern()


def register_home_module(module_name: str) -> None:
    """Name the classes of ``module_name`` (an implementation's own module) without their module."""
    global _HOME_PREFIX
    if module_name not in _HOME_MODULES:
        _HOME_MODULES.add(module_name)
        _HOME_PREFIX = _home_prefix_pattern()


def qualified_name(kind: type) -> str:
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", None) or getattr(kind, "__name__", "?")
    return name if module in _HOME_MODULES else f"{module}.{name}"


def encode(value: Any, limits: EncodeLimits = EncodeLimits()) -> Encoded:
    """Encode ``value`` into the canonical JSON-compatible form (may consume iterators)."""
    return _encode(value, limits, _Budget(limits.max_nodes), [])


def _encode(value: Any, limits: EncodeLimits, budget: _Budget, path: list[int]) -> Encoded:
    kind = type(value)
    # The common cases first, without bookkeeping: most outcomes are small builtins.
    if value is None or kind is bool or kind is float:
        return value
    if kind is int:
        if value.bit_length() > 10_000:
            return ["bigint", hex(value)]
        return value
    if kind is str:
        if len(value) > limits.max_string:
            return ["str-truncated", value[: limits.max_string], len(value)]
        return value
    budget.nodes -= 1
    if budget.nodes < 0:
        return ["truncated", "size"]
    if len(path) >= limits.max_depth:
        return ["truncated", "depth"]
    if id(value) in path:
        return ["cycle", len(path) - path.index(id(value))]
    path.append(id(value))
    try:
        return _encode_compound(value, kind, limits, budget, path)
    finally:
        path.pop()


def _encode_compound(value: Any, kind: type, limits: EncodeLimits, budget: _Budget, path: list[int]) -> Encoded:
    def sub(item: Any) -> Encoded:
        return _encode(item, limits, budget, path)

    if isinstance(value, bool | int) and not isinstance(value, enum.Enum):
        return sub(int(value))  # int subclasses (but not IntEnum, handled below)
    if isinstance(value, float) and not isinstance(value, enum.Enum):
        return float(value)
    if isinstance(value, str) and not isinstance(value, enum.Enum):
        return sub(str(value))
    if isinstance(value, list):
        return ["list", [sub(item) for item in value]]
    if isinstance(value, tuple):
        return ["tuple", [sub(item) for item in value]]
    if isinstance(value, dict):
        return ["dict", [[sub(k), sub(v)] for k, v in list(value.items())]]
    if isinstance(value, set | frozenset):
        items = sorted((sub(item) for item in value), key=canonical_text)
        return ["frozenset" if isinstance(value, frozenset) else "set", items]
    if isinstance(value, bytes):
        return ["bytes", value[: limits.max_string].decode("latin-1")]
    if isinstance(value, bytearray):
        return ["bytearray", bytes(value[: limits.max_string]).decode("latin-1")]
    if isinstance(value, complex):
        return ["complex", value.real, value.imag]
    if isinstance(value, Decimal):
        return ["decimal", str(value)]
    if isinstance(value, Fraction):
        return ["fraction", sub(value.numerator), sub(value.denominator)]
    if isinstance(value, range):
        return ["range", value.start, value.stop, value.step]
    if isinstance(value, enum.Enum):
        return ["enum", qualified_name(kind), value.name, sub(value.value)]
    if isinstance(value, _VIEW_TYPES):
        return ["list", [sub(item) for item in value]]
    if isinstance(value, BaseException):
        return ["exception", qualified_name(kind), [sub(a) for a in value.args]]
    if isinstance(value, type):
        return ["type", qualified_name(value)]
    numeric = _encode_array_like(value, kind, sub)
    if numeric is not None:
        return numeric
    if isinstance(value, _ITER_TYPES) or (isinstance(value, Iterator) and not hasattr(value, "__dict__")):
        items = []
        truncated = False
        for item in value:
            if len(items) >= limits.max_iter_items:
                truncated = True
                break
            items.append(sub(item))
        return ["iter", kind.__name__, items, truncated]
    if dataclasses.is_dataclass(value):
        fields = [[f.name, sub(getattr(value, f.name))] for f in dataclasses.fields(value)]
        return ["object", qualified_name(kind), fields]
    if isinstance(value, types.FunctionType | types.BuiltinFunctionType | types.ModuleType | types.MethodType):
        return ["opaque", qualified_name(kind), _short_repr(value, limits)]
    state = _object_state(value)
    if state is not None:
        return ["object", qualified_name(kind), [[name, sub(v)] for name, v in state]]
    return ["opaque", qualified_name(kind), _short_repr(value, limits)]


def _encode_array_like(value: Any, kind: type, sub: Any) -> Encoded | None:
    module = getattr(kind, "__module__", "") or ""
    if module.startswith("numpy"):
        np = sys.modules.get("numpy")
        if np is not None and isinstance(value, np.ndarray):
            flat = value.ravel().tolist() if value.dtype != object else list(value.ravel())
            return ["ndarray", str(value.dtype), list(value.shape), [sub(item) for item in flat]]
        if np is not None and isinstance(value, np.generic):
            return sub(value.item())
    if module.startswith("pandas"):
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(value, pd.DataFrame):
            return [
                "dataframe",
                [sub(c) for c in value.columns.tolist()],
                [sub(i) for i in value.index.tolist()],
                [str(t) for t in value.dtypes.tolist()],
                [[sub(cell) for cell in row] for row in value.itertuples(index=False, name=None)],
            ]
        if pd is not None and isinstance(value, pd.Series):
            return [
                "series",
                sub(value.name),
                [sub(i) for i in value.index.tolist()],
                str(value.dtype),
                [sub(v) for v in value.tolist()],
            ]
    return None


def _object_state(value: Any) -> list[tuple[str, Any]] | None:
    state: dict[str, Any] = {}
    for klass in type(value).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot in ("__dict__", "__weakref__"):
                continue
            try:
                state[slot] = object.__getattribute__(value, slot)
            except AttributeError:
                pass
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except AttributeError:
        attributes = None
    if isinstance(attributes, dict):
        state.update((str(k), v) for k, v in attributes.items())
    elif not state:
        return None
    return sorted(state.items())


#: the address in a default repr (``<Utc object at 0x7f…>``): it differs in every process and in every
#: implementation's, so it is no part of the behaviour (kept, every input whose result holds such an
#: object inside a value divergent cannot take apart, ``datetime.time(0, 0, tzinfo=<Utc object at
#: 0x…>)``, looked nondeterministic and was dropped)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _without_home_modules(text: str) -> str:
    """``text`` without the implementations' own module names before a dotted name (``pair_a.Utc``
    is ``Utc``, as :func:`qualified_name` names it): two implementations' classes of one name compare
    equal in a repr as they do everywhere else."""
    return _HOME_PREFIX.sub("", text)


def _short_repr(value: Any, limits: EncodeLimits) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an untrusted __repr__ may raise anything
        return "<unrepresentable>"
    if not isinstance(text, str):
        return "<unrepresentable>"
    text = _without_home_modules(_ADDRESS.sub("", text))
    return text if len(text) <= limits.max_repr else text[: limits.max_repr] + "…"


# ---------------------------------------------------------------------------------------------
# Parent side: text, keys, rendering and decoding of encoded values.


def canonical_text(encoded: Encoded) -> str:
    """A deterministic text for an encoded value (for sorting, hashing and de-duplication)."""
    return json.dumps(encoded, separators=(",", ":"), ensure_ascii=False)


def canonical_key(value: Any) -> str:
    """The canonical text of a live (trusted, parent-side) value."""
    return canonical_text(encode(value))


def loads(text: str | bytes) -> Any:
    """Parse JSON produced by a worker. Only builds lists, dicts, strings and numbers."""
    return json.loads(text)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def render(encoded: Encoded, *, limit: int = 400) -> str:
    """Render an encoded value as Python-like text, cut at about ``limit`` characters."""
    text = _render(encoded)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _render(e: Encoded) -> str:
    if e is None or isinstance(e, bool | int | str):
        return repr(e)
    if isinstance(e, float):
        return _render_float(e)
    if not isinstance(e, list) or not e:
        return repr(e)
    tag = e[0]
    if tag == "list":
        return "[" + ", ".join(_render(x) for x in e[1]) + "]"
    if tag == "tuple":
        items = [_render(x) for x in e[1]]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if tag in ("set", "frozenset"):
        if not e[1]:
            return f"{tag}()"
        inner = "{" + ", ".join(_render(x) for x in e[1]) + "}"
        return inner if tag == "set" else f"frozenset({inner})"
    if tag == "dict":
        return "{" + ", ".join(f"{_render(k)}: {_render(v)}" for k, v in e[1]) + "}"
    if tag == "bytes":
        return repr(e[1].encode("latin-1"))
    if tag == "bytearray":
        return f"bytearray({e[1].encode('latin-1')!r})"
    if tag == "complex":
        return repr(complex(e[1], e[2]))
    if tag == "decimal":
        return f"Decimal({e[1]!r})"
    if tag == "fraction":
        return f"Fraction({_render(e[1])}, {_render(e[2])})"
    if tag == "range":
        return f"range({e[1]}, {e[2]}, {e[3]})" if e[3] != 1 else f"range({e[1]}, {e[2]})"
    if tag == "bigint":
        return f"<int of {len(e[1]) * 4} bits: {e[1][:20]}…>"
    if tag == "object":
        return f"{e[1]}(" + ", ".join(f"{k}={_render(v)}" for k, v in e[2]) + ")"
    if tag == "enum":
        return f"<{e[1]}.{e[2]}: {_render(e[3])}>"
    if tag == "iter":
        more = ", …" if e[3] else ""
        return f"<{e[1]}: [" + ", ".join(_render(x) for x in e[2]) + more + "]>"
    if tag == "ndarray":
        return f"array({_render(['list', e[3]])}, dtype={e[1]}, shape={tuple(e[2])})"
    if tag == "dataframe":
        return f"DataFrame(columns={_render(['list', e[1]])}, rows={_render(['list', [['list', r] for r in e[4]]])})"
    if tag == "series":
        return f"Series({_render(['list', e[4]])}, name={_render(e[1])}, dtype={e[3]})"
    if tag == "exception":
        return f"{e[1]}(" + ", ".join(_render(a) for a in e[2]) + ")"
    if tag == "type":
        return f"<class {e[1]!r}>"
    if tag == "opaque":
        return e[2]
    if tag == "cycle":
        return "[...]"
    if tag == "truncated":
        return f"<truncated: {e[1]} limit>"
    if tag == "str-truncated":
        return repr(e[1][:60]) + f"<… {e[2]} characters>"
    return repr(e)


def _render_float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


#: characters a terminal may act on: C0 controls but tab and newline, DEL, C1 controls, and the
#: bidirectional overrides and isolates that reorder what is shown
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` safe to show on a terminal: control characters (ESC and the rest, but tab and
    newline) are written as escapes (``\\x1b``), so a program's output or exception message cannot
    move the cursor, retitle the window or hide text. For human-readable output only: JSON keeps
    values exact."""
    if _TERMINAL_CONTROLS.search(text) is None:
        return text
    return _TERMINAL_CONTROLS.sub(_escape_control, text)


def _escape_control(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class MalformedEncoding(ValueError):
    """Data that claims to be an encoded value but is not one :func:`encode` could have made."""


_ATOM_TYPES = (type(None), bool, int, float, str)
_ATOM_TYPE_SET = frozenset(_ATOM_TYPES)
_SEQUENCE_TAGS = frozenset({"list", "tuple", "set", "frozenset"})
#: per tag: the types of the fields after it ("v" an encoded value, "[v]" a list of them,
#: "[kv]" a list of [key, value] pairs, "[fv]" a list of [name, value] pairs, "[[v]]" rows)
_SHAPES: dict[str, tuple[str, ...]] = {
    "list": ("[v]",), "tuple": ("[v]",), "set": ("[v]",), "frozenset": ("[v]",), "dict": ("[kv]",),
    "bytes": ("s",), "bytearray": ("s",), "decimal": ("s",), "bigint": ("s",), "complex": ("n", "n"),
    "fraction": ("v", "v"), "range": ("i", "i", "i"), "object": ("s", "[fv]"), "enum": ("s", "s", "v"),
    "iter": ("s", "[v]", "b"), "ndarray": ("s", "[i]", "[v]"), "dataframe": ("[v]", "[v]", "[s]", "[[v]]"),
    "series": ("v", "[v]", "s", "[v]"), "exception": ("s", "[v]"), "type": ("s",), "opaque": ("s", "s"),
    "cycle": ("i",), "truncated": ("s",), "str-truncated": ("s", "i"),
}  # fmt: skip


def _atom_sequence(value: Any) -> bool:
    """Whether ``value`` is a list, tuple or set of atoms, well encoded (the commonest leaf)."""
    return (
        type(value) is list
        and len(value) == 2
        and value[0] in _SEQUENCE_TAGS
        and type(value[1]) is list
        and _ATOM_TYPE_SET.issuperset(map(type, value[1]))
    )


def check_encoded(encoded: Encoded, *, max_depth: int = 66, max_nodes: int = 250_000) -> None:
    """Raise :class:`MalformedEncoding` unless ``encoded`` has the shape of an encoding (known tags,
    their fields of the right types) no deeper than ``max_depth`` containers and with at most
    ``max_nodes`` nodes. Iterative, so a forged value a million levels deep costs no recursion;
    what passes can be compared, rendered and decoded by this module without surprises."""
    if type(encoded) in _ATOM_TYPES or (_atom_sequence(encoded) and len(encoded[1]) < max_nodes):
        return
    stack: list[tuple[Any, int]] = [(encoded, 1)]
    nodes = 0
    while stack:
        value, depth = stack.pop()
        kind = type(value)
        if kind in _ATOM_TYPES:
            continue
        nodes += 1
        if nodes > max_nodes:
            raise MalformedEncoding(f"more than {max_nodes:,} nodes")
        if kind is not list or not value or type(value[0]) is not str:
            raise MalformedEncoding(f"not an encoded value: a {kind.__name__}")
        if value[0] in _SEQUENCE_TAGS and len(value) == 2 and type(value[1]) is list and depth <= max_depth:
            # the common case, quickly: a list, tuple or set
            items = value[1]
            nodes += len(items)
            if nodes > max_nodes:
                raise MalformedEncoding(f"more than {max_nodes:,} nodes")
            inner = depth + 1
            if _ATOM_TYPE_SET.issuperset(map(type, items)):
                continue  # atoms only (checked at C speed)
            for x in items:
                if type(x) is list:
                    if depth < max_depth and _atom_sequence(x):
                        nodes += len(x[1]) + 1  # a leaf: nothing to look into
                    else:
                        stack.append((x, inner))
                elif type(x) not in _ATOM_TYPES:
                    raise MalformedEncoding(f"not an encoded value: a {type(x).__name__}")
            continue
        shape = _SHAPES.get(value[0])
        if shape is None:
            raise MalformedEncoding(f"unknown tag {value[0][:40]!r}")
        if len(value) != len(shape) + 1:
            raise MalformedEncoding(f"{value[0]!r} with {len(value) - 1} fields")
        if depth > max_depth:
            raise MalformedEncoding(f"nested deeper than {max_depth}")
        inner = depth + 1
        for field, item in zip(shape, value[1:], strict=True):
            if field == "v":
                stack.append((item, inner))
            elif field == "s":
                if type(item) is not str:
                    raise MalformedEncoding(f"{value[0]!r}: expected text")
            elif field in ("i", "n", "b"):
                allowed = {"i": (int,), "n": (int, float), "b": (bool,)}[field]
                if type(item) not in allowed or (field != "b" and type(item) is bool):
                    raise MalformedEncoding(f"{value[0]!r}: expected a number")
            else:
                if type(item) is not list:
                    raise MalformedEncoding(f"{value[0]!r}: expected a list")
                nodes += len(item)
                if nodes > max_nodes:
                    raise MalformedEncoding(f"more than {max_nodes:,} nodes")
                if field == "[v]":
                    for x in item:
                        if type(x) is list or type(x) not in _ATOM_TYPES:
                            stack.append((x, inner))
                elif field == "[s]" or field == "[i]":
                    wanted = str if field == "[s]" else int
                    if any(type(x) is not wanted for x in item):
                        raise MalformedEncoding(f"{value[0]!r}: a list of the wrong type")
                else:
                    for entry in item:
                        if type(entry) is not list or (field != "[[v]]" and len(entry) != 2):
                            raise MalformedEncoding(f"{value[0]!r}: malformed entries")
                        if field == "[fv]" and type(entry[0]) is not str:
                            raise MalformedEncoding(f"{value[0]!r}: a field name that is not text")
                        nodes += len(entry)
                        for x in entry[1:] if field == "[fv]" else entry:
                            if type(x) not in _ATOM_TYPES:
                                stack.append((x, inner))
    if nodes > max_nodes:
        raise MalformedEncoding(f"more than {max_nodes:,} nodes")


class NotBuiltin(ValueError):
    """An encoded value that has no builtin Python equivalent to rebuild."""


def decode_builtin(encoded: Encoded) -> Any:
    """Rebuild a live value from an encoding made only of builtin types.

    Used for inputs that come back from untrusted code (generators written by an LLM, symbolic
    execution): only data is rebuilt, never an object of a type the sandbox names.
    """
    e = encoded
    if e is None or isinstance(e, bool | int | float | str):
        return e
    if not isinstance(e, list) or not e or not isinstance(e[0], str):
        raise NotBuiltin(f"not an encoded value: {e!r:.80}")
    tag = e[0]
    if tag == "list":
        return [decode_builtin(x) for x in e[1]]
    if tag == "tuple":
        return tuple(decode_builtin(x) for x in e[1])
    if tag in ("set", "frozenset"):
        items = [decode_builtin(x) for x in e[1]]
        try:
            return set(items) if tag == "set" else frozenset(items)
        except TypeError as error:
            raise NotBuiltin(f"unhashable set element: {error}") from None
    if tag == "dict":
        try:
            return {decode_builtin(k): decode_builtin(v) for k, v in e[1]}
        except TypeError as error:
            raise NotBuiltin(f"unhashable dict key: {error}") from None
    if tag == "bytes":
        return e[1].encode("latin-1")
    if tag == "bytearray":
        return bytearray(e[1].encode("latin-1"))
    if tag == "complex":
        return complex(e[1], e[2])
    if tag == "decimal":
        return Decimal(e[1])
    if tag == "fraction":
        return Fraction(decode_builtin(e[1]), decode_builtin(e[2]))
    if tag == "range":
        return range(e[1], e[2], e[3])
    if tag == "bigint":
        return int(e[1], 16)
    raise NotBuiltin(f"cannot rebuild a {tag!r} value outside the sandbox")


def to_source(value: Any) -> str:
    """Python source text that rebuilds a live builtin value (``float('nan')`` where repr says nan)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "-float('inf')"
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(to_source(v) for v in value) + "]"
    if isinstance(value, tuple) and type(value) is tuple:
        items = [to_source(v) for v in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, dict) and type(value) is dict:
        return "{" + ", ".join(f"{to_source(k)}: {to_source(v)}" for k, v in value.items()) + "}"
    if isinstance(value, set | frozenset) and type(value) in (set, frozenset):
        if not value:
            return f"{type(value).__name__}()"
        inner = "{" + ", ".join(sorted(to_source(v) for v in value)) + "}"
        return inner if isinstance(value, set) else f"frozenset({inner})"
    if isinstance(value, complex):
        return f"complex({to_source(value.real)}, {to_source(value.imag)})"
    return repr(value)


def json_safe(encoded: Encoded) -> Encoded:
    """An encoded value valid as strict JSON: non-finite floats become ["float", "nan"|"inf"|"-inf"]."""
    if isinstance(encoded, float) and not math.isfinite(encoded):
        return ["float", "nan" if math.isnan(encoded) else ("inf" if encoded > 0 else "-inf")]
    if isinstance(encoded, list):
        return [json_safe(item) for item in encoded]
    return encoded
