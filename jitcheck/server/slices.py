"""Judge a module by its independent parts, and judge again only the parts a change touched.

The static pass's cost is libcst's scope analysis of the whole module, paid on every
keystroke. But a finding involves a jit-like wrapper or graph constructor (its name is
spelled in some statement) and the names that statement's neighbourhood binds and
loads. So the top-level statements are grouped into *parts*: starting from each
statement that spells a wrapper's name, a part takes in every statement that binds a
name it loads and every statement that loads a name it binds, until nothing more
joins (imports are in every part and join nothing). Statements in no part cannot hold
a finding and nothing in a part depends on them.

A part is judged by the command line's own check (:func:`jitcheck.lint.check.check_text`)
on a small module of its statements and the imports they use, one after the other;
each finding goes back to its statement's lines (a top-level statement starts at
column 0, so columns do not move). Its findings are kept, keyed on the exact text of
its statements and imports, and reused while those stay the same: a change re-judges
only the part it touched. Whatever cannot be sliced (a syntax error, two statements on
one line, a slice libcst will not read) is judged whole.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from jitcheck.lint import names
from jitcheck.lint.check import check_text
from jitcheck.lint.findings import Finding
from jitcheck.lint.settings import Settings

_Scoped = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
IMPLICIT: frozenset[str] = frozenset({"ValuePartial"})
"""Names the static pass looks up in the whole module, whatever a statement loads (a fix that imports
``ValuePartial`` is offered only where the module does not bind that name to something else)."""


@dataclasses.dataclass(frozen=True)
class Statement:
    """A top-level statement: its lines (1-based, inclusive, decorators included), text and names."""

    start: int
    end: int
    text: str
    binds: frozenset[str]
    loads: frozenset[str]
    is_import: bool
    aliases: tuple[tuple[str, str], ...] = ()
    """For an import: (imported name, bound name) pairs; ``("*", "*")`` for a star or ``__future__`` import."""


def _binds(node: ast.stmt) -> frozenset[str]:
    """Module-level names ``node`` may bind (more is harmless: it only joins more statements)."""
    found: set[str] = set()

    def visit(item: ast.AST, in_function: bool) -> None:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not in_function:
            found.add(item.name)
        if isinstance(item, ast.Global):
            found.update(item.names)
        if not in_function:
            if isinstance(item, ast.Name) and isinstance(item.ctx, (ast.Store, ast.Del)):
                found.add(item.id)
            elif isinstance(item, ast.alias):
                found.add((item.asname or item.name).split(".")[0])
            elif isinstance(item, (ast.MatchAs, ast.MatchStar)) and item.name:
                found.add(item.name)
            elif isinstance(item, ast.ExceptHandler) and item.name:
                found.add(item.name)
        if isinstance(item, ast.NamedExpr) and isinstance(item.target, ast.Name):
            found.add(item.target.id)  # a walrus binds in its function, or at module level: counted either way
        for child in ast.iter_child_nodes(item):
            visit(child, in_function or isinstance(item, _Scoped))

    visit(node, False)
    return frozenset(found)


def _loads(node: ast.stmt) -> frozenset[str]:
    return IMPLICIT | frozenset(item.id for item in ast.walk(node) if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load))


def statements(text: str) -> list[Statement] | None:
    """The module's top-level statements, or None when ``ast`` cannot read it or two share a line."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.split("\n")
    found: list[Statement] = []
    for node in tree.body:
        decorators = getattr(node, "decorator_list", [])
        start = min([node.lineno, *(d.lineno for d in decorators)])
        end = node.end_lineno or node.lineno
        if found and start <= found[-1].end:
            return None
        piece = "\n".join(lines[start - 1:end])
        names_of = _NAMES.get(piece)
        if names_of is None:
            names_of = _NAMES[piece] = (_binds(node), _loads(node), _aliases(node))
            if len(_NAMES) > 50_000:
                _NAMES.clear()
        found.append(Statement(start, end, piece, names_of[0], names_of[1], isinstance(node, (ast.Import, ast.ImportFrom)),
                               names_of[2]))
    return found


_NAMES: dict[str, tuple[frozenset[str], frozenset[str], tuple[tuple[str, str], ...]]] = {}
"""The names of a statement's text (the same text binds and loads the same names wherever it is)."""


def _aliases(node: ast.stmt) -> tuple[tuple[str, str], ...]:
    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        return ()
    star = any(a.name == "*" for a in node.names)
    future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
    return (("*", "*"),) if star or future else tuple((a.name, a.asname or a.name.split(".")[0]) for a in node.names)


def spellings(found: Sequence[Statement], settings: Settings) -> frozenset[str]:
    """The names a statement must spell to start a part: jit-like wrappers, graph constructors, and their aliases."""
    wanted = names.last_names((*names.JIT_WRAPPERS, *names.NODE_CONSTRUCTORS, *names.GRAPH_CONSTRUCTORS,
                               *settings.jit_wrappers, *settings.graph_constructors))
    aliases = {bound for s in found for name, bound in s.aliases if name.rsplit(".", 1)[-1] in wanted}
    return wanted | frozenset(aliases)


def import_index(found: Sequence[Statement]) -> dict[str, list[Statement]]:
    """The imports binding each name (``"*"``: star and ``__future__`` imports)."""
    by_name: dict[str, list[Statement]] = {}
    for statement in found:
        for _, bound in statement.aliases:
            by_name.setdefault(bound, []).append(statement)
    return by_name


def imports_for(by_name: dict[str, list[Statement]], members: Iterable[Statement]) -> list[Statement]:
    """The imports that bind a name the ``members`` load (star and ``__future__`` imports always), in order."""
    chosen = {id(s): s for s in by_name.get("*", ())}
    for member in members:
        for name in member.loads:
            for statement in by_name.get(name, ()):
                chosen[id(statement)] = statement
    return sorted(chosen.values(), key=lambda s: s.start)


def compact(pieces: Sequence[Statement]) -> tuple[str, list[int]]:
    """The statements one after the other as a module, and the line each starts on in it."""
    starts, line, texts = [], 1, []
    for statement in pieces:
        starts.append(line)
        texts.append(statement.text)
        line += statement.text.count("\n") + 1
    return "\n".join(texts) + "\n", starts


def parts(found: Sequence[Statement], spelled: Iterable[str]) -> list[list[int]]:
    """The indices of the non-import statements of each part (statements in no part are left out)."""
    spelled = tuple(spelled)
    others = [i for i, s in enumerate(found) if not s.is_import]
    binders: dict[str, list[int]] = {}
    loaders: dict[str, list[int]] = {}
    for i in others:
        for name in found[i].binds:
            binders.setdefault(name, []).append(i)
        for name in found[i].loads:
            loaders.setdefault(name, []).append(i)
    owner: dict[int, int] = {}
    groups: list[list[int]] = []
    for seed in others:
        if seed in owner or not any(name in found[seed].text for name in spelled):
            continue
        group: list[int] = []
        todo = [seed]
        owner[seed] = len(groups)
        while todo:
            i = todo.pop()
            group.append(i)
            statement = found[i]
            linked = [j for name in statement.loads for j in binders.get(name, ())]
            linked += [j for name in statement.binds for j in loaders.get(name, ())]
            for j in linked:
                if j not in owner:
                    owner[j] = len(groups)
                    todo.append(j)
        groups.append(sorted(group))
    return groups


@dataclasses.dataclass(frozen=True)
class _Stored:
    """A finding of a part, its line counted from the start of its statement (the ``index``-th of the part)."""

    index: int
    line: int
    end_line: int
    finding: Finding


class SlicedChecker:
    """Findings of whole modules, judged part by part, with the parts' findings kept for reuse."""

    def __init__(self, max_parts: int = 20_000) -> None:
        self._kept: OrderedDict[bytes, tuple[_Stored, ...]] = OrderedDict()
        self._max = max_parts
        self.judged_parts = 0
        """How many parts were judged anew (the others were reused): for tests and benchmarks."""

    def check(self, text: str, path: str, settings: Settings) -> tuple[Finding, ...]:
        """The same findings as ``check_text(text, path, settings)``, in the same order."""
        found = statements(text)
        if found is None:
            return self._whole(text, path, settings)
        setting = repr((settings.graph_constructors, settings.jit_wrappers, path.endswith("__init__.py"))).encode()
        results: list[Finding] = []
        missing: list[tuple[bytes, list[Statement]]] = []
        by_name = import_index(found)
        for group in parts(found, spellings(found, settings)):
            members = [found[i] for i in group]
            digest = hashlib.sha256(setting)
            for statement in (*imports_for(by_name, members), *members):
                digest.update(b"\0" + statement.text.encode("utf-8", "surrogatepass"))
            key = digest.digest()
            stored = self._kept.get(key)
            if stored is None:
                missing.append((key, members))
                continue
            self._kept.move_to_end(key)
            results.extend(_placed(stored, members, path))
        if missing:
            everything = [s for _, members in missing for s in members]
            pieces = sorted({*imports_for(by_name, everything), *everything}, key=lambda s: s.start)
            source, starts = compact(pieces)
            checked = check_text(source, path, dataclasses.replace(settings, fix=None))
            if checked.internal_error or any(f.code == "JC000" for f in checked.findings):
                return self._whole(text, path, settings)
            moved = list(_moved(checked.findings, pieces, starts))
            for key, members in missing:
                stored = tuple(_stored(moved, members))
                self._keep(key, stored)
                results.extend(_placed(stored, members, path))
                self.judged_parts += 1
        results.sort(key=lambda f: (f.line, f.column, f.code))
        return tuple(results)

    def _whole(self, text: str, path: str, settings: Settings) -> tuple[Finding, ...]:
        return check_text(text, path, dataclasses.replace(settings, fix=None)).findings

    def _keep(self, key: bytes, stored: tuple[_Stored, ...]) -> None:
        self._kept[key] = stored
        while len(self._kept) > self._max:
            self._kept.popitem(last=False)


def _moved(findings: Iterable[Finding], pieces: Sequence[Statement], starts: Sequence[int]) -> Iterable[Finding]:
    """The findings of a compact module at their lines in the real one."""
    for finding in findings:
        index = max(i for i, start in enumerate(starts) if start <= finding.line)
        shift = pieces[index].start - starts[index]
        yield dataclasses.replace(finding, line=finding.line + shift,
                                  end_line=finding.end_line + shift if finding.end_line else 0)


def _stored(findings: Iterable[Finding], members: Sequence[Statement]) -> Iterable[_Stored]:
    for finding in findings:
        for index, statement in enumerate(members):
            if statement.start <= finding.line <= statement.end:
                end = finding.end_line - statement.start if finding.end_line else -1
                yield _Stored(index, finding.line - statement.start, end, finding)
                break


def _placed(stored: Iterable[_Stored], members: Sequence[Statement], path: str) -> Iterable[Finding]:
    for item in stored:
        start = members[item.index].start
        yield dataclasses.replace(item.finding, path=path, line=start + item.line,
                                  end_line=start + item.end_line if item.end_line >= 0 else 0)


__all__ = ["SlicedChecker", "Statement", "compact", "import_index", "imports_for", "parts", "spellings", "statements"]
