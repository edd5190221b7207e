"""``jitcheck server`` driven by a real LSP client (pygls's) over stdio: what an editor sees."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import to_fs_path

from jitcheck import rules
from jitcheck.lint.check import check_text
from jitcheck.lint.rules_doc import anchor, render
from jitcheck.lint.settings import Settings
from tests.checkout import copy_checkout
from tests.server.editor import WAIT, Editor, capabilities

SOURCE = """\
import functools

import jax


def scale(x, factor):
    return x * factor


def run(batches):
    for batch in batches:
        y = jax.jit(lambda x: x * 2)(batch)
        z = jax.jit(functools.partial(scale, factor=2.0))(batch)
        w = jax.jit(scale, static_argnums=1)(batch, [1, 2])
    return y, z, w
"""
CLEAN = "import jax\n\n\ndef double(x):\n    return x * 2\n\n\nstep = jax.jit(double)\n"
NEVER = {"debounceMs": 600_000}
"""A debounce no test outlives: judgements then come only from open, save and requests."""


def session(root: Path, body: Callable[[Editor], Awaitable[None]], **start: object) -> None:
    async def main() -> None:
        editor = Editor(root)
        await editor.start(**start)  # type: ignore[arg-type]
        try:
            await body(editor)
        finally:
            await editor.stop()

    asyncio.run(main())


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


def by_code(diagnostics: list[types.Diagnostic], code: str) -> types.Diagnostic:
    return next(d for d in diagnostics if d.code == code)


def test_open_publishes_what_the_command_line_prints(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SOURCE)
    cli = subprocess.run([sys.executable, "-m", "jitcheck.lint.cli", "--no-cache", "-q", "a.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=WAIT)
    printed = cli.stdout.strip().split("\n")
    assert len(printed) == 6, cli.stdout + cli.stderr

    async def body(editor: Editor) -> None:
        uri = editor.open("a.py")
        found = await editor.diagnostics(uri, version=1)
        assert codes(found) == ["JC104", "JC102", "JC202"]
        for diagnostic, (where, help_line) in zip(found, zip(printed[::2], printed[1::2]), strict=True):
            _, line, column, rest = where.split(":", 3)
            code, message = rest.strip().split(" ", 1)
            assert diagnostic.code == code and diagnostic.source == "jitcheck"
            assert diagnostic.message == f"{message}\nhelp: {help_line.strip().removeprefix('help: ')}"
            assert (diagnostic.range.start.line, diagnostic.range.start.character) == (int(line) - 1, int(column) - 1)
            assert diagnostic.severity == types.DiagnosticSeverity.Warning
            assert diagnostic.code_description is not None
            assert diagnostic.code_description.href.endswith("docs/rules.md#" + anchor(rules.BY_CODE[code]))
        lam = by_code(found, "JC104")
        assert (lam.range.end.line, lam.range.end.character) == (11, 35)  # the whole lambda is underlined

    session(tmp_path, body)


def test_changes_are_debounced_and_the_latest_text_is_judged(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", SOURCE)
        assert codes(await editor.diagnostics(uri, version=1)) == ["JC104", "JC102", "JC202"]
        editor.change(uri, SOURCE.replace("lambda x: x * 2", "scale"))
        editor.change(uri, SOURCE.replace("[1, 2]", "(1, 2)"))
        last = editor.change(uri, CLEAN)
        editor.save(uri)
        assert await editor.diagnostics(uri, version=last) == []
        assert [p.version for p in editor.published[uri]] == [1, last]  # the waiting changes were never judged

    session(tmp_path, body, options=NEVER)


def test_a_change_is_judged_without_a_save(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", CLEAN)
        assert await editor.diagnostics(uri, version=1) == []
        version = editor.change(uri, SOURCE)
        assert codes(await editor.diagnostics(uri, version=version)) == ["JC104", "JC102", "JC202"]

    session(tmp_path, body)


def test_a_quick_fix_resolved_and_applied_removes_the_finding(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", SOURCE)
        found = await editor.diagnostics(uri, version=1)
        offered = await editor.actions(uri, by_code(found, "JC104"))
        titles = [a.title for a in offered]
        assert titles[:2] == ["Fix JC104: A lambda used as a cache key", "Silence JC104 with # noqa: JC104"]
        fix = offered[0]
        assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred and fix.edit is None
        resolved = await editor.resolve(fix)
        assert resolved.edit is not None
        text = editor.apply(uri, resolved.edit)
        assert "jax.jit(_run_lambda)(batch)" in text and "def _run_lambda(x):" in text
        assert text == check_text(SOURCE, "a.py", Settings(fix="safe", select=frozenset({"JC104"}))).fixed_source
        editor.save(uri)
        assert codes(await editor.diagnostics(uri, version=editor.versions[uri])) == ["JC102", "JC202"]

    session(tmp_path, body, options=NEVER, caps=capabilities(resolve_edits=True))


def test_without_resolve_the_edit_comes_with_the_action_and_unsafe_fixes_are_marked(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", SOURCE)
        found = await editor.diagnostics(uri, version=1)
        offered = await editor.actions(uri, by_code(found, "JC202"))
        unsafe = next(a for a in offered if a.title.startswith("Fix JC202"))
        assert "unsafe" in unsafe.title and not unsafe.is_preferred and unsafe.edit is not None
        text = editor.apply(uri, unsafe.edit)
        assert "(batch, (1, 2))" in text
        editor.save(uri)
        assert codes(await editor.diagnostics(uri, version=editor.versions[uri])) == ["JC104", "JC102"]
        # JC102 here has no codemod (only a help line): no fix is offered, the noqa is.
        partial = by_code(await editor.diagnostics(uri, version=editor.versions[uri]), "JC102")
        assert [a.title for a in await editor.actions(uri, partial, only=[types.CodeActionKind.QuickFix])] == [
            "Silence JC102 with # noqa: JC102"]

    session(tmp_path, body, options=NEVER)


def test_fix_all_applies_every_safe_fix_as_the_command_line_does(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", SOURCE)
        await editor.diagnostics(uri, version=1)
        offered = await editor.actions(uri, only=["source.fixAll"])
        assert [a.title for a in offered] == ["Fix all jitcheck findings in this file"]
        assert offered[0].kind == "source.fixAll.jitcheck" and offered[0].edit is not None
        text = editor.apply(uri, offered[0].edit)
        select = frozenset(r.code for r in rules.RULES)
        assert text == check_text(SOURCE, "a.py", Settings(fix="safe", select=select)).fixed_source
        editor.save(uri)
        assert codes(await editor.diagnostics(uri, version=editor.versions[uri])) == ["JC102", "JC202"]

    session(tmp_path, body, options=NEVER)


def test_silencing_with_noqa_adds_the_comment_and_the_finding_goes(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", SOURCE)
        found = await editor.diagnostics(uri, version=1)
        offered = await editor.actions(uri, by_code(found, "JC202"))
        noqa = next(a for a in offered if a.title == "Silence JC202 with # noqa: JC202")
        assert noqa.edit is not None
        text = editor.apply(uri, noqa.edit)
        assert "(batch, [1, 2])  # noqa: JC202\n" in text
        editor.save(uri)
        assert codes(await editor.diagnostics(uri, version=editor.versions[uri])) == ["JC104", "JC102"]

    session(tmp_path, body, options=NEVER)


def test_hover_on_a_finding_shows_the_rules_why_example_and_fix(tmp_path: Path) -> None:
    rule = rules.BY_CODE["JC104"]

    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", SOURCE)
        lam = by_code(await editor.diagnostics(uri, version=1), "JC104")
        hover = await editor.hover(uri, types.Position(lam.range.start.line, lam.range.start.character + 3))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        text = hover.contents.value
        assert lam.message.split("\n")[0] in text
        assert " ".join(rule.why.split()) in text and rule.example.strip() in text and rule.fixed.strip() in text
        assert await editor.hover(uri, types.Position(0, 0)) is None

    session(tmp_path, body)


def test_a_changed_pyproject_reloads_the_settings(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", SOURCE)
        assert codes(await editor.diagnostics(uri, version=1)) == ["JC104", "JC102", "JC202"]
        assert [r.method for r in editor.registrations] == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        pyproject = tmp_path / "pyproject.toml"
        pyproject.write_text('[tool.jitcheck]\nignore = ["JC202", "lambda"]\n')
        before = editor.count(uri)
        editor.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(pyproject.as_uri(), types.FileChangeType.Created)]))
        assert codes(await editor.diagnostics(uri, after=before)) == ["JC102"]
        # A broken configuration is reported once, naming the file and the key; no stale findings remain.
        pyproject.write_text('[tool.jitcheck]\nignore = ["JC999"]\n')
        before = editor.count(uri)
        editor.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(pyproject.as_uri(), types.FileChangeType.Changed)]))
        assert await editor.diagnostics(uri, after=before) == []
        assert len(editor.messages) == 1 and editor.messages[0].type == types.MessageType.Error
        assert str(pyproject) in editor.messages[0].message and "JC999" in editor.messages[0].message

    session(tmp_path, body, caps=capabilities(watch=True))


def test_a_file_with_a_syntax_error_gets_one_error_where_it_is(tmp_path: Path) -> None:
    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", "import jax\n\ndef f(x:\n    return x\n")
        found = await editor.diagnostics(uri, version=1)
        assert codes(found) == ["JC000"] and found[0].severity == types.DiagnosticSeverity.Error
        assert "does not parse" in found[0].message and found[0].range.start.line in (2, 3)
        assert await editor.actions(uri, found[0]) == []  # neither a fix nor a noqa can help a syntax error
        version = editor.change(uri, SOURCE)
        assert codes(await editor.diagnostics(uri, version=version)) == ["JC104", "JC102", "JC202"]

    session(tmp_path, body)


def test_a_change_rejudges_the_open_files_that_import_it(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()

    static_step = "import jax\n\n\ndef scale(x, n):\n    return x * len(n)\n\n\nstep = jax.jit(scale, static_argnums=1)\n"

    async def body(editor: Editor) -> None:
        model = editor.open("pkg/model.py", CLEAN)
        user = editor.open("pkg/train.py", "from .model import step\n\nstep(1.0, [1, 2])\n")
        other = editor.open("pkg/other.py", "import os\n")
        before = {uri: await editor.diagnostics(uri, version=1) for uri in (model, user, other)}
        assert before[user] == []  # `step` has no static argument yet: a list is an ordinary argument
        counts = {uri: editor.count(uri) for uri in (user, other)}
        editor.change(model, static_step)
        editor.save(model)
        after = await editor.diagnostics(user, after=counts[user])
        assert codes(after) == ["JC202"] and after[0].range.start.line == 2  # judged again against the new `step`
        await editor.diagnostics(model, version=2)
        # the importing file's new verdict is out: the re-judge is over, and it left the other file alone
        assert editor.count(other) == counts[other]

    session(tmp_path, body, options=NEVER)


def open_notebook(editor: Editor, tmp_path: Path, cells: list[str]) -> list[str]:
    """Open ``n.ipynb`` with ``cells`` as its code cells, as an editor with notebook sync does; the cells' URIs."""
    notebook = (tmp_path / "n.ipynb").as_uri()
    cell_uris = [f"vscode-notebook-cell:{tmp_path / 'n.ipynb'}#c{i}" for i in range(len(cells))]
    editor.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        types.NotebookDocument(notebook, "jupyter-notebook", 1,
                               [types.NotebookCell(types.NotebookCellKind.Code, uri) for uri in cell_uris]),
        [types.TextDocumentItem(uri, "python", 1, text) for uri, text in zip(cell_uris, cells, strict=True)]))
    return cell_uris


def test_notebook_cells_are_judged_as_one_program(tmp_path: Path) -> None:
    cells = ["import jax\n%matplotlib inline", "def run(batches):\n    for b in batches:\n        jax.jit(lambda x: x)(b)"]

    async def body(editor: Editor) -> None:
        cell_uris = open_notebook(editor, tmp_path, cells)
        first = await editor.diagnostics(cell_uris[0])
        second = await editor.diagnostics(cell_uris[1])
        assert first == [] and codes(second) == ["JC104"]
        assert (second[0].range.start.line, second[0].range.start.character) == (2, 16)

    session(tmp_path, body)


def test_a_broken_cell_is_reported_alone_and_an_indented_cell_keeps_its_columns(tmp_path: Path) -> None:
    # As the command line reads them: a cell that does not parse gets its JC000 and costs the others nothing; a cell
    # indented as a whole (IPython runs it dedented) has its findings at its own columns.
    cells = ["import jax", "def f(:\n    pass",
             "    def run(batches):\n        for b in batches:\n            jax.jit(lambda x: x)(b)"]

    async def body(editor: Editor) -> None:
        cell_uris = open_notebook(editor, tmp_path, cells)
        first, broken, indented = [await editor.diagnostics(uri) for uri in cell_uris]
        assert first == [] and codes(broken) == ["JC000"] and codes(indented) == ["JC104"]
        assert "could not check this cell" in broken[0].message
        assert (broken[0].range.start.line, broken[0].range.start.character) == (0, 6)
        assert (indented[0].range.start.line, indented[0].range.start.character) == (2, 20)

    session(tmp_path, body)


def test_a_client_that_disconnects_ends_the_server(tmp_path: Path) -> None:
    async def main() -> None:
        editor = Editor(tmp_path)
        await editor.start()
        uri = editor.open("a.py", SOURCE)
        await editor.diagnostics(uri, version=1)
        process = editor.client._server
        assert process is not None and process.stdin is not None
        process.stdin.close()  # the editor went away without shutdown or exit
        assert await asyncio.wait_for(process.wait(), WAIT) is not None
        await asyncio.wait_for(editor.client.stop(), WAIT)  # type: ignore[no-untyped-call]

    asyncio.run(main())


@pytest.mark.parametrize("command", [("-m", "jitcheck.server"), ("-m", "jitcheck.lint.cli", "server")],
                         ids=["python -m jitcheck.server", "jitcheck server"])
def test_shutdown_and_exit_end_the_server_with_status_0(tmp_path: Path, command: tuple[str, ...]) -> None:
    async def main() -> None:
        editor = Editor(tmp_path)
        await editor.start(command=command)
        uri = editor.open("a.py", SOURCE)
        await editor.diagnostics(uri, version=1)
        process = editor.client._server
        await editor.stop()
        assert process is not None and await asyncio.wait_for(process.wait(), WAIT) == 0
        assert process.stderr is not None
        assert b"Traceback" not in await asyncio.wait_for(process.stderr.read(), WAIT)

    asyncio.run(main())


LONG_BLOCK = ("def loss_{i}(p, x):\n    return p * x\n\n\nstep_{i} = jax.jit(loss_{i})\n\n\n"
              "def train_{i}(p, xs):\n    for x in xs:\n        p = jax.jit(lambda q: q - loss_{i}(q, x))(p)\n    return p\n\n\n")
LONG = "import jax\n\n\n" + "".join(LONG_BLOCK.format(i=i) for i in range(150))
"""About 2,000 lines: a first judgement of several batches, shared with a helper process."""


def test_a_long_file_judged_with_helpers_publishes_what_the_command_line_prints(tmp_path: Path) -> None:
    expected = [(f.line - 1, f.column - 1, f.code, f.message) for f in check_text(LONG, "long.py", Settings()).findings]

    async def body(editor: Editor) -> None:
        found = await editor.diagnostics(editor.open("long.py", LONG), version=1)
        got = [(d.range.start.line, d.range.start.character, d.code, d.message.split("\nhelp: ")[0]) for d in found]
        assert got == expected and len(expected) == 150  # one per block

    session(tmp_path, body)


@pytest.mark.parametrize("command", [("-m", "jitcheck.server"), ("-m", "jitcheck.lint.cli", "server")],
                         ids=["python -m jitcheck.server", "jitcheck server"])
def test_exit_while_a_long_file_is_judged_ends_the_server_with_status_0(tmp_path: Path, command: tuple[str, ...]) -> None:
    """The client leaves during a first judgement (libcst's native parser may be running): no abort."""
    async def main() -> None:
        editor = Editor(tmp_path)
        await editor.start(command=command)
        editor.open("long.py", LONG)
        process = editor.client._server
        await asyncio.sleep(1)  # likelier in libcst by then (the test holds either way: no time is compared)
        await editor.stop()
        assert process is not None and await asyncio.wait_for(process.wait(), WAIT) == 0
        assert process.stderr is not None
        assert b"Traceback" not in await asyncio.wait_for(process.stderr.read(), WAIT)

    asyncio.run(main())


def test_the_command_line_starts_the_server_and_it_ends_when_stdin_closes(tmp_path: Path) -> None:
    shown = subprocess.run([sys.executable, "-m", "jitcheck.lint.cli", "server", "--help"], capture_output=True, text=True,
                           timeout=WAIT, cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: jitcheck server")
    ended = subprocess.run([sys.executable, "-m", "jitcheck.lint.cli", "server"], input="", capture_output=True, text=True,
                           timeout=WAIT, cwd=tmp_path)
    assert ended.returncode == 0 and ended.stdout == ""


def test_a_file_is_judged_with_what_the_project_defines_and_again_when_that_changes(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    jitted = "import jax\n\n\ndef f(x, k):\n    return x * k\n\n\nstep = jax.jit(f, static_argnums=1)\n"
    (tmp_path / "pkg" / "a.py").write_text(jitted)
    user = "from pkg.a import step\n\n\ndef run(x):\n    return step(x, [1, 2])\n"

    async def body(editor: Editor) -> None:
        b = editor.open("pkg/b.py", user)  # a.py is not open: the server read it from the project
        found = await editor.diagnostics(b, version=1)
        assert codes(found) == ["JC202"] and "static argument 1 (`k`) of `step`" in found[0].message
        a = editor.open("pkg/a.py", jitted)
        await editor.diagnostics(a, version=1)
        assert codes(await editor.diagnostics(b, after=1)) == ["JC202"]  # opening a.py re-judged its importer
        before = editor.count(b)
        editor.change(a, jitted.replace(", static_argnums=1", ""))  # unsaved: no static argument any more
        editor.save(a)
        assert await editor.diagnostics(b, after=before) == []

    session(tmp_path, body, options=NEVER)


def _published_as_on_the_command_line(tmp_path: Path, relative: str, text: str, code: str, line: int) -> str:
    """Run the command line on the project at ``tmp_path``: its one finding must be ``code`` at line ``line`` of
    ``relative``. Then open that file (its text ``text``) in an editor session: the server must publish the same
    finding, with the same message and help line. Returns the command line's line for the finding."""
    cli = subprocess.run([sys.executable, "-m", "jitcheck.lint.cli", "--no-cache", "-q", "."], cwd=tmp_path,
                         capture_output=True, text=True, timeout=WAIT)
    where, help_line = cli.stdout.strip().split("\n")
    assert where.startswith(f"{relative}:{line}:") and f" {code} " in where, cli.stdout + cli.stderr

    async def body(editor: Editor) -> None:
        uri = editor.open(relative, text)
        found = await editor.diagnostics(uri, version=1)
        assert codes(found) == [code] and found[0].range.start.line == line - 1
        assert found[0].message == f"{where.split(f' {code} ', 1)[1]}\n{help_line.strip()}"

    session(tmp_path, body, options=NEVER)
    return where


def test_a_module_in_namespace_packages_is_named_as_the_command_line_names_it(tmp_path: Path) -> None:
    """Folders without ``__init__.py`` (PEP 420): ``use.py`` imports ``apps.plastic.models`` by that name, so the
    command line links its loop to the method that jits anew; the editor must name the module the same way
    and publish the same finding (it used to name it ``models`` and miss the caller)."""
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\n")
    folder = tmp_path / "apps" / "plastic"
    folder.mkdir(parents=True)
    models = "import jax\nclass Model:\n    def update(self, x):\n        return jax.jit(jax.vmap(lambda v: v * 2.0))(x)\n"
    (folder / "models.py").write_text(models)
    (folder / "use.py").write_text("from apps.plastic.models import Model\n\n\ndef run(x):\n    model = Model()\n"
                                   "    for _ in range(3):\n        x = model.update(x)\n")
    where = _published_as_on_the_command_line(tmp_path, "apps/plastic/models.py", models, "JC104", 4)
    assert "called again and again by the project's code" in where  # the caller's loop in use.py is linked


def test_a_package_in_a_folder_named_otherwise_is_named_as_the_command_line_names_it(tmp_path: Path) -> None:
    """A package unpacked as ``meshkit-0.1/`` (its ``__init__.py`` at the top) whose modules import each other as
    ``meshkit.mesh``: the command line names them so and links the loop to the jitted function's static argument;
    the editor must name them the same way and publish the same finding."""
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\n")
    top = tmp_path / "meshkit-0.1"
    top.mkdir()
    (top / "__init__.py").write_text("")
    (top / "mesh.py").write_text("import functools\nimport jax\n\n\n"
                                 "@functools.partial(jax.jit, static_argnames=['force'])\ndef step(x, force):\n"
                                 "    return x + force(x)\n")
    stitch = ("import functools as ft\nfrom meshkit import mesh\n\n\ndef elastic(x, c):\n    return x * c\n\n\n"
              "def run(x):\n    for _ in range(3):\n        x = mesh.step(x, force=ft.partial(elastic, c=2.0))\n")
    (top / "stitch.py").write_text(stitch)
    _published_as_on_the_command_line(tmp_path, "meshkit-0.1/stitch.py", stitch, "JC102", 11)


def test_hover_on_a_noqa_code_shows_the_rule(tmp_path: Path) -> None:
    rule = rules.BY_CODE["JC104"]
    text = "import jax\n\nf = jax.jit(lambda x: x)  # noqa: JC104, JC2\n"

    async def body(editor: Editor) -> None:
        uri = editor.open("a.py", text)
        assert await editor.diagnostics(uri, version=1) == []
        column = text.split("\n")[2].index("JC104")
        hover = await editor.hover(uri, types.Position(2, column + 2))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent) and hover.range is not None
        assert (hover.range.start.character, hover.range.end.character) == (column, column + 5)
        assert f"JC104 `{rule.name}`" in hover.contents.value and rule.example.strip() in hover.contents.value
        prefix = await editor.hover(uri, types.Position(2, column + 8))  # JC2: the rules it silences
        assert prefix is not None and isinstance(prefix.contents, types.MarkupContent)
        assert "JC202" in prefix.contents.value and "JC104" not in prefix.contents.value
        assert await editor.hover(uri, types.Position(2, column - 4)) is None  # on "noqa" itself

    session(tmp_path, body)


def _installed(tmp_path: Path) -> Path:
    """jitcheck installed as a user installs it (a wheel built from a copy of this checkout, not editable)."""
    source = copy_checkout(tmp_path / "jitcheck-src")
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                           "--target", str(target), str(source)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (target / "docs").exists()
    return target


@pytest.mark.slow
def test_an_installed_server_links_each_rule_to_a_page_generated_from_the_catalogue(tmp_path: Path) -> None:
    site = _installed(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    links: list[str] = []

    async def once() -> None:
        editor = Editor(tmp_path)
        await editor.start(env=env, command=("-c", "import sys, jitcheck.lint.cli as c; print(c.__file__, file=sys.stderr); "
                                                   "raise SystemExit(c.main(['server']))"))
        try:
            uri = editor.open("a.py", SOURCE)
            found = await editor.diagnostics(uri, version=1)
            assert codes(found) == ["JC104", "JC102", "JC202"]
            for diagnostic in found:
                assert diagnostic.code_description is not None
                links.append(diagnostic.code_description.href)
        finally:
            process = editor.client._server
            await editor.stop()
            assert process is not None and process.stderr is not None
            assert str(site) in (await process.stderr.read()).decode()  # the installed copy ran, not the checkout

    asyncio.run(once())
    asyncio.run(once())
    first, second = links[:3], links[3:]
    assert first == second  # a stable URL: the same in every session
    page = Path(to_fs_path(first[0].split("#")[0]) or "")
    assert page.is_relative_to(tmp_path / "cache") and page.read_text(encoding="utf-8") == render()
    for href, code in zip(first, ["JC104", "JC102", "JC202"], strict=True):
        assert href.endswith("#" + anchor(rules.BY_CODE[code]))
        assert f"## {code} `{rules.BY_CODE[code].name}`" in page.read_text(encoding="utf-8")


JITTED = "import jax\n\n\ndef f(x, k):\n    return x * k\n\n\nstep = jax.jit(f, static_argnums=1)\n"
USER = "from pkg.a import step\n\n\ndef run(x):\n    return step(x, [1, 2])\n"


def test_closing_a_file_without_saving_rejudges_its_importers_against_the_saved_text(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text(JITTED)

    async def body(editor: Editor) -> None:
        b = editor.open("pkg/b.py", USER)
        assert codes(await editor.diagnostics(b, version=1)) == ["JC202"]
        a = editor.open("pkg/a.py")
        await editor.diagnostics(a, version=1)
        await editor.diagnostics(b, after=1)  # opening a.py re-judged its importer
        before = editor.count(b)
        editor.change(a, JITTED.replace(", static_argnums=1", ""))
        editor.save(a)  # judged now (the file on disk is unchanged: the editor's save is never written here)
        assert await editor.diagnostics(b, after=before) == []
        before = editor.count(b)
        editor.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(a)))
        assert codes(await editor.diagnostics(b, after=before)) == ["JC202"]  # the discarded text no longer counts

    session(tmp_path, body, options=NEVER)


def test_files_changed_on_disk_rejudge_their_open_importers(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    a = tmp_path / "pkg" / "a.py"

    async def body(editor: Editor) -> None:
        b = editor.open("pkg/b.py", USER)
        assert await editor.diagnostics(b, version=1) == []  # pkg/a.py does not exist yet
        options = [r.register_options for r in editor.registrations]  # asked for before any diagnostics
        globs = {w["globPattern"] if isinstance(w, dict) else w.glob_pattern
                 for o in options for w in (o["watchers"] if isinstance(o, dict) else o.watchers)}  # type: ignore[union-attr]
        assert {"**/*.py", "**/*.ipynb", "**/pyproject.toml"} <= globs

        async def event(kind: types.FileChangeType) -> list[types.Diagnostic]:
            before = editor.count(b)
            editor.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                [types.FileEvent(a.as_uri(), kind)]))
            return await editor.diagnostics(b, after=before)

        a.write_text(JITTED)
        assert codes(await event(types.FileChangeType.Created)) == ["JC202"]
        a.write_text(JITTED.replace(", static_argnums=1", ""))  # a checkout: no static argument any more
        assert await event(types.FileChangeType.Changed) == []
        a.write_text(JITTED)
        assert codes(await event(types.FileChangeType.Changed)) == ["JC202"]
        a.unlink()
        assert await event(types.FileChangeType.Deleted) == []

    session(tmp_path, body, options=NEVER, caps=capabilities(watch=True))


def _long_module(copies: int = 120) -> str:
    """A long module (about 2,000 lines) full of findings: its judgement takes a while on any machine."""
    body = SOURCE.split("\n", 4)[4]  # the two functions, without the imports
    renamed = [body.replace("scale", f"scale_{i}").replace("def run", f"def run_{i}") for i in range(copies)]
    return "import functools\n\nimport jax\n\n" + "\n\n".join(renamed)


def test_requests_are_answered_while_a_long_analysis_runs_and_stale_work_is_dropped(tmp_path: Path) -> None:
    """Ordering, not timing: a hover on another file is answered before the long file's diagnostics come,
    and versions that were replaced while the long file was being judged are never published."""
    long = _long_module()

    async def body(editor: Editor) -> None:
        small = editor.open("small.py", SOURCE)
        lam = by_code(await editor.diagnostics(small, version=1), "JC104")
        big = editor.open("big.py", long)
        hover = await editor.hover(small, types.Position(lam.range.start.line, lam.range.start.character + 3))
        assert hover is not None and editor.count(big) == 0  # answered while big.py was still being judged
        editor.change(big, long.replace("[1, 2]", "(1, 2)"))
        editor.save(big)  # judged at once (no debounce): queued behind version 1, then replaced by version 3
        last = editor.change(big, long.replace("lambda x: x * 2", "scale_0"))
        editor.save(big)
        found = await editor.diagnostics(big, version=last)
        assert "JC104" not in codes(found) and "JC202" in codes(found)
        assert [p.version for p in editor.published[big]] == [last]  # version 1 came back stale, 2 never ran

    session(tmp_path, body, options=NEVER)


def test_a_file_opened_in_a_new_session_is_read_from_the_parts_the_last_one_stored(tmp_path: Path) -> None:
    """A long file's first judgement is kept in the folder's .jitcheck_cache; a new server opening it publishes
    the same findings (the command line's), read from there: a finding altered in the store shows altered."""
    expected = [(f.line - 1, f.column - 1, f.code, f.message) for f in check_text(LONG, "long.py", Settings()).findings]

    def got(found: list[types.Diagnostic]) -> list[tuple[int, int, str, str]]:
        return [(d.range.start.line, d.range.start.character, str(d.code), d.message.split("\nhelp: ")[0]) for d in found]

    async def first(editor: Editor) -> None:
        assert got(await editor.diagnostics(editor.open("long.py", LONG), version=1)) == expected
        for _ in range(int(WAIT * 10)):  # the parts are written after the publication, in the analysis thread
            if list((tmp_path / ".jitcheck_cache").glob("*/server-*.json")):
                break
            await asyncio.sleep(0.1)

    session(tmp_path, first)
    [stored] = (tmp_path / ".jitcheck_cache").glob("*/server-*.json")
    text = stored.read_text()
    assert text.count("JC1") >= len(expected) == 150

    edited = LONG.replace("def loss_3(p, x):", "def loss_3(p, x, scale=2):").replace("step_7 = jax.jit(loss_7)\n", "")
    after = [(f.line - 1, f.column - 1, f.code, f.message) for f in check_text(edited, "long.py", Settings()).findings]

    async def again(editor: Editor) -> None:
        uri = editor.open("long.py", LONG)
        assert got(await editor.diagnostics(uri, version=1)) == expected
        # an edit after it (its summary was stored too): judged as the command line does
        assert got(await editor.diagnostics(uri, version=editor.change(uri, edited))) == after

    session(tmp_path, again)
    message = expected[0][3]
    stored.write_text(text.replace(json.dumps(message)[1:-1], "altered in the store"))

    async def altered(editor: Editor) -> None:
        messages = {m for *_, m in got(await editor.diagnostics(editor.open("long.py", LONG), version=1))}
        assert "altered in the store" in messages and message not in messages

    session(tmp_path, altered)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="reads the process tree from /proc; one core starts no helper")
def test_the_helpers_start_with_the_server_before_any_file_is_opened_and_end_with_it(tmp_path: Path) -> None:
    """They are forked from the server as it starts, once it has loaded the static pass and judged a small module: no
    interpreter of their own to start while the editor opens its first file (a spawned one ran the server's command
    line's interpreter with multiprocessing's own arguments)."""
    def children(pid: int) -> set[int]:
        found: set[int] = set()
        for task in Path(f"/proc/{pid}/task").iterdir():
            found |= {int(child) for child in (task / "children").read_text().split()}
        return found

    async def main() -> None:
        editor = Editor(tmp_path)
        await editor.start()
        process = editor.client._server
        assert process is not None
        for _ in range(100):  # the pool's process is spawned as the server starts, before `initialize` is answered
            started = children(process.pid)
            if started:
                break
            await asyncio.sleep(0.05)
        assert started, "no helper process was started"
        for pid in started:  # forked from the server once it had loaded the static pass: its own command line, unchanged
            assert Path(f"/proc/{pid}/cmdline").read_bytes() == Path(f"/proc/{process.pid}/cmdline").read_bytes()
        uri = editor.open("long.py", LONG)
        found = await editor.diagnostics(uri, version=1)
        assert len(found) == 150
        await editor.stop()
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        for pid in started:  # every helper ended with the server
            for _ in range(100):
                if not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"helper {pid} outlived the server")

    asyncio.run(main())
