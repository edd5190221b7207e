"""Debug mode's settings: which packages beartype checks, and what a retrace does.

Read from the environment (``JITCHECK_DEBUG``, ``JITCHECK_PACKAGES``,
``JITCHECK_MAX_TRACES``, ``JITCHECK_ON_RETRACE``) or given by the caller. This module
imports only the standard library, so reading the switches costs nothing.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Mapping

ON_RETRACE = ("warn", "raise", "record")
"""What a retrace beyond ``max_traces`` does: warn (`RetraceWarning`), raise (`RetraceError`), or only record it."""

_OFF = frozenset({"", "0", "false", "off", "no"})
_ON = frozenset({"1", "true", "on", "yes"})
_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


class DebugSettingError(ValueError):
    """A debug switch with a value jitcheck cannot read; the message names the switch and the accepted forms."""


@dataclasses.dataclass(frozen=True)
class DebugSettings:
    """Debug mode, as asked for: on or off, the packages beartype checks, the retrace policy."""

    enabled: bool = False
    packages: tuple[str, ...] = ()
    max_traces: int = 1
    on_retrace: str = "warn"


def package_names(names: str | Iterable[str], source: str) -> tuple[str, ...]:
    """Package names from a comma- or space-separated string or an iterable, checked and deduplicated.

    ``source`` names where they came from (``JITCHECK_DEBUG``, ``--jitcheck-packages``)
    for the error message.
    """
    parts = re.split(r"[,\s]+", names) if isinstance(names, str) else [str(n) for n in names]
    found: dict[str, None] = {}
    for part in parts:
        name = part.strip()
        if not name:
            continue
        if not _PACKAGE.match(name):
            raise DebugSettingError(
                f"{source}: {name!r} is not a package name; give importable names separated by commas, "
                "e.g. JITCHECK_DEBUG=mypkg,otherpkg or --jitcheck-packages=mypkg"
            )
        found.setdefault(name, None)
    return tuple(found)


def max_traces(value: object, source: str) -> int:
    """``value`` as a positive trace limit, or a clear error naming ``source``."""
    try:
        number = int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        number = 0
    if isinstance(value, bool) or number < 1:
        raise DebugSettingError(f"{source}: expected a whole number of traces, at least 1, got {value!r}")
    return number


def on_retrace(value: object, source: str) -> str:
    """``value`` as one of ``warn``, ``raise``, ``record``, or a clear error naming ``source``."""
    text = str(value).strip().lower()
    if text not in ON_RETRACE:
        raise DebugSettingError(f"{source}: expected one of {', '.join(ON_RETRACE)}, got {value!r}")
    return text


def from_environment(environ: Mapping[str, str] | None = None) -> DebugSettings:
    """The settings the environment asks for.

    ``JITCHECK_DEBUG`` unset, empty, ``0``, ``false``, ``off`` or ``no``: off.
    ``1``, ``true``, ``on`` or ``yes``: on, beartype checking the packages named in
    ``JITCHECK_PACKAGES`` (none if unset). Anything else is a comma-separated list of
    packages to check: on. ``JITCHECK_MAX_TRACES`` (default 1) and
    ``JITCHECK_ON_RETRACE`` (``warn``, ``raise``, ``record``; default ``warn``) set
    the retrace policy.
    """
    env = os.environ if environ is None else environ
    switch = env.get("JITCHECK_DEBUG", "").strip()
    if switch.lower() in _OFF:
        return DebugSettings()
    packages: tuple[str, ...] = ()
    if switch.lower() not in _ON:
        packages = package_names(switch, "JITCHECK_DEBUG")
    packages += tuple(p for p in package_names(env.get("JITCHECK_PACKAGES", ""), "JITCHECK_PACKAGES") if p not in packages)
    return DebugSettings(
        enabled=True,
        packages=packages,
        max_traces=max_traces(env.get("JITCHECK_MAX_TRACES", "1"), "JITCHECK_MAX_TRACES"),
        on_retrace=on_retrace(env.get("JITCHECK_ON_RETRACE", "warn"), "JITCHECK_ON_RETRACE"),
    )


__all__ = ["ON_RETRACE", "DebugSettingError", "DebugSettings", "from_environment", "max_traces", "on_retrace", "package_names"]
