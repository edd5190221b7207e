"""Debug mode on and off: beartype on the user's packages, every graph checked in full and traced, retraces watched.

`enable` does five things: it installs the beartype import hook for the named
packages (refused with `HookTooLate` if one is already imported); it makes every
``jax.jit``, ``jax.pmap`` and ``eqx.filter_jit`` of those packages report its
compiles (`jitcheck.debug.compiles`); it makes
``unchecked(...)`` run every check anyway (``jitcheck.core.checking.force_checks``);
it traces every `GraphWithValues` as it is built and records every graph's shapes
(``construction_hooks``); and it watches every owner that reports its traces
(``JitGraph.jit_call``, ``StatefulFunction``) for retraces. The jitcheck modules it
needs are imported inside the functions, so importing this module costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from jitcheck.debug.settings import DebugSettings, package_names
from jitcheck.debug.settings import max_traces as checked_max_traces
from jitcheck.debug.settings import on_retrace as checked_on_retrace

if TYPE_CHECKING:
    from beartype import BeartypeConf

_state: dict[str, object] = {"enabled": False}


def enable(
    packages: str | Iterable[str] = (),
    *,
    conf: BeartypeConf | None = None,
    max_traces: int | None = None,
    on_retrace: str | None = None,
) -> None:
    """Switch debug mode on; beartype checks ``packages`` from their first import on.

    Call it before the packages are imported (at the top of the entry script, or use
    ``python -m jitcheck.debug run``, the pytest plugin, or ``JITCHECK_DEBUG``).
    ``conf`` is the ``beartype.BeartypeConf`` for the hooked packages. ``max_traces``
    (default 1) and ``on_retrace`` (``"warn"``, the default, ``"raise"`` or
    ``"record"``) set what a retrace of a watched owner does. Calling it again adds
    packages and updates the retrace settings given.
    """
    names = package_names(packages, "enable(packages=...)")
    if names:
        from jitcheck.debug.hook import install_import_hook

        install_import_hook(names, conf=conf)
    from jitcheck.debug import compiles

    compiles.install(names)
    from jitcheck.core import checking
    from jitcheck.debug import records
    from jitcheck.debug.retrace import TRACKER, Policy

    checking.force_checks = True
    checking.add_construction_hook(records.on_construction)
    current = TRACKER.default
    TRACKER.default = Policy(
        checked_max_traces(max_traces, "max_traces") if max_traces is not None else current.max_traces,
        checked_on_retrace(on_retrace, "on_retrace") if on_retrace is not None else current.on_retrace,
    )
    TRACKER.auto = True
    TRACKER.start()
    _state["enabled"] = True


def enable_with(settings: DebugSettings, *, conf: BeartypeConf | None = None) -> None:
    """`enable` with the given settings (nothing when they say off)."""
    if settings.enabled:
        enable(settings.packages, conf=conf, max_traces=settings.max_traces, on_retrace=settings.on_retrace)


def disable() -> None:
    """Switch the graph checks, import-time tracing and the automatic retrace watch off again.

    beartype's import hooks cannot be taken back: modules already rewritten stay
    checked, and hooked packages imported later are still checked. Functions
    watched with `watch` stay watched.
    """
    from jitcheck.core import checking
    from jitcheck.debug import records
    from jitcheck.debug.retrace import TRACKER

    from jitcheck.debug import compiles

    compiles.uninstall()
    checking.force_checks = False
    checking.remove_construction_hook(records.on_construction)
    TRACKER.auto = False
    if not TRACKER.watching:
        TRACKER.stop()
    _state["enabled"] = False


def is_enabled() -> bool:
    """True while debug mode is on in this process."""
    return bool(_state["enabled"])


__all__ = ["disable", "enable", "enable_with", "is_enabled"]
