"""The codemods for the editor: one finding's fix, or every safe fix in a file.

The command line's ``--fix`` fixes every allowed finding of a file at once; a quick
fix rewrites one. Both go through the lint package's own machinery (parse, analyse,
``# noqa``, :func:`jitcheck.lint.fixes.apply_fixes` with its safety checks), so a
quick fix is refused exactly when ``--fix`` would refuse it.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jitcheck.lint import noqa
from jitcheck.lint import text as source_text
from jitcheck.lint.analysis import Located, analyze
from jitcheck.lint.check import check_text
from jitcheck.lint.fixes import apply_fixes, parse_module
from jitcheck.lint.settings import FixMode, Settings


def fix_all(text: str, path: str, settings: Settings, mode: FixMode = "safe") -> str | None:
    """The text with every selected fix of ``mode`` applied, as ``jitcheck --fix`` would; None if none applied."""
    import dataclasses

    checked = check_text(text, path, dataclasses.replace(settings, fix=mode))
    return checked.fixed_source


def fix_one(text: str, settings: Settings, line: int, column: int, code: str) -> str | None:
    """The text with only the finding of ``code`` at ``line:column`` fixed (safe or unsafe); None if it cannot be."""
    try:
        module = parse_module(text)
        analysis = analyze(module, text, graph_constructors=settings.graph_constructors, jit_wrappers=settings.jit_wrappers)
    except Exception:
        return None
    table = noqa.directives(source_text.lines(text))
    kept = [f for f in analysis.findings if not noqa.silenced(f.rule.code, f.line, table)]

    def allowed(item: Located) -> bool:
        return item.fix is not None and (item.line, item.column, item.rule.code) == (line, column, code)

    outcome = apply_fixes(text, module, analysis.wrapper, kept, _reanalyser(settings), allowed)  # type: ignore[arg-type]
    return outcome.source if outcome.fixed else None


def _reanalyser(settings: Settings) -> Callable[[str], tuple[cst.Module, object, list[Located]]]:
    def reanalyse(source: str) -> tuple[cst.Module, object, list[Located]]:
        parsed = parse_module(source)
        again = analyze(parsed, source, graph_constructors=settings.graph_constructors, jit_wrappers=settings.jit_wrappers)
        table = noqa.directives(source_text.lines(source))
        return parsed, again.wrapper, [f for f in again.findings if not noqa.silenced(f.rule.code, f.line, table)]

    return reanalyse


__all__ = ["fix_all", "fix_one"]
