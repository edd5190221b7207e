"""The language server: pygls handlers, each a thin call into the modules beside it.

Diagnostics are published on open and save at once, and after a change once the
client has been quiet for the debounce delay. Judging runs in one analysis thread
(:mod:`jitcheck.server.analyst`), never on the loop that answers requests: hovers and
code actions are answered from each document's last judgement at once. A change to a file also re-judges the
open files the project index says depend on it, and so does closing a file without
saving it (the others go back to its saved text) and a change on disk the editor's file
watcher reports (a checkout, a new or deleted module); a changed pyproject.toml reloads
the configuration and re-judges every open file.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from jitcheck import __version__
from jitcheck.lint import noqa
from jitcheck.lint.config import ConfigError
from jitcheck.server import actions, diagnostics, notebooks
from jitcheck.server.analyst import SETTLE_PARTS, Analyst, Then, settle
from jitcheck.server.fixing import fix_all, fix_one
from jitcheck.server.helpers import Helpers
from jitcheck.server.positions import UTF8, UTF16, UTF32, Span, code_points, units
from jitcheck.server.project import Project
from jitcheck.server.ruledocs import default_base, hover_markdown, noqa_markdown
from jitcheck.server.session import Judged, Options, is_pyproject
from jitcheck.server.slices import Superseded

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage("python")], notebook="*")],
    save=True,
)
WATCHED = ("**/pyproject.toml", "**/*.py", "**/*.ipynb")
"""What the server asks the editor to watch on disk: configurations, and the files the command line reads
(only .py files are imported, so only their events re-judge other files)."""
_ENCODINGS = {types.PositionEncodingKind.Utf8: UTF8, types.PositionEncodingKind.Utf16: UTF16,
              types.PositionEncodingKind.Utf32: UTF32}


class JitcheckServer(LanguageServer):
    """pygls's server with the static pass's warm state."""

    def __init__(self, helpers: Helpers | None = None) -> None:
        made = diagnostics.Made()
        super().__init__("jitcheck", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=NOTEBOOK_SYNC, converter_factory=lambda: diagnostics.converter(made))
        self.made = made
        self.project = Project(helpers)
        """Touched by the analysis thread only (:mod:`jitcheck.server.analyst`)."""
        self.analyst = Analyst()
        self.options = Options()
        self.docs: str | None = default_base()
        self.judged: dict[str, Judged] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.shown_errors: set[str] = set()

    # -- documents -------------------------------------------------------------------------------
    @property
    def encoding(self) -> str:
        chosen = self.workspace.position_encoding
        return _ENCODINGS.get(types.PositionEncodingKind(chosen), UTF16) if chosen else UTF16

    def path_of(self, uri: str) -> Path:
        """The file a document is (an unsaved one is placed in the workspace root, for its settings)."""
        fs = to_fs_path(uri)
        if fs:
            return Path(fs)
        root = self.workspace.root_path
        return Path(root or Path.cwd()) / "untitled.py"

    def is_python(self, uri: str) -> bool:
        document = self.workspace.text_documents.get(uri)
        language = document.language_id if document is not None else None
        return language == "python" or self.path_of(uri).suffix in (".py", ".pyi")

    def judge(self, uri: str, *, dependents: bool = False) -> None:
        """Queue a judgement of a document (or of the notebook its cell belongs to), published when it is done;
        with ``dependents``, the open documents that import it are judged again after it."""
        self.cancel(uri)
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None:
            self.judge_notebook(notebook.uri)
            return
        if uri not in self.workspace.text_documents or not self.is_python(uri):
            return
        document = self.workspace.get_text_document(uri)
        path, text, version = self.path_of(uri), document.source, document.version

        def stale() -> bool:  # read in the analysis thread: a newer text of the document came (it is judged next)
            now = self.workspace.text_documents.get(uri)
            return now is None or now.version != version

        def work() -> Then | None:  # in the analysis thread
            try:
                judgement = self.project.judge(path, text, stale)
            except Superseded:
                return None
            settling = judgement.judged_parts >= SETTLE_PARTS  # a file's first judgement: settled once published
            others = self.project.changed(path, text) if dependents else frozenset()
            made = self.made.of(judgement.findings, text.split("\n"), self.encoding, self.docs)

            def then() -> None:  # on the loop
                self.report(judgement.error)
                now = self.workspace.text_documents.get(uri)
                if now is not None and now.version == version:  # else stale: its newer text is judged next
                    settings = judgement.file.settings if judgement.file is not None else None
                    self.judged[uri] = Judged(version, text, judgement.findings, settings)
                    self.publish(uri, made)
                self.judge_dependents(others, uri)
                if settling or judgement.stored_summary:  # a file's first judgement
                    self.analyst.submit("persist", functools.partial(self.persist, settling))

            return then

        self.analyst.submit(uri, work)

    def persist(self, settling: bool = False) -> None:
        """In the analysis thread, after a publication: with ``settling`` (a judgement of many parts), collect its
        garbage and set aside what survives (:func:`~jitcheck.server.analyst.settle`: after the publication, not
        before it, and before the next keystroke's judgement); keep the parts judged so far in the cache folder, and
        summarize statement by statement what a stored summary stood for (:meth:`Project.persist`)."""
        if settling:
            settle()
        self.project.persist()

    def judge_notebook(self, notebook_uri: str) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if notebook is None:
            return
        cells = [cell.document for cell in notebook.cells if cell.kind == types.NotebookCellKind.Code]
        documents = [self.workspace.get_text_document(cell) for cell in cells]
        texts = [document.source for document in documents]
        versions = [document.version for document in documents]
        source = notebooks.joined(texts)
        path = self.path_of(notebook_uri)

        def work() -> Then:
            judgement = self.project.judge(path, source.text)

            def then() -> None:
                self.report(judgement.error)
                for cell, text, version, findings in zip(cells, texts, versions, notebooks.split(judgement.findings, source),
                                                         strict=True):
                    self.judged[cell] = Judged(version, text, tuple(findings), None)
                    self.publish(cell)

            return then

        self.analyst.submit(notebook_uri, work)

    def publish(self, uri: str, made: list[types.Diagnostic] | None = None) -> None:
        """Send the document's last judgement (``made``: its diagnostics, made already in the analysis thread)."""
        judged = self.judged[uri]
        if made is None:
            made = self.made.of(judged.findings, judged.lines, self.encoding, self.docs)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, made, judged.version))

    def report(self, error: ConfigError | None) -> None:
        """Show a configuration error once (until the configuration is reloaded)."""
        if error is not None and str(error) not in self.shown_errors:
            self.shown_errors.add(str(error))
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"jitcheck: {error}"))

    def cancel(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    def schedule(self, uri: str) -> None:
        """Judge ``uri`` once the client has been quiet for the debounce delay."""
        self.cancel(uri)
        if self.options.debounce <= 0:
            self.changed(uri)
            return
        self.pending[uri] = asyncio.get_running_loop().call_later(self.options.debounce, self.changed, uri)

    def changed(self, uri: str) -> None:
        """Judge a changed document, then the open documents that depend on it."""
        self.judge(uri, dependents=True)

    def judge_dependents(self, dependents: frozenset[Path], changed: str | None = None) -> None:
        """Judge again the open documents at ``dependents`` (but ``changed``, judged already)."""
        for other in list(self.workspace.text_documents):
            if other != changed and self.path_of(other) in dependents:
                self.judge(other)

    def in_analysis(self, key: str, step: Callable[[], frozenset[Path]]) -> None:
        """Run ``step`` (a change to the project's state) in the analysis thread; then judge the dependents it names."""
        self.analyst.submit(key, lambda: functools.partial(self.judge_dependents, step()))

    def reload_configuration(self) -> None:
        def work() -> Then:
            self.project.reload_configuration()

            def then() -> None:
                self.shown_errors.clear()
                for uri in list(self.judged):
                    if uri in self.workspace.text_documents:
                        self.judge(uri)

            return then

        self.analyst.submit("pyproject.toml", work)

    def current(self, uri: str) -> Judged | None:
        """The document's last judgement (requests are answered from it, never made to wait for a new one)."""
        return self.judged.get(uri)

    async def resolve_edit(self, action: types.CodeAction) -> types.CodeAction:
        """Make a fix action's edit on the document's current text (none if the fix no longer applies),
        in the analysis thread."""
        data = action.data if isinstance(action.data, dict) else {}
        uri = str(data.get("uri", ""))
        judged = self.current(uri)
        if judged is None or judged.settings is None or uri not in self.workspace.text_documents:
            return action
        text = self.workspace.get_text_document(uri).source
        settings, path = judged.settings, str(self.path_of(uri))
        if data.get("kind") == "fix":
            line, column, code = int(data["line"]), int(data["column"]), str(data["code"])
            new = await self.analyst.call(lambda: fix_one(text, settings, line, column, code))
        else:
            new = await self.analyst.call(lambda: fix_all(text, path, settings))
        if new is not None and new != text:
            action.edit = actions.text_edit(uri, text, new, self.encoding)
        return action

    def end(self) -> bool:
        """After the session: the helper processes ended; whether the analysis thread was started (it may be running)."""
        self.project.end()
        return self.analyst.started

    def can_resolve_edits(self) -> bool:
        code_action = self.client_capabilities.text_document and self.client_capabilities.text_document.code_action
        support = code_action.resolve_support if code_action else None
        return bool(support and "edit" in support.properties)


def _inside(where: Span, position: types.Position) -> bool:
    start = (where.line, where.character)
    end = (where.end_line, where.end_character)
    return start <= (position.line, position.character) <= end


def _overlaps(where: Span, wanted: types.Range) -> bool:
    return not ((where.end_line, where.end_character) < (wanted.start.line, wanted.start.character)
                or (where.line, where.character) > (wanted.end.line, wanted.end.character))


def noqa_hover(ls: JitcheckServer, params: types.HoverParams) -> types.Hover | None:
    """The rule's page for a code under the cursor in a ``# noqa: JCxxx`` comment (as ruff shows)."""
    document = ls.workspace.text_documents.get(params.text_document.uri)
    lines = document.source.split("\n") if document is not None else []
    if not 0 <= params.position.line < len(lines):
        return None
    line = lines[params.position.line].rstrip("\r")
    at = code_points(line, params.position.character, ls.encoding)
    for start, end, selector in noqa.selectors(line):
        if start <= at <= end:
            text = noqa_markdown(selector)
            if text is None:
                return None
            where = Span(params.position.line, units(line[:start], ls.encoding), params.position.line,
                         units(line[:end], ls.encoding))
            return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), diagnostics.lsp_range(where))
    return None


def build(helpers: Helpers | None = None) -> JitcheckServer:
    """The server with every handler registered (the modules it runs on set aside from the garbage collector);
    ``helpers``: the helper processes it shares a first judgement with (default: started when one needs them).

    The analysis thread does not judge a small module first: measured, it took from a file's first judgement what a
    process's first check pays once (about 35 ms of CPU), and gave it to a reopened file's judgement (the parts
    stored: the open waited for it, about 40 ms more). ``jitcheck server`` judges one in its main thread instead, as
    it starts, before it forks its helpers (:mod:`jitcheck.server.cli`): before ``initialize`` is answered, so no
    open waits for it."""
    server = JitcheckServer(helpers)

    @server.feature(types.INITIALIZE)
    def initialize(ls: JitcheckServer, params: types.InitializeParams) -> None:
        ls.options = Options.read(params.initialization_options)
        if ls.options.rule_docs:
            ls.docs = ls.options.rule_docs

    @server.feature(types.INITIALIZED)
    def initialized(ls: JitcheckServer, params: types.InitializedParams) -> None:
        workspace = ls.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace else None
        if watched and watched.dynamic_registration:
            watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
            ls.client_register_capability(types.RegistrationParams([types.Registration(
                "jitcheck-files", types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                types.DidChangeWatchedFilesRegistrationOptions(watchers))]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JitcheckServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JitcheckServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JitcheckServer, params: types.DidSaveTextDocumentParams) -> None:
        if is_pyproject(ls.path_of(params.text_document.uri)):
            ls.reload_configuration()
        else:
            ls.changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JitcheckServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.cancel(uri)
        if ls.judged.pop(uri, None) is not None:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        if ls.is_python(uri):  # what the others were judged against goes back to the saved file
            path = ls.path_of(uri)
            ls.in_analysis(f"closed {uri}", lambda: ls.project.closed(path))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: JitcheckServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(is_pyproject(ls.path_of(change.uri)) for change in params.changes):
            ls.reload_configuration()  # judges every open file again
            return
        paths = [ls.path_of(change.uri) for change in params.changes]
        ls.in_analysis(f"on disk {' '.join(map(str, paths))}",
                       lambda: frozenset().union(*(ls.project.on_disk(path) for path in paths)))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: JitcheckServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.judge_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: JitcheckServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.judge_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: JitcheckServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.judge_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: JitcheckServer, params: types.DidCloseNotebookDocumentParams) -> None:
        for cell in params.cell_text_documents:
            if ls.judged.pop(cell.uri, None) is not None:
                ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(cell.uri, []))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL_KIND], resolve_provider=True))
    async def code_action(ls: JitcheckServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        judged = ls.current(uri)
        if judged is None or uri not in ls.workspace.text_documents:
            return []
        only = params.context.only
        lines = judged.lines
        now = ls.workspace.get_text_document(uri).source.split("\n")  # the last judgement may be of older text
        deferred = ls.can_resolve_edits()
        found: list[types.CodeAction] = []
        for finding in judged.findings:
            where = diagnostics.finding_span(finding, lines, ls.encoding)
            if not _overlaps(where, params.range) or not actions.wanted(types.CodeActionKind.QuickFix, only):
                continue
            diagnostic = diagnostics.diagnostic(finding, lines, ls.encoding, ls.docs)
            if finding.fix is not None and judged.settings is not None:
                action = types.CodeAction(actions.fix_title(finding), kind=types.CodeActionKind.QuickFix,
                                          diagnostics=[diagnostic], is_preferred=finding.fix == "safe",
                                          data=actions.fix_data(uri, judged.version, finding))
                if not deferred:
                    action = await ls.resolve_edit(action)
                if deferred or action.edit is not None:
                    found.append(action)
            same = 0 < finding.line <= min(len(lines), len(now)) and lines[finding.line - 1] == now[finding.line - 1]
            edit = actions.noqa_edit(uri, now, finding, ls.encoding) if same else None
            if edit is not None:
                found.append(types.CodeAction(actions.noqa_title(finding.code), kind=types.CodeActionKind.QuickFix,
                                              diagnostics=[diagnostic], edit=edit))
        fixable = judged.settings is not None and any(f.fix == "safe" for f in judged.findings)
        if fixable and actions.wanted(actions.FIX_ALL_KIND, only):
            action = types.CodeAction(actions.FIX_ALL_TITLE, kind=actions.FIX_ALL_KIND,
                                      data=actions.fix_data(uri, judged.version, None))
            if not deferred:
                action = await ls.resolve_edit(action)
            if deferred or action.edit is not None:
                found.append(action)
        return found

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: JitcheckServer, action: types.CodeAction) -> types.CodeAction:
        return await ls.resolve_edit(action)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: JitcheckServer, params: types.HoverParams) -> types.Hover | None:
        judged = ls.current(params.text_document.uri)
        if judged is None:
            return None
        lines = judged.lines
        parts: list[str] = []
        first: Span | None = None
        for finding in judged.findings:
            where = diagnostics.finding_span(finding, lines, ls.encoding)
            if _inside(where, params.position):
                text = hover_markdown(finding.code, finding.message, finding.help)
                if text:
                    parts.append(text)
                    first = first or where
        if not parts or first is None:
            return noqa_hover(ls, params)
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts)),
                           diagnostics.lsp_range(first))

    settle()
    return server


__all__ = ["JitcheckServer", "build"]
