"""Model configurations on the command line and in unit keys: ``MODEL@TEMPERATURE``."""

from __future__ import annotations

import math

from divergent.errors import InvalidArgument

__all__ = ["format_model_spec", "parse_model_spec", "parse_model_specs"]


def parse_model_spec(text: str) -> tuple[str, float]:
    """``"gpt_4o@0.6"`` → ``("gpt_4o", 0.6)``; raises InvalidArgument with what was expected."""
    example = "expected MODEL@TEMPERATURE, e.g. gpt_4o@0.6"
    model, at, temperature_text = text.strip().rpartition("@")
    if not at:
        raise InvalidArgument(f"model {text!r} has no temperature: {example}")
    model = model.strip()
    if not model:
        raise InvalidArgument(f"model spec {text!r} has no model name: {example}")
    if any(char.isspace() for char in model):
        raise InvalidArgument(f"model name {model!r} contains whitespace: {example}")
    try:
        temperature = float(temperature_text)
    except ValueError:
        raise InvalidArgument(
            f"temperature {temperature_text!r} in {text!r} is not a number: {example}"
        ) from None
    if not math.isfinite(temperature) or temperature < 0:
        raise InvalidArgument(f"temperature {temperature_text!r} in {text!r} must be a finite number >= 0")
    return model, temperature


def format_model_spec(model: str, temperature: float | None) -> str:
    """The inverse of :func:`parse_model_spec` (just the model when the temperature is unknown)."""
    return model if temperature is None else f"{model}@{temperature!r}"



def parse_model_specs(text: str | None) -> tuple[tuple[str, float], ...] | None:
    """A comma-separated list of specs (``--models``); None for none (every model)."""
    if not text:
        return None
    return tuple(parse_model_spec(part.strip()) for part in text.split(",") if part.strip())
