# Copied verbatim from https://github.com/python-humanize/humanize at e64ad9e8728c5f8f434a6fda98336adc7fb0bf2d; see meta.json and ../NOTICE.
from __future__ import annotations
import math


def _format_not_finite(value: float) -> str:
    """Utility function to handle infinite and nan cases."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value) and value < 0:
        return "-Inf"
    if math.isinf(value) and value > 0:
        return "+Inf"
    return ""
