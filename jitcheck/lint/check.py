"""Check one file's bytes: JC000 for what cannot be read, else the rules, ``# noqa`` and fixes.

This is the unit of work of a run (what a worker process does for a file) and of the
cache (what is stored per content hash). It imports libcst, so the command line
imports it only when some file is not in the cache.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
from collections.abc import Callable, Sequence

import libcst as cst

from jitcheck.lint import noqa
from jitcheck.lint import text as source_text
from jitcheck.lint.analysis import Located, analyze
from jitcheck.lint.findings import Edit, Finding, unparsed_cell, unreadable
from jitcheck.lint import formfeed
from jitcheck.lint.fixes import apply_fixes, compiles, parse_module, transform
from jitcheck.lint.index import UNNAMED_MODULE, ProjectIndex, python_tree, with_module
from jitcheck.lint.limits import at_most, expression_depth
from jitcheck.lint.notebook import Notebook, NotebookError
from jitcheck.lint.prefilter import may_have_sites, positive_sites
from jitcheck.lint.regions import pruned
from jitcheck.lint.settings import FixMode, Settings

@dataclasses.dataclass(frozen=True)
class Checked:
    """The findings of one file (before select/ignore), and its fixed text when a fix applied."""

    findings: tuple[Finding, ...]
    fixed_source: str | None = None
    fixed_count: int = 0
    internal_error: bool = False
    unfixed: tuple[Finding, ...] = ()
    """With a fixed source: the findings of the file as it was (reported when the fix cannot be written)."""


def decode(data: bytes, path: str) -> str | Finding:
    """The text of a source file as Python reads it (:mod:`.text`), or the JC000 finding that says why it has none."""
    codec = "utf-8"
    try:
        codec = source_text.encoding_of(data)[0]
        return source_text.decode(data)
    except SyntaxError as refused:
        try:  # no coding line and a first line that is not UTF-8: say which byte
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            failed = error
        else:  # a coding line Python refuses (an unknown codec, a BOM with another codec)
            return unreadable(path, f"its encoding cannot be read: {refused.msg}",
                              "save the file as UTF-8, or fix its `# -*- coding: ... -*-` line", refused.lineno or 1)
    except UnicodeDecodeError as error:
        failed = error
    line = data.count(b"\n", 0, failed.start) + 1
    column = failed.start - (data.rfind(b"\n", 0, failed.start) + 1) + 1
    if codec == "utf-8":
        problem, fix = "it is not valid UTF-8", "save the file as UTF-8, or declare its encoding with a `# -*- coding: ... -*-` line"
    else:
        problem, fix = f"it is not valid {codec} (its coding line)", "save the file in the encoding its coding line names, or fix that line"
    return unreadable(path, f"{problem} (byte 0x{data[failed.start]:02x} at line {line}, column {column})", fix, line, column)


FIX_MESSAGES = {
    "value-partial": "Use `jitcheck.ValuePartial`, which compares by value",
    "hoist-lambda": "Move the lambda to a module-level function",
    "tuple": "Use a tuple",
    "frozenset": "Use a frozenset",
    "frozen-dataclass": "Make the dataclass frozen",
}
"""ruff's ``fix.message`` for each kind of fix."""


def _located(path: str, item: Located, edits: tuple[Edit, ...] = ()) -> Finding:
    return Finding(path, item.line, item.column, item.rule.code, item.message, item.help, item.end_line, item.end_column,
                   item.fix.applicability if item.fix else None, 0,
                   FIX_MESSAGES.get(item.fix.kind, "") if item.fix else "", edits, item.evidence)


def _edits(before: str, after: str) -> tuple[Edit, ...]:
    """The line edits that turn ``before`` into ``after`` (whole lines replaced, as positions ruff's JSON gives)."""
    old, new = source_text.lines(before, keepends=True), source_text.lines(after, keepends=True)
    found = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag != "equal":
            found.append(Edit("".join(new[j1:j2]), i1 + 1, 1, i2 + 1, 1))
    return tuple(found)


def check_bytes(data: bytes, path: str, settings: Settings, *, is_package_init: bool = False,
                index: ProjectIndex | None = None, module: str = "", python_parses: bool = False) -> Checked:
    """Everything the static pass says about one file's content (``index``: what the run's other files define;
    ``python_parses``: Python's ``ast`` is known to parse these bytes, as the index's reading found).

    An empty file is valid Python: no findings.
    """
    if not data.strip():
        return Checked(())
    text = decode(data, path)
    if isinstance(text, Finding):
        return Checked((text,))
    return check_text(text, path, settings, index=index, module_name=module, python_parses=python_parses)


def python_error(text: str, path: str) -> Finding | None:
    """The JC000 for Python's own syntax error in ``text``, at the line and column Python gives; None when it compiles."""
    try:
        compile(text, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:  # TabError and IndentationError included
        line = error.lineno or 1
        column = error.offset if error.offset and error.offset > 0 else 1
        return unreadable(path, f"it does not parse: {error.msg}", "fix the syntax error", line, column)
    except (RecursionError, MemoryError):
        return None  # Python's AST builder gave up, not its compiler: no error of Python's to report
    except ValueError as error:  # a null byte
        return unreadable(path, f"it does not parse: {error}", "fix the file so that Python can parse it")
    return None


def _too_deep(text: str, path: str, settings: Settings) -> Finding | None:
    """JC000 when an expression is deeper than ``max-expression-depth`` (Python's own error first, if it has one)."""
    limit = settings.max_expression_depth
    if limit <= 0 or len(text) < limit or at_most(text, limit):
        return None
    deepest = expression_depth(text)
    if deepest.depth <= limit:
        return None
    return python_error(text, path) or unreadable(
        path,
        f"an expression on line {deepest.line} is about {deepest.depth:,} deep, over the limit of {limit:,} "
        "(`max-expression-depth`)",
        "split the expression into smaller ones, exclude the file, or raise `max-expression-depth` in [tool.jitcheck]",
        deepest.line,
    )


def _parse(text: str, path: str) -> cst.Module | Finding:
    try:
        return parse_module(text)
    except cst.ParserSyntaxError as error:
        # Python's message and position, as the user's interpreter reports them; libcst's when Python accepts the file.
        message = " ".join(str(error.message).split())
        return python_error(text, path) or unreadable(
            path, f"it does not parse: {message}", "fix the syntax error (jitcheck reads Python 3 as libcst does)",
            error.raw_line, error.raw_column + 1)
    except RecursionError:
        return unreadable(path, "it is nested too deeply to parse", "split the deepest expression into smaller ones")
    except Exception as error:  # libcst refusing input in some other way (e.g. a null byte)
        return python_error(text, path) or unreadable(
            path, f"it does not parse: {type(error).__name__}: {error}", "fix the file so that Python can parse it")


def _failed(text: str, path: str, error: Exception) -> Checked:
    """The JC000 of a file whose analysis raised ``error``."""
    if isinstance(error, RecursionError):
        return Checked((unreadable(path, "it is nested too deeply to analyse", "split the deepest expression into smaller ones"),))
    # libcst accepts some sources Python rejects (a NUL byte or a bad escape in a string), and
    # evaluating such a literal raises: Python's own error is the finding, not jitcheck's.
    rejected = python_error(text, path) if isinstance(error, (SyntaxError, ValueError)) else None
    if rejected is not None:
        return Checked((rejected,))
    return Checked(
        (unreadable(path, f"internal error in jitcheck: {type(error).__name__}: {error}",
                    "please report this file to jitcheck; the other files were checked"),),
        internal_error=True,
    )


def check_text(text: str, path: str, settings: Settings, *, index: ProjectIndex | None = None, module_name: str = "",
               prune: bool = True, python_parses: bool = False) -> Checked:
    """Parse, analyse, drop what ``# noqa`` silences, and (in a fix mode) fix.

    Python's ``ast`` reads the text first: when the prefilter (:mod:`.prefilter`) finds
    that no rule can fire, the file is done without libcst's much slower parse. A file
    Python cannot parse goes to libcst, which reports it (JC000) or judges it. Form feeds
    in indentation, which libcst cannot read, are taken out for libcst and put back
    (:mod:`.formfeed`). A check (not a fix) parses only the regions a finding can depend
    on (:mod:`.regions`); ``prune=False`` parses the whole module (the tests compare both).
    ``python_parses``: Python is known to parse ``text`` (the run's index read it), so a text that
    spells no name a rule starts from where a site can use it (:func:`~jitcheck.lint.prefilter.may_have_sites`)
    has no finding, and is not parsed again to learn it.
    """
    too_deep = _too_deep(text, path, settings)
    if too_deep is not None:
        return Checked((too_deep,))
    if python_parses and index is not None and (module_name or UNNAMED_MODULE) in index.modules and not may_have_sites(
            text, settings.graph_constructors, settings.jit_wrappers, hints=index.hints(),
            reach=index.static_reach(module_name or UNNAMED_MODULE)):
        return Checked(())
    tree = python_tree(text)  # None: Python refuses it, and libcst decides and reports
    judged_with = index
    sites: list[ast.AST] = []
    if tree is not None:
        try:
            judged_with = with_module(index, module_name or UNNAMED_MODULE, tree)
            sites = positive_sites(text, tree, settings.graph_constructors, settings.jit_wrappers, hints=judged_with.hints(),
                                   reach=judged_with.static_reach(module_name or UNNAMED_MODULE))
            if not sites:
                return Checked(())
        except Exception as error:
            return _failed(text, path, error)
    elif "\0" in text:  # libcst reads a NUL byte that Python refuses: Python's error is the finding
        rejected = python_error(text, path)
        if rejected is not None:
            return Checked((rejected,))
    parsed_by_python = tree is not None
    feeds = formfeed.strip(text) if parsed_by_python else None
    read = feeds.text if feeds is not None else text
    # A check reads only what its findings can depend on (regions.py); a fix, or its edits, needs the whole module.
    whole = not prune or not parsed_by_python or feeds is not None or settings.fix is not None or settings.edits
    reduced = None if whole else pruned(text, tree, sites)  # type: ignore[arg-type]
    del tree, sites  # Python's tree is not needed again: let it go before libcst builds its own (a big module's peak memory)
    module = _parse(reduced if reduced is not None else read, path)
    if isinstance(module, Finding):
        return Checked((module,))
    if reduced is not None:
        read = reduced
    try:
        analysis = analyze(module, read, graph_constructors=settings.graph_constructors, jit_wrappers=settings.jit_wrappers,
                           index=judged_with, module_name=module_name, path=path, prefilter=not parsed_by_python)
    except Exception as error:
        return _failed(text, path, error)
    table = noqa.directives(source_text.lines(text)) if analysis.findings and "noqa" in text.lower() else {}
    kept = [f for f in analysis.findings if not noqa.silenced(f.rule.code, f.line, table)]
    if any(f.fix for f in kept) and not (compiles(text) and module.code == read):
        kept = [dataclasses.replace(f, fix=None) for f in kept]  # a fix that would not be written is not offered

    def restore(fixed: str) -> str | None:
        return feeds.restore(fixed) if feeds is not None else fixed

    if feeds is not None and any(f.fix for f in kept):  # a fix that rewrites a line with a form feed is not offered
        kept = [f if f.fix is None or _fix_edits(text, module, analysis.wrapper, f, restore) else dataclasses.replace(f, fix=None)
                for f in kept]

    def located(item: Located, edits: tuple[Edit, ...] = ()) -> Finding:
        if feeds is not None:
            item = dataclasses.replace(item, column=feeds.column(item.line, item.column),
                                       end_column=feeds.column(item.end_line, item.end_column))
        return _located(path, item, edits)

    if settings.fix is None or not any(f.fix for f in kept):
        if settings.edits and any(f.fix for f in kept):
            return Checked(tuple(located(f, _fix_edits(text, module, analysis.wrapper, f, restore)) for f in kept))
        return Checked(tuple(located(f) for f in kept))

    def allowed(item: Located) -> bool:
        if item.fix is None or item.rule.code not in settings.select:
            return False
        if item.evidence.confidence == "low" and not settings.preview:
            return False
        if noqa.silenced(item.rule.code, item.line, table):
            return False
        return item.fix.applicability == "safe" or settings.fix == "unsafe"

    def reanalyse(source: str) -> tuple[cst.Module, object, list[Located]]:
        parsed = parse_module(source)
        again = analyze(parsed, source, graph_constructors=settings.graph_constructors, jit_wrappers=settings.jit_wrappers,
                        index=index, module_name=module_name, path=path)
        new_table = noqa.directives(source_text.lines(source)) if "noqa" in source.lower() else {}
        return parsed, again.wrapper, [f for f in again.findings if not noqa.silenced(f.rule.code, f.line, new_table)]

    outcome = apply_fixes(read, module, analysis.wrapper, kept, reanalyse, allowed)  # type: ignore[arg-type]
    fixed = restore(outcome.source) if outcome.fixed else None
    if fixed is None:  # nothing fixed: what was refused is not fixable
        refused = set(map(id, outcome.refused)) | ({id(f) for f in kept if allowed(f)} if outcome.fixed else set())
        return Checked(tuple(located(dataclasses.replace(f, fix=None) if id(f) in refused else f) for f in kept))
    remaining = check_text(fixed, path, dataclasses.replace(settings, fix=None, edits=False), index=index, module_name=module_name)
    return Checked(remaining.findings, fixed, len(outcome.fixed), unfixed=tuple(located(f) for f in kept))


def check_notebook(data: bytes, path: str, settings: Settings, *, index: ProjectIndex | None = None) -> Checked:
    """A notebook's findings, each placed in its cell; in a fix mode, the fixed notebook's JSON text."""
    text = decode(data, path)
    if isinstance(text, Finding):
        return Checked((text,))
    try:
        notebook = Notebook.parse(text)
    except NotebookError as error:
        return Checked((unreadable(path, str(error), "save it as a Jupyter notebook (nbformat 4), or exclude it"),))
    broken = tuple(dataclasses.replace(unparsed_cell(path, cell.message, cell.line, cell.column), cell=cell.number)
                   for cell in notebook.broken)
    if not notebook.source.strip():
        return Checked(broken)
    checked = check_text(notebook.source, path, settings, index=index)
    if broken:
        checked = dataclasses.replace(checked, findings=checked.findings + broken)
    cells = notebook.respanned(checked.fixed_source) if checked.fixed_source is not None else notebook

    def placed(finding: Finding, cells: Notebook = cells) -> Finding:
        start = cells.locate(finding.line, finding.column)
        end = cells.locate(finding.end_line, finding.end_column) if finding.end_line else None
        same = end is not None and end.cell == start.cell
        return dataclasses.replace(finding, line=start.line, column=start.column, cell=start.cell,
                                   edits=_cell_edits(notebook, finding.edits, start.cell),
                                   end_line=end.line if same and end else 0, end_column=end.column if same and end else 0)

    findings = tuple(f if f.cell else placed(f) for f in checked.findings)
    if checked.fixed_source is None:
        return dataclasses.replace(checked, findings=findings)
    unfixed = tuple(placed(f, notebook) for f in checked.unfixed)
    try:
        fixed = notebook.with_source(checked.fixed_source)
    except NotebookError:
        return Checked(unfixed)  # a fix that moved a cell boundary is not applied
    return dataclasses.replace(checked, findings=findings, fixed_source=fixed, unfixed=unfixed)


def _fix_edits(text: str, module: cst.Module, wrapper: object, finding: Located,
               restore: Callable[[str], str | None]) -> tuple[Edit, ...]:
    """The line edits of ``finding``'s fix on ``text`` (``restore`` takes libcst's fixed text back to ``text``'s form feeds)."""
    if finding.fix is None:
        return ()
    try:
        fixed = restore(transform(module, wrapper, [finding.fix]))  # type: ignore[arg-type]
    except Exception:
        return ()
    return _edits(text, fixed) if fixed is not None else ()


def _cell_edits(notebook: Notebook, edits: tuple[Edit, ...], cell: int) -> tuple[Edit, ...]:
    """A fix's edits in the cell's own lines; none when one reaches outside the finding's cell (then only --fix applies it)."""
    placed = []
    for edit in edits:
        start = notebook.locate(edit.row, edit.column)
        span = notebook.span_of(edit.end_row - 1) if edit.end_row > edit.row else notebook.span_of(edit.row)
        if start.cell != cell or span is None or span.number != cell or edit.row < span.first_line or span.indent:
            return ()  # (a cell read dedented: its edits are written by --fix, which puts the indent back)
        placed.append(Edit(notebook.restore_magics(edit.content), start.line, edit.column,
                           edit.end_row - span.first_line + 1, edit.end_column))
    return tuple(placed)


def check_source(source: str | bytes, path: str = "<string>", *, graph_constructors: Sequence[str] = (),
                 jit_wrappers: Sequence[str] = ()) -> list[Finding]:
    """The findings of the static pass on one module's source (``# noqa`` applied)."""
    settings = Settings(tuple(graph_constructors), tuple(jit_wrappers))
    data = source.encode("utf-8") if isinstance(source, str) else source
    return list(check_bytes(data, path, settings, is_package_init=path.endswith("__init__.py")).findings)


__all__ = ["Checked", "FixMode", "Settings", "check_bytes", "check_notebook", "check_source", "check_text", "decode", "python_error", "unreadable"]
