"""Package namespaces whose public names load on first use (PEP 562 module ``__getattr__``).

``jitcheck`` and ``jitcheck.debug`` re-export names from submodules that import jax or
beartype; loading those only when a name is first used keeps ``import jitcheck.rules``
(the mypy plugin, the static pass) and ``import jitcheck.debug`` (the pytest plugin) cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose ``exports`` map a name to its module.

    A name is imported from its module on first access and kept in ``namespace`` (the
    package's globals), so later accesses are plain look-ups.
    """

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted([*namespace, *exports])

    return getattr_, dir_


__all__ = ["lazy_exports"]
