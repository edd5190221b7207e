"""Debug mode: beartype at import, every graph checked in full and traced as it is built, retraces explained.

Switch it on before your package is imported: ``jitcheck.debug.enable(packages=["mypkg"])``
at the top of a script, ``python -m jitcheck.debug run --packages mypkg script.py``,
``pytest --jitcheck-packages=mypkg``, or ``JITCHECK_DEBUG=mypkg`` (see docs/debug.md).
``python -m jitcheck.debug report mypkg`` prints what it traced at import;
``watch(fn)`` counts a jitted function's traces and explains a retrace.

The names below load on first use: importing ``jitcheck.debug`` imports neither jax
nor beartype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jitcheck.lazy import lazy_exports

_EXPORTS = {
    "DebugSettingError": "jitcheck.debug.settings",
    "DebugSettings": "jitcheck.debug.settings",
    "GraphRecord": "jitcheck.debug.records",
    "HookTooLate": "jitcheck.debug.hook",
    "RetraceError": "jitcheck.debug.retrace",
    "RetraceReport": "jitcheck.debug.retrace",
    "RetraceWarning": "jitcheck.debug.retrace",
    "WatchedFunction": "jitcheck.debug.watching",
    "disable": "jitcheck.debug.mode",
    "enable": "jitcheck.debug.mode",
    "install_import_hook": "jitcheck.debug.hook",
    "is_enabled": "jitcheck.debug.mode",
    "graph_records": "jitcheck.debug.records",
    "retrace_reports": "jitcheck.debug.retrace",
    "watch": "jitcheck.debug.watching",
}

if TYPE_CHECKING:
    from jitcheck.debug.hook import HookTooLate as HookTooLate
    from jitcheck.debug.hook import install_import_hook as install_import_hook
    from jitcheck.debug.mode import disable as disable
    from jitcheck.debug.mode import enable as enable
    from jitcheck.debug.mode import is_enabled as is_enabled
    from jitcheck.debug.records import GraphRecord as GraphRecord
    from jitcheck.debug.records import graph_records as graph_records
    from jitcheck.debug.retrace import RetraceError as RetraceError
    from jitcheck.debug.retrace import RetraceReport as RetraceReport
    from jitcheck.debug.retrace import RetraceWarning as RetraceWarning
    from jitcheck.debug.retrace import retrace_reports as retrace_reports
    from jitcheck.debug.settings import DebugSettingError as DebugSettingError
    from jitcheck.debug.settings import DebugSettings as DebugSettings
    from jitcheck.debug.watching import WatchedFunction as WatchedFunction
    from jitcheck.debug.watching import watch as watch


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)


__all__ = sorted(_EXPORTS)
