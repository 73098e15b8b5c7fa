"""What tokens cost: a small default price table, overridable per model in the config file.

Prices are US dollars per million tokens, input (prompt) and output (completion) apart. The
defaults are OpenAI's list prices for a few well-known models (checked 2025; providers change
them: put current ones in ``[llm.prices."model"]`` of the config file, see docs/llm.md). A model
with no price costs 0.0 and :func:`price_for` returns None, so callers can say the cost is
unknown instead of showing a misleading $0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from divergent.errors import InvalidArgument


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float

    def __post_init__(self) -> None:
        for name in ("input", "output"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < math.inf:
                raise InvalidArgument(f"price {name}={value!r} must be a number of dollars per million tokens >= 0")

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1_000_000


#: OpenAI list prices (USD per million tokens), standard tier, no cached-input discount
DEFAULT_PRICES: Mapping[str, Price] = {
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4-turbo": Price(10.00, 30.00),
    "gpt-3.5-turbo": Price(0.50, 1.50),
    "o3-mini": Price(1.10, 4.40),
    "o4-mini": Price(1.10, 4.40),
}


def price_for(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of a model: an override first, then the default table; None when unknown.

    A dated snapshot ("gpt-4o-mini-2024-07-18") takes the price of the longest known name it
    extends with a "-" (so it is "gpt-4o-mini", not "gpt-4o").
    """
    for table in (overrides or {}, DEFAULT_PRICES):
        if model in table:
            return table[model]
    for table in (overrides or {}, DEFAULT_PRICES):
        extended = [name for name in table if model.startswith(name + "-")]
        if extended:
            return table[max(extended, key=len)]
    return None


def completion_cost(
    model: str, prompt_tokens: int, completion_tokens: int, overrides: Mapping[str, Price] | None = None
) -> float:
    """Dollars for one completion (0.0 for a model without a price)."""
    price = price_for(model, overrides)
    return price.cost(prompt_tokens, completion_tokens) if price is not None else 0.0



