"""The static pass's project index (:mod:`jitcheck.lint.index`), kept warm for the editor.

The command line judges each file with what the run's other files define (their
``ast`` summaries, joined by module name). The server does the same: on the first
file of a project it summarizes every file the command line would check there, then
keeps each open file's summary up to date as it is edited, so a file is judged
against the unsaved text of the files it imports. It is also the server's
:class:`~jitcheck.server.index.ProjectIndex`: a file's dependents are the files whose
imports (transitively) reach it.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

from jitcheck.lint import index as lint_index
from jitcheck.lint.config import Config
from jitcheck.lint.files import discover
from jitcheck.server.calls import CallRecords
from jitcheck.server.statements import Statement, statements


class Summaries:
    """Module summaries by file, the joined :class:`jitcheck.lint.index.ProjectIndex`, and dependents."""

    def __init__(self) -> None:
        self._by_path: dict[Path, tuple[str, lint_index.Summary]] = {}
        self._shown: set[Path] = set()
        """The files the server was shown (open in the editor): the ones ``dependents`` answers from."""
        self._roots: set[Path] = set()
        self._joined: lint_index.ProjectIndex | None = None
        self._keys: dict[str, str] | None = None
        self._names: dict[Path, str] | None = None
        """Each file's module name as the command line gives it (:func:`jitcheck.lint.index.run_names`: a package in a
        folder that is not its import name, or a file in folders without ``__init__.py``, is named as the project's
        own imports name it)."""
        self._texts: dict[Path, str] = {}
        """The text each shown file's summary was last made from (the same text again changes nothing)."""
        self._pieces: dict[str, _Piece] = {}
        """The summary of each top-level statement's text (it depends on nothing else)."""
        self._joined_from: tuple[list[_Piece], lint_index.Summary | None] = ([], None)
        """The pieces last joined, and their join."""
        self._calls = CallRecords()
        """The module's call records, each statement's kept by its text (a keystroke walks one function again)."""

    def load_project(self, config: Config, opened: Path | None = None) -> None:
        """Summarize every file the command line would check under ``config.root`` (once per root); but ``opened``,
        whose text in the editor is summarized next (:meth:`update`; read from disk only if that text does not parse)."""
        if config.root in self._roots:
            return
        self._roots.add(config.root)
        skipped = opened.resolve() if opened is not None else None
        for source in discover([config.root], config, config.root):
            path = source.path.resolve()
            if path in self._by_path or path == skipped or source.problem is not None or path.suffix != ".py":
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            self._put(path, lint_index.summarize(data))

    def _put(self, path: Path, summary: lint_index.Summary) -> None:
        if path.name == "__init__.py":
            summary = {**summary, "package": True}
        old = self._by_path.get(path)
        self._by_path[path] = (lint_index.module_name(path), summary)
        self._joined = None
        self._keys = None
        if old is None or old[1].get("imports") != summary.get("imports"):
            self._names = None  # what the project imports names its namespace-package modules

    def _naming(self) -> dict[Path, str]:
        if self._names is None:
            imported = lint_index.imported_modules(summary for _, summary in self._by_path.values())
            self._names = lint_index.run_names({path: name for path, (name, _) in self._by_path.items()}, imported)
        return self._names

    def module(self, path: Path) -> str:
        """The module name the file is indexed under (the command line's name for it)."""
        resolved = path.resolve()
        return self._naming()[resolved] if resolved in self._by_path else lint_index.module_name(path)

    def joined(self) -> lint_index.ProjectIndex:
        """The index of every summarized file, as the command line builds it for a run."""
        if self._joined is None:
            names = self._naming()
            summaries: dict[str, lint_index.Summary] = {}
            for path, (_, summary) in self._by_path.items():
                summaries.setdefault(names[path], summary)
            self._joined = lint_index.ProjectIndex(summaries)
        return self._joined

    def key(self, path: Path) -> str:
        """A digest of the other modules' summaries the file's findings depend on.

        Its own summary is left out: a part is judged with the index holding the whole module's current
        summary, but everything of its own module a part's findings can read is bound by a statement of the
        part (a part takes in every statement binding a name it loads). So an edit that changes the module's
        summary (an import, a new def, an alias) leaves the other parts' findings standing.
        """
        if self._keys is None:
            self._keys = {}
        name = self.module(path)
        found = self._keys.get(name)
        if found is None:
            joined = self.joined()
            others = sorted(joined.dependencies(name) - {name})
            text = json.dumps([[other, joined.modules.get(other)] for other in others], sort_keys=True, separators=(",", ":"))
            found = self._keys[name] = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
        return found

    # -- the server's ProjectIndex ---------------------------------------------------------------
    def update(self, path: Path, text: str, tree: ast.Module | None = None,
               known: lint_index.Summary | None = None) -> lint_index.Summary | None:
        """The file's unsaved text; while it does not parse (an empty summary), the last summary stays.

        ``tree`` is Python's syntax tree of ``text`` when the caller has it already; ``known`` is ``summarize(text)``
        when the caller has it already (stored by an earlier session: :meth:`summarize` is then left for later).
        Returns the text's summary, put in the index (None: the same text as last time, or the last summary stays).
        """
        path = path.resolve()
        self._shown.add(path)
        if self._texts.get(path) == text:
            return None
        self._texts[path] = text
        summary = known if known is not None else self.summarize(text, tree)
        old = self._by_path.get(path)
        if not any(summary.values()) and text.strip():
            if old is None and any(path.is_relative_to(root) for root in self._roots):
                self._read(path)  # the file on disk, as load_project left it for this text
            if path in self._by_path:
                return None
        if old is None or old[1] != (summary if path.name != "__init__.py" else {**summary, "package": True}):
            self._put(path, summary)
        return summary

    def warm(self, path: Path, text: str) -> None:
        """Summarize ``text`` statement by statement (its summary was stored), so that the next edit's summary
        reads only the statements it touched; nothing if the file's text changed meanwhile."""
        if self._texts.get(path.resolve()) == text:
            self.summarize(text)

    def summarize(self, text: str, tree: ast.Module | None = None) -> lint_index.Summary:
        """:func:`jitcheck.lint.index.summarize` of ``text``, joined from the summaries of its top-level
        statements (each made once per statement text), so an edit summarizes only the statement it touched."""
        found = statements(text, tree)  # the statements of this text read already (an edit's), else parsed now
        if found is None:  # does not parse, or two statements share a line: summarized whole
            return lint_index.summarize(text) if tree is None else lint_index.summarize_tree(tree)
        pieces = [self._piece(statement) for statement in found]
        if pieces != self._joined_from[0]:  # else the same pieces as the last text (an edit inside a body): the same join
            self._joined_from = (pieces, _join(pieces))
        joined = self._joined_from[1]
        if joined is None:  # a jit assignment inside a block that takes another statement's parameters
            return lint_index.summarize(text) if tree is None else lint_index.summarize_tree(tree)
        joined = dict(joined)
        module = ast.Module(body=[s.node for s in found if s.node is not None], type_ignores=[])
        lint_index.add_pytree_aux(joined, module)  # a class and its registration are separate statements
        looped = lint_index.loop_calls(module, joined["imports"])
        if looped:
            joined["loop_calls"] = looped
        calls = self._calls.of(found, joined["imports"])  # like loop_calls: spelled through the whole module's names
        if calls:
            joined["calls"] = calls
        return joined

    def _piece(self, statement: Statement) -> _Piece:
        piece = self._pieces.get(statement.text)
        if piece is None:
            assert statement.node is not None
            # (its loop calls and call records are not made: the join leaves them out, made for the whole module)
            summary = lint_index.summarize_tree(ast.Module(body=[statement.node], type_ignores=[]), calls=False)
            functions = summary.get("functions", {})
            unresolved = any("jit" in entry and entry.get("params") is None for entry in functions.values())
            piece = self._pieces[statement.text] = (summary, _jitted_name(statement.node) if unresolved else None,
                                                    unresolved)
            if len(self._pieces) > 50_000:
                self._pieces.clear()
        return piece

    def remove(self, path: Path) -> None:
        """Closed in the editor: its summary goes back to the file on disk (or away, if it is gone)."""
        path = path.resolve()
        self._shown.discard(path)
        self._texts.pop(path, None)
        self._read(path)

    def on_disk(self, path: Path) -> bool:
        """``path`` was created, changed or deleted on disk (the editor's file watcher says so): read it again.

        False, and nothing done, for a file open in the editor (its unsaved text wins) or outside every
        project read so far (no summary depends on it).
        """
        path = path.resolve()
        if path in self._shown or path.suffix != ".py" or not any(path.is_relative_to(root) for root in self._roots):
            return False
        self._read(path)
        return True

    def _read(self, path: Path) -> None:
        try:
            self._put(path, lint_index.summarize(path.read_bytes()))
        except OSError:
            if self._by_path.pop(path, None) is not None:
                self._joined = None
                self._keys = None
                self._names = None

    def dependents(self, path: Path) -> frozenset[Path]:
        """The open files whose imports reach ``path``'s module, directly or through others."""
        name = self.module(path)
        joined = self.joined()
        return frozenset(other for other in self._shown
                         if other != path.resolve() and self.module(other) != name
                         and name in joined.dependencies(self.module(other)))


_Piece = tuple[lint_index.Summary, tuple[str, str | None] | None, bool]
"""A statement's summary; for ``apply = jax.jit(_apply)``, the jitted name to resolve at the join; and whether its
summary has a jitted function whose parameters come from another statement."""


def _join(pieces: list[_Piece]) -> lint_index.Summary | None:
    """The module's summary from its statements' (``loop_calls`` and ``calls`` left out), or None when a jit assignment nested in
    a block takes another statement's parameters (only the whole module's summary can say which)."""
    joined: lint_index.Summary = {"imports": {}, "classes": {}, "functions": {}}
    for piece, jitted, unresolved in pieces:
        if unresolved:
            if jitted is None:
                return None
            target, name = jitted
            # `apply = jax.jit(_apply, ...)`: `_apply`'s parameters as the statements above define it
            functions = piece["functions"]
            params = joined["functions"].get(name, {}).get("params") if name is not None else None
            piece = {**piece, "functions": {**functions, target: {**functions[target], "params": params}}}
        for part, entries in piece.items():
            if part in ("loop_calls", "calls"):
                continue  # spelled through the whole module's imports: made by the caller, not per statement
            if isinstance(entries, dict):
                joined.setdefault(part, {}).update(entries)  # a later binding of a name wins
            else:
                joined.setdefault(part, []).extend(entries)  # star imports, in order
    return joined


def _jitted_name(node: ast.stmt | None) -> tuple[str, str | None] | None:
    """For a statement that is just ``apply = jax.jit(_apply, ...)``: ``("apply", "_apply")`` (the name is None
    when the jitted function is no plain name); None for any other statement."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    value = node.value
    if not isinstance(value, ast.Call) or not value.args:
        return None
    return node.targets[0].id, value.args[0].id if isinstance(value.args[0], ast.Name) else None


__all__ = ["Summaries"]
