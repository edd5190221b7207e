"""The static pass: ``jitcheck src/`` finds (and fixes) bad jit cache keys before anything runs.

Built on libcst: a cheap walk finds the calls that matter (:mod:`.collect`), libcst's
scope analysis resolves their names (:mod:`.analysis`), codemods fix what can be
fixed (:mod:`.fixes`). :mod:`.runner` runs files in parallel with a per-file cache;
:mod:`.cli` is the ``jitcheck`` command. Importing this package imports neither
jax nor libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jitcheck.lint.check import check_source
    from jitcheck.lint.findings import Finding


def __getattr__(name: str) -> Any:
    if name == "check_source":
        from jitcheck.lint.check import check_source

        return check_source
    if name == "Finding":
        from jitcheck.lint.findings import Finding

        return Finding
    raise AttributeError(f"module 'jitcheck.lint' has no attribute {name!r}")


__all__ = ["Finding", "check_source"]
