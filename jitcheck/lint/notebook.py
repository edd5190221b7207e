"""Jupyter notebooks as one Python source: code cells joined in order, magics kept aside.

A notebook runs its code cells top to bottom in one namespace, so the static pass
reads them as one module (a jit built in cell 1 and called in a loop in cell 3 is
judged as the notebook runs). :meth:`Notebook.parse` builds that module's text and
the map back to cells; :meth:`Notebook.locate` turns a position in the joined text
into ``(cell, line, column)`` (the cell counted from 1 over all cells, as Jupyter
and ruff show them); :meth:`Notebook.with_source` writes an edited joined text back
into the notebook, keeping outputs, metadata, other cells and every magic line intact.

IPython syntax (``%magic``, ``!shell``, ``obj?``, ``x = !cmd``) is not Python: each
such line is replaced by an indented ``pass`` carrying a numbered marker, and put back
on write. As in IPython, only a line that starts a statement can be a magic: a ``%``
line inside brackets or a string is Python's modulo or text; and a cell whose first
line is indented is read dedented, as IPython runs it. Cells that start with a
cell magic (``%%bash``) are not Python and are left out, and so is a cell that does not
parse (listed in :attr:`Notebook.broken`), so one broken cell costs the others nothing.
Nothing here imports libcst, so a language server can use it as it is.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from jitcheck.lint.text import ending, lines

CELL_MARKER = "# jitcheck: cell "
"""The comment line that opens each code cell in the joined source."""
_MARKER = CELL_MARKER
_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?:[%!]|\?|[\w.\[\], \t]+=[ \t]*[%!])")
_HELP = re.compile(r"^[ \t]*[\w.]+[ \t]*\?\??[ \t]*$")
_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)pass  # jitcheck: magic (?P<number>\d+)$")


class NotebookError(ValueError):
    """A file named ``.ipynb`` that is not a notebook (bad JSON, no ``cells`` list)."""


@dataclasses.dataclass(frozen=True)
class CellSpan:
    """Where one code cell sits in the joined source: its 1-based number and first line there."""

    number: int
    """1-based position among all the notebook's cells (markdown cells count too)."""
    index: int
    """0-based index into the notebook's ``cells`` list."""
    first_line: int
    """1-based line of the joined source where the cell's own first line is."""
    lines: int
    indent: str = ""
    """The indent IPython strips from a cell whose first line is indented (its ``leading_indent``): the joined
    source holds the cell dedented, and positions and fixes add it back."""


@dataclasses.dataclass(frozen=True)
class BrokenCell:
    """A code cell left out because Python cannot parse it: where, in the cell, and Python's message."""

    number: int
    """1-based position among all the notebook's cells."""
    line: int
    column: int
    message: str


@dataclasses.dataclass(frozen=True)
class Location:
    """A position inside one cell: its number and the 1-based line and column in that cell."""

    cell: int
    line: int
    column: int


def _lines(source: Any) -> str:
    if isinstance(source, list):
        return "".join(str(part) for part in source)
    return str(source) if source is not None else ""


PYTHON_CELL_MAGICS = frozenset({"capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"})
"""Cell magics whose body is Python run in the notebook (ruff lints these cells too); any other
cell magic (``%%bash``, ``%%html``, ``%%writefile``) makes its cell another language, left out."""


def _cell_magic(body: str) -> str | None:
    """The name of the cell magic a cell starts with (``%%time`` gives ``time``), None for none."""
    stripped = body.lstrip()
    if not stripped.startswith("%%"):
        return None
    return stripped[2:].split(None, 1)[0] if stripped[2:].strip() else ""


def _is_python(metadata: Any) -> bool:
    """Whether a notebook's language is Python: ``language_info.name``, else ``kernelspec.language``, else yes."""
    if not isinstance(metadata, dict):
        return True
    info, kernel = metadata.get("language_info"), metadata.get("kernelspec")
    language = (info.get("name") if isinstance(info, dict) else None) or (kernel.get("language") if isinstance(kernel, dict) else None)
    return str(language or "python").lower() in ("python", "python3")


def _is_magic(line: str) -> bool:
    return bool(_MAGIC.match(line) or _HELP.match(line))


class _Statements:
    """Follows a cell line by line and says whether the next line starts a statement.

    A line does not when it continues an open bracket, a triple-quoted string or a
    backslash-ended line; IPython reads magics only at a statement's start, so a
    ``% (a, b)`` line inside ``print(...)`` is Python's ``%`` operator, not a magic.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None  # the open string's delimiter: ', ", ''' or """
        self.continued = False

    def at_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        """Read one physical line (without its ending)."""
        self.continued = False
        index, size = 0, len(line)
        while index < size:
            char = line[index]
            if self.quote is not None:
                if char == "\\":
                    index += 2
                    continue
                if line.startswith(self.quote, index):
                    index += len(self.quote)
                    self.quote = None
                    continue
                index += 1
                continue
            if char == "#":
                return
            if char in "'\"":
                triple = line[index:index + 3]
                self.quote = triple if triple in ("'''", '"""') else char
                index += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and index == size - 1:
                self.continued = True
            index += 1
        if self.quote is not None and len(self.quote) == 1:
            if line.endswith("\\"):
                self.continued = True
            else:
                self.quote = None  # an unterminated one-line string: Python's error, not a continuation


def _syntax_error(text: str) -> tuple[int, int, str] | None:
    """Python's syntax error in one cell's text (line, column, message), None when it parses."""
    try:
        compile(text, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        return error.lineno or 1, error.offset if error.offset and error.offset > 0 else 1, error.msg
    except (ValueError, RecursionError, MemoryError):
        return None  # a null byte or a very deep expression: the joined parse reports it, as for a file
    return None


@dataclasses.dataclass
class Notebook:
    """A parsed notebook: its JSON, the joined Python source of its code cells, and the map between them."""

    data: dict[str, Any]
    source: str
    spans: tuple[CellSpan, ...]
    magics: tuple[str, ...]
    """The original text of every replaced magic line, by marker number."""
    indent: int | None = 1
    list_sources: tuple[bool, ...] = ()
    """Per span: whether the cell's source was stored as a list of lines (nbformat's way) or one string."""
    broken: tuple[BrokenCell, ...] = ()
    """The code cells left out because they do not parse."""

    @classmethod
    def parse(cls, text: str) -> Notebook:
        """Read a notebook's JSON text; :class:`NotebookError` when it is not a notebook."""
        try:
            data = json.loads(text)
        except ValueError as error:
            raise NotebookError(f"it is not valid JSON: {error}") from error
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            raise NotebookError("it has no `cells` list, so it is not a Jupyter notebook")
        if not _is_python(data.get("metadata")):
            return cls(data, "", (), (), _indent_of(text))  # another kernel's language (R, Julia): not checked, as ruff does
        spans: list[CellSpan] = []
        as_list: list[bool] = []
        magics: list[str] = []
        out: list[str] = []
        broken: list[BrokenCell] = []
        line = 1
        for index, cell in enumerate(data["cells"]):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            body = _lines(cell.get("source"))
            magic = _cell_magic(body)
            if magic is not None and magic not in PYTHON_CELL_MAGICS:
                continue  # a cell magic whose body is another language (%%bash, %%html)
            body, leading = _dedented(body)
            kept: list[str] = []
            cell_magics: list[str] = []
            continued: str | None = None  # the indent of a magic line that ends with a backslash
            statements = _Statements()
            for raw in lines(body, keepends=True):
                content = raw.rstrip("\r\n")
                end = raw[len(content):] or "\n"
                if continued is not None or (statements.at_start() and _is_magic(content)):
                    indent = continued if continued is not None else re.match(r"[ \t]*", content).group()  # type: ignore[union-attr]
                    kept.append(f"{indent}pass  # jitcheck: magic {len(magics) + len(cell_magics)}{end}")
                    cell_magics.append(content)
                    continued = indent if content.endswith("\\") else None
                else:
                    statements.feed(content)
                    kept.append(content + end)
            syntax = _syntax_error("".join(kept))
            if syntax is not None:
                broken.append(BrokenCell(index + 1, *syntax))
                continue  # left out: the other cells are still read, as Jupyter still runs them
            magics.extend(cell_magics)
            out.append(f"{_MARKER}{index + 1}\n")
            line += 1
            spans.append(CellSpan(index + 1, index, line, len(kept), leading))
            as_list.append(isinstance(cell.get("source"), list))
            out.extend(kept)
            line += len(kept)
        return cls(data, "".join(out), tuple(spans), tuple(magics), _indent_of(text), tuple(as_list), tuple(broken))

    def respanned(self, source: str) -> Notebook:
        """This notebook with its cell map read from an edited joined ``source`` (lines moved by a fix)."""
        spans: list[CellSpan] = []
        by_number = {span.number: span for span in self.spans}
        for number, raw in enumerate(lines(source), start=1):
            if raw.startswith(_MARKER) and raw[len(_MARKER):].strip().isdigit():
                cell = int(raw[len(_MARKER):].strip())
                if cell in by_number:
                    spans.append(CellSpan(cell, by_number[cell].index, number + 1, 0, by_number[cell].indent))
        return dataclasses.replace(self, source=source, spans=tuple(spans))

    def span_of(self, line: int) -> CellSpan | None:
        """The code cell that holds ``line`` of the joined source (the first cell for lines above every cell)."""
        found = None
        for span in self.spans:
            if span.first_line - 1 <= line:
                found = span
            else:
                break
        return found if found is not None else (self.spans[0] if self.spans else None)

    def locate(self, line: int, column: int) -> Location:
        """A joined-source position as a cell position (cell 1, line 1 when the notebook has no code)."""
        span = self.span_of(line)
        if span is None:
            return Location(1, 1, 1)
        return Location(span.number, max(1, line - span.first_line + 1), column + len(span.indent))

    def restore_magics(self, text: str) -> str:
        """``text`` (lines of the joined source) with every magic placeholder back to its original line."""

        def back(line: str) -> str:
            match = _PLACEHOLDER.match(line.rstrip("\r\n"))
            if match is None or int(match.group("number")) >= len(self.magics):
                return line
            return self.magics[int(match.group("number"))] + line[len(line.rstrip("\r\n")):]

        return "".join(back(line) for line in lines(text, keepends=True))

    def cell_sources(self, source: str) -> dict[int, str] | None:
        """Split an edited joined source back into cell sources (by cell index), magics restored; None if the markers moved."""
        pieces: dict[int, list[str]] = {}
        current: int | None = None
        leading: list[str] = []
        known = {span.number: span.index for span in self.spans}
        for raw in lines(source, keepends=True):
            content = raw.rstrip("\r\n")
            if content.startswith(_MARKER) and content[len(_MARKER):].strip().isdigit():
                number = int(content[len(_MARKER):].strip())
                if number not in known or known[number] in pieces:
                    return None
                current = known[number]
                pieces[current] = leading  # lines above the first cell (e.g. an added import) join the first cell
                leading = []
                continue
            match = _PLACEHOLDER.match(content)
            if match is not None:
                number = int(match.group("number"))
                if number >= len(self.magics):
                    return None
                raw = self.magics[number] + raw[len(content):]
            (pieces[current] if current is not None else leading).append(raw)
        if len(pieces) != len(self.spans):
            return None
        return {index: _body(cell) for index, cell in pieces.items()}

    def with_source(self, source: str) -> str:
        """The notebook's JSON text with its code cells replaced by those of ``source`` (outputs and metadata kept)."""
        cells = self.cell_sources(source)
        if cells is None:
            raise NotebookError("the edited source no longer has the notebook's cell markers in order")
        data = json.loads(json.dumps(self.data))
        for span, as_list in zip(self.spans, self.list_sources):
            text = cells[span.index]
            if span.indent:  # the cell was read dedented: its lines get their indent back
                text = "".join(span.indent + line if line.strip() else line for line in lines(text, keepends=True))
            cell = data["cells"][span.index]
            original = lines(_lines(cell.get("source")), keepends=True)
            if _body(original) == text:
                continue
            endings = {ending(line) for line in original} - {""}
            if len(endings) == 1 and endings != {"\n"}:  # a CRLF (or CR) cell: the lines a fix adds end so too
                text = "".join(line[:len(line) - len(ending(line))] + (ending(line) and next(iter(endings)))
                               for line in lines(text, keepends=True))
            if original:
                text += ending(original[-1])  # the cell's last line keeps its ending (none, LF or CRLF)
            cell["source"] = lines(text, keepends=True) if as_list else text
        return json.dumps(data, indent=self.indent, ensure_ascii=False) + "\n"


def _dedented(body: str) -> tuple[str, str]:
    """A cell's text as IPython runs it, and the indent taken off: when its first non-blank line is indented,
    that indent is removed from every line that starts with it (IPython's ``leading_indent``)."""
    cell = lines(body, keepends=True)
    first = next((line for line in cell if line.strip()), "")
    indent = first[:len(first) - len(first.lstrip(" \t"))]
    if not indent:
        return body, ""
    return "".join(line[len(indent):] if line.startswith(indent) else line for line in cell), indent


def _body(cell: Sequence[str]) -> str:
    """A cell's lines (each with its ending) as its source: trailing blank lines and the last line's ending dropped."""
    kept = _trim(cell)
    if not kept:
        return ""
    last = kept[-1]
    return "".join(kept[:-1]) + last[:len(last) - len(ending(last))]


def _trim(lines: Sequence[str]) -> list[str]:
    kept = list(lines)
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


def _indent_of(text: str) -> int | None:
    """The indent of the notebook's JSON (nbformat writes 1), so a rewrite diffs only where cells changed."""
    match = re.search(r"\n( +)\"", text)
    return len(match.group(1)) if match else None


__all__ = ["CELL_MARKER", "BrokenCell", "CellSpan", "Location", "Notebook", "NotebookError"]
