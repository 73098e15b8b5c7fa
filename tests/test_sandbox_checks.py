"""The checks on what comes out of the sandbox: encodings, outcomes, frames; and text for terminals."""

from __future__ import annotations

import pytest

from divergent.sandbox.child.wire import Malformed, check_failure, check_load_answer, check_outcome
from divergent.sandbox.frames import nested_within
from divergent.values import MalformedEncoding, check_encoded, encode, printable


def _deep(depth: int) -> list:
    value: object = 1
    for _ in range(depth):
        value = ["list", [value]]
    return value  # type: ignore[return-value]


@pytest.mark.parametrize("value", [
    None, True, 3, 2.5, "text", [1, "a", None], (1, 2.5), {1, 2}, frozenset({"x"}), {"k": [1, {2: 3}]},
    b"\x00\xff", bytearray(b"x"), 1 + 2j, 10**20000, range(1, 9, 2), ValueError("no"), int, len,
    iter([1, 2]), float("nan"),
], ids=lambda value: type(value).__name__)
def test_every_encoding_passes_the_check(value: object) -> None:
    check_encoded(encode(value))


def test_cycles_and_truncation_markers_pass_the_check() -> None:
    cycle: list = []
    cycle.append(cycle)
    check_encoded(encode(cycle))
    check_encoded(encode(_deep_python(200)))  # truncated at the encoder's depth


def _deep_python(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("forged", [
    ["list"], ["list", 5], ["nope", 1], ["dict", [[1]]], ["range", 1, 2, "x"], {"a": 1},
    ["object", "x", [[1, 2]]], ["list", [{"a": 1}]], ["complex", True, 1.0], ["set", [["list"]]],
])
def test_forged_encodings_are_refused(forged: object) -> None:
    with pytest.raises(MalformedEncoding):
        check_encoded(forged)


def test_a_forged_value_a_million_levels_deep_is_refused_without_recursion() -> None:
    with pytest.raises(MalformedEncoding, match="deeper"):
        check_encoded(_deep(1_000_000))
    check_encoded(_deep(60))
    with pytest.raises(MalformedEncoding, match="nodes"):
        check_encoded(["list", list(range(300_000))], max_nodes=250_000)


def test_outcomes_on_the_wire_are_checked() -> None:
    check_outcome({"k": "returned", "v": encode([1, 2]), "a": 0, "s": 0.1}, stdout_chars=10)
    check_outcome({"k": "raised", "e": ["ValueError", "no", ["Exception"]], "s": 0.0}, stdout_chars=10)
    for forged in (
        {"k": "returned", "v": _deep(500)},
        {"k": "evil"},
        {"k": "raised"},
        {"k": "returned", "x": 1},
        {"k": "returned", "s": float("nan")},
        {"k": "returned", "o": "y" * 200},
        {"k": "raised", "e": ["T", "m", [1]]},
        [1, 2],
    ):
        with pytest.raises(Malformed):
            check_outcome(forged, stdout_chars=10)
    check_failure({"kind": "protocol", "detail": "x", "started": None})
    with pytest.raises(Malformed):
        check_failure({"kind": "fine", "detail": "x", "started": None})
    with pytest.raises(Malformed):
        check_load_answer({"ok": True, "constants": [_deep(5)]})


def test_frames_nested_too_deep_are_refused() -> None:
    assert nested_within({"a": [[1], {"b": [2]}]}, 4)
    assert not nested_within({"a": _deep(300)}, 256)


def test_control_characters_are_shown_not_obeyed() -> None:
    assert printable("plain\ttext\nline é ß") == "plain\ttext\nline é ß"
    assert printable("\x1b[2J\x07\r\x7f\x9b\u202e") == "\\x1b[2J\\x07\\x0d\\x7f\\x9b\\u202e"
