"""Check one file's bytes: JC000 for what cannot be read, else the rules, ``# noqa`` and fixes.

This is the unit of work of a run (what a worker process does for a file) and of the
cache (what is stored per content hash). It imports libcst, so the command line
imports it only when some file is not in the cache.
"""

from __future__ import annotations

import dataclasses
import tokenize
from collections.abc import Sequence
from io import BytesIO

import libcst as cst

from jitcheck.lint import noqa
from jitcheck.lint.analysis import Located, analyze
from jitcheck.lint.findings import Finding, unreadable
from jitcheck.lint.fixes import apply_fixes
from jitcheck.lint.index import ProjectIndex
from jitcheck.lint.settings import FixMode, Settings

@dataclasses.dataclass(frozen=True)
class Checked:
    """The findings of one file (before select/ignore), and its fixed text when a fix applied."""

    findings: tuple[Finding, ...]
    fixed_source: str | None = None
    fixed_count: int = 0
    internal_error: bool = False


def decode(data: bytes, path: str) -> str | Finding:
    """The text of a source file, or the JC000 finding that says why it has none."""
    try:
        text = data.decode("utf-8")
        return text[1:] if text.startswith("\ufeff") else text
    except UnicodeDecodeError as error:
        try:
            encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
            if encoding.lower().replace("_", "-") not in ("utf-8", "utf-8-sig"):
                return data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            pass
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        return unreadable(
            path,
            f"it is not valid UTF-8 (byte 0x{data[error.start]:02x} at line {line}, column {column})",
            "save the file as UTF-8, or declare its encoding with a `# -*- coding: ... -*-` line",
            line,
            column,
        )


def _located(path: str, item: Located) -> Finding:
    return Finding(path, item.line, item.column, item.rule.code, item.message, item.help, item.end_line, item.end_column,
                   item.fix.applicability if item.fix else None)


def check_bytes(data: bytes, path: str, settings: Settings, *, is_package_init: bool = False,
                index: ProjectIndex | None = None, module: str = "") -> Checked:
    """Everything the static pass says about one file's content (``index``: what the run's other files define)."""
    if not data.strip():
        if is_package_init:
            return Checked(())
        return Checked((unreadable(path, "the file is empty", "add code to it, delete it, or exclude it"),))
    text = decode(data, path)
    if isinstance(text, Finding):
        return Checked((text,))
    return check_text(text, path, settings, index=index, module_name=module)


def _parse(text: str, path: str) -> cst.Module | Finding:
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        message = " ".join(str(error.message).split())
        return unreadable(path, f"it does not parse: {message}", "fix the syntax error (jitcheck reads Python 3 as libcst does)",
                          error.raw_line, error.raw_column + 1)
    except RecursionError:
        return unreadable(path, "it is nested too deeply to parse", "split the deepest expression into smaller ones")
    except Exception as error:  # libcst refusing input in some other way (e.g. a null byte)
        return unreadable(path, f"it does not parse: {type(error).__name__}: {error}", "fix the file so that Python can parse it")


def check_text(text: str, path: str, settings: Settings, *, index: ProjectIndex | None = None, module_name: str = "") -> Checked:
    """Parse, analyse, drop what ``# noqa`` silences, and (in a fix mode) fix."""
    module = _parse(text, path)
    if isinstance(module, Finding):
        return Checked((module,))
    try:
        analysis = analyze(module, text, graph_constructors=settings.graph_constructors, jit_wrappers=settings.jit_wrappers,
                           index=index, module_name=module_name, path=path)
    except RecursionError:
        return Checked((unreadable(path, "it is nested too deeply to analyse", "split the deepest expression into smaller ones"),))
    except Exception as error:
        return Checked(
            (unreadable(path, f"internal error in jitcheck: {type(error).__name__}: {error}",
                        "please report this file to jitcheck; the other files were checked"),),
            internal_error=True,
        )
    table = noqa.directives(text.splitlines()) if analysis.findings and "noqa" in text.lower() else {}
    kept = [f for f in analysis.findings if not noqa.silenced(f.rule.code, f.line, table)]
    if settings.fix is None or not any(f.fix for f in kept):
        return Checked(tuple(_located(path, f) for f in kept))

    def allowed(item: Located) -> bool:
        if item.fix is None or item.rule.code not in settings.select:
            return False
        if noqa.silenced(item.rule.code, item.line, table):
            return False
        return item.fix.applicability == "safe" or settings.fix == "unsafe"

    def reanalyse(source: str) -> tuple[cst.Module, object, list[Located]]:
        parsed = cst.parse_module(source)
        again = analyze(parsed, source, graph_constructors=settings.graph_constructors, jit_wrappers=settings.jit_wrappers,
                        index=index, module_name=module_name, path=path)
        new_table = noqa.directives(source.splitlines()) if "noqa" in source.lower() else {}
        return parsed, again.wrapper, [f for f in again.findings if not noqa.silenced(f.rule.code, f.line, new_table)]

    outcome = apply_fixes(text, module, analysis.wrapper, kept, reanalyse, allowed)  # type: ignore[arg-type]
    if not outcome.fixed:
        return Checked(tuple(_located(path, f) for f in kept))
    _, _, remaining = reanalyse(outcome.source)
    return Checked(tuple(_located(path, f) for f in remaining), outcome.source, len(outcome.fixed))


def check_source(source: str | bytes, path: str = "<string>", *, graph_constructors: Sequence[str] = (),
                 jit_wrappers: Sequence[str] = ()) -> list[Finding]:
    """The findings of the static pass on one module's source (``# noqa`` applied)."""
    settings = Settings(tuple(graph_constructors), tuple(jit_wrappers))
    data = source.encode("utf-8") if isinstance(source, str) else source
    return list(check_bytes(data, path, settings, is_package_init=path.endswith("__init__.py")).findings)


__all__ = ["Checked", "FixMode", "Settings", "check_bytes", "check_source", "check_text", "decode", "unreadable"]
