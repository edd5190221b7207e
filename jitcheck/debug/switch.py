"""Debug mode from the environment: ``JITCHECK_DEBUG`` read once, at the first moment jitcheck runs.

Called right after ``jitcheck.core`` is first imported with ``JITCHECK_DEBUG`` set (the
``jitcheck`` package arranges it with `enable_when_core_loads`), by the startup
hook (a ``.pth`` line, see `jitcheck.debug.startup`), by ``python -m jitcheck.debug
run`` and by the pytest plugin. Whichever comes first switches debug mode on; the
others find it done.
"""

from __future__ import annotations

import sys
from typing import Any

_done: list[bool] = []
_QUIET = frozenset({"jitcheck.debug.switch", "jitcheck.debug.import_watch"})


def enable_from_environment() -> bool:
    """Switch debug mode on if the environment asks for it (once per process); True if it did."""
    if _done:
        return False
    _done.append(True)
    from jitcheck.debug.settings import from_environment

    settings = from_environment()
    if not settings.enabled:
        return False
    from jitcheck.debug.hook import hooked_packages
    from jitcheck.debug.mode import enable

    already = hooked_packages()
    enable(
        [p for p in settings.packages if p not in already],
        max_traces=settings.max_traces,
        on_retrace=settings.on_retrace,
    )
    return True


def enable_when_core_loads() -> None:
    """Switch debug mode on from the environment right after ``jitcheck.core`` first loads (at once
    if it is loaded already), unless the debug layer itself is what imports the core: its entry
    points switch debug mode on once their modules are whole."""
    from jitcheck.debug.import_watch import when_imported

    when_imported("jitcheck.core", _core_loaded)


def _core_loaded(_core: Any) -> None:
    if not any(name.startswith("jitcheck.debug.") and name not in _QUIET for name in sys.modules):
        enable_from_environment()


__all__ = ["enable_from_environment", "enable_when_core_loads"]
