"""A package's public names, each imported from its module on first use (PEP 562), so
that importing the package loads none of its heavier modules."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: ``exports`` maps each name to
    the module that defines it; a name once imported is kept in ``namespace`` (the
    package's globals), and ``dir()`` lists the package's ``__all__``."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return list(namespace["__all__"])

    return __getattr__, __dir__
