"""Debug mode from the environment: ``JITCHECK_DEBUG`` read once, at the first moment jitcheck runs.

Called when ``jitcheck.core`` is imported with ``JITCHECK_DEBUG`` set, by the startup
hook (a ``.pth`` line, see `jitcheck.debug.startup`), by ``python -m jitcheck.debug
run`` and by the pytest plugin. Whichever comes first switches debug mode on; the
others find it done.
"""

from __future__ import annotations

_done: list[bool] = []


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


__all__ = ["enable_from_environment"]
