"""``python -m osrag.cli``: the same as the ``osrag`` command."""

from osrag.cli import main

main()
