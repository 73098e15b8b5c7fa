# Copied verbatim from https://github.com/python-humanize/humanize at b72d21ccbc6fbd3eff63ad7cc9b1dfb0c0490b61; see meta.json and ../NOTICE.
from __future__ import annotations
import math


def _format_not_finite(value: float) -> str:
    """Utility function to handle infinite and nan cases."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value) and value < 0:
        return "-Inf"
    elif math.isinf(value) and value > 0:
        return "+Inf"
    return ""
