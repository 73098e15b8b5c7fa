"""Analyses built on the search loop: clustering (and later incoherence, search trees)."""
