"""A real LSP client for the server's tests: pygls's own client, talking to
``python -m jitcheck.server`` over stdio, with the little an editor does around it
(open, edit, wait for diagnostics, ask for actions, apply an edit)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0
"""Seconds a test waits for the server before it fails (a limit for a hung server, never a measurement)."""


def capabilities(*, resolve_edits: bool = False, watch: bool = False) -> types.ClientCapabilities:
    code_action = types.CodeActionClientCapabilities(
        code_action_literal_support=types.ClientCodeActionLiteralOptions(
            types.ClientCodeActionKindOptions([types.CodeActionKind.QuickFix, types.CodeActionKind.Source])),
        resolve_support=types.ClientCodeActionResolveOptions(["edit"]) if resolve_edits else None,
    )
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            code_action=code_action,
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=watch)),
    )


class Editor:
    """One editor session with the server."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("jitcheck-tests", "1")
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.messages: list[types.ShowMessageParams] = []
        self.registrations: list[types.Registration] = []
        self.arrived = asyncio.Condition()
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

        @self.client.feature(  # type: ignore[untyped-decorator]
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def published(params: types.PublishDiagnosticsParams) -> None:
            async with self.arrived:
                self.published.setdefault(params.uri, []).append(params)
                self.arrived.notify_all()

        @self.client.feature(  # type: ignore[untyped-decorator]
            types.WINDOW_SHOW_MESSAGE)
        async def shown(params: types.ShowMessageParams) -> None:
            async with self.arrived:
                self.messages.append(params)
                self.arrived.notify_all()

        @self.client.feature(  # type: ignore[untyped-decorator]
            types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

    async def start(self, *, options: dict[str, Any] | None = None, caps: types.ClientCapabilities | None = None,
                    command: Sequence[str] = ("-m", "jitcheck.server"), env: dict[str, str] | None = None) -> None:
        """Start the server (``command``: the interpreter's arguments; ``-m jitcheck.lint.cli server`` is
        ``jitcheck server``, the command the docs give editors) and initialize it."""
        if env is None:
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
        await self.client.start_io(sys.executable, *command, env=env, cwd=str(self.root))
        self.initialized = await asyncio.wait_for(self.client.initialize_async(types.InitializeParams(
            capabilities=caps or capabilities(), root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(self.root.as_uri(), self.root.name)],
            initialization_options={"debounceMs": 20, **(options or {})})), WAIT)
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), WAIT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), WAIT)  # type: ignore[no-untyped-call]

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def open(self, name: str, text: str | None = None, language: str = "python") -> str:
        uri = self.uri(name)
        text = (self.root / name).read_text(encoding="utf-8") if text is None else text
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text)))
        return uri

    def change(self, uri: str, text: str) -> int:
        """Replace the whole text, as one incremental edit (from the start to the old end)."""
        old = self.texts[uri]
        lines = old.split("\n")
        end = types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=self.versions[uri], uri=uri),
            [types.TextDocumentContentChangePartial(types.Range(types.Position(0, 0), end), text)]))
        return self.versions[uri]

    def save(self, uri: str) -> None:
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))

    async def diagnostics(self, uri: str, *, version: int | None = None, after: int = 0) -> list[types.Diagnostic]:
        """The diagnostics of the first publication for ``uri`` past the first ``after`` ones (of ``version``, if given)."""

        def ready() -> bool:
            return any(version is None or p.version == version for p in self.published.get(uri, [])[after:])

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(ready), WAIT)
        return list(next(p for p in self.published[uri][after:] if version is None or p.version == version).diagnostics)

    def count(self, uri: str) -> int:
        return len(self.published.get(uri, []))

    async def actions(self, uri: str, diagnostic: types.Diagnostic | None = None, *,
                      only: Sequence[str] | None = None) -> list[types.CodeAction]:
        where = diagnostic.range if diagnostic else types.Range(types.Position(0, 0), types.Position(0, 0))
        found = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), where,
            types.CodeActionContext([diagnostic] if diagnostic else [], only=list(only) if only else None))), WAIT)
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        return await asyncio.wait_for(self.client.code_action_resolve_async(action), WAIT)

    def apply(self, uri: str, edit: types.WorkspaceEdit) -> str:
        """Apply a workspace edit to the client's copy of ``uri`` and tell the server; the new text."""
        assert edit.changes is not None and uri in edit.changes
        text = self.texts[uri]
        for change in sorted(edit.changes[uri], key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            text = text[:offset(text, change.range.start)] + change.new_text + text[offset(text, change.range.end):]
        self.change(uri, text)
        return text

    async def hover(self, uri: str, position: types.Position) -> types.Hover | None:
        return await asyncio.wait_for(self.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), position)), WAIT)


def offset(text: str, position: types.Position) -> int:
    """The string index of an LSP position (UTF-16 columns)."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += len(char.encode("utf-16-le")) // 2
    return start + len(line)
