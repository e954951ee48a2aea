"""The evaluation API under its first name; it lives in :mod:`osrag.evaluation` now."""

from osrag.evaluation import *  # noqa: F403
from osrag.evaluation import __all__  # noqa: F401
