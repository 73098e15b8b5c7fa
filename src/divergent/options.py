"""The options of a search (:class:`SearchOptions`), as the Python API and the command line import
them. They are defined in :mod:`divergent.kinds.options`, beside the kinds that read them and the
options of whole programs (:class:`~divergent.kinds.program_options.ProgramOptions`), so the kinds
never import upward; this module is the public name."""

from divergent.kinds.options import (
    DEFAULT_MIN_INPUTS,
    DEFAULT_OPTIONS,
    ImplementationSpec,
    Progress,
    SearchOptions,
    SeedSpec,
)

__all__ = ["DEFAULT_MIN_INPUTS", "DEFAULT_OPTIONS", "ImplementationSpec", "Progress", "SearchOptions", "SeedSpec"]
