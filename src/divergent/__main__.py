"""``python -m divergent``."""

from divergent.cli import main

main()
