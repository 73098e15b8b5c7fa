"""Rendering of stored records: terminal (rich), plain text, JSON."""
