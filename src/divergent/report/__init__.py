"""Rendering of stored records: terminal (rich), plain text, JSON, self-contained HTML (:mod:`~divergent.report.html`),
and the pytest module that reproduces a counterexample (:mod:`~divergent.report.reproduce`)."""
