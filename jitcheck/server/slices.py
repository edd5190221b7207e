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
import bisect
import dataclasses
import gc
import hashlib
import re
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any

from jitcheck.lint import names
from jitcheck.lint.cache import Cache
from jitcheck.lint.check import Checked, check_text
from jitcheck.lint.evidence import Evidence, Reason
from jitcheck.lint.findings import Finding
from jitcheck.lint.index import ProjectIndex
from jitcheck.lint.settings import Settings
from jitcheck.server.compiling import compiles_by_statement
from jitcheck.server.helpers import Helpers
from jitcheck.server.statements import Statement, statements


def spellings(found: Sequence[Statement], settings: Settings, index: ProjectIndex | None = None) -> frozenset[str]:
    """The names a statement must spell to start a part: jit-like wrappers, graph constructors, their aliases,
    and what the project index says other modules define as factories or jitted functions with static arguments."""
    wanted = names.last_names((*names.JIT_WRAPPERS, *names.NODE_CONSTRUCTORS, *names.GRAPH_CONSTRUCTORS,
                               *settings.jit_wrappers, *settings.graph_constructors))
    if index is not None:
        hints = index.hints()
        wanted |= hints.factories | hints.static_jitted
    aliases = {bound for s in found for name, bound in s.aliases if name.rsplit(".", 1)[-1] in wanted}
    return wanted | frozenset(aliases)


def import_index(found: Sequence[Statement]) -> dict[str, list[Statement]]:
    """The imports binding each name (``"*"``: star and ``__future__`` imports).

    An import whose text repeats an earlier one binds nothing new: the same names to
    the same modules, already bound from the first one on (a name the analysis resolves
    through imports has the same qualified names either way). So only the first of
    identical imports is listed and goes into a part's module.
    """
    by_name: dict[str, list[Statement]] = {}
    seen: set[str] = set()
    for statement in found:
        if statement.aliases and statement.text in seen:
            continue
        seen.add(statement.text)
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


def seeds(statement: Statement, spelled: Iterable[str]) -> bool:
    """Whether ``statement`` starts a part: it spells one of the names (a wrapper, a constructor, an alias)."""
    return not statement.is_import and any(name in statement.text for name in spelled)


def same_parts(old: Sequence[Statement], new: Sequence[Statement], spelled: Iterable[str]) -> bool:
    """Whether ``parts(new, spelled)`` is ``parts(old, spelled)``: statement by statement, the same text, or the
    same names bound and loaded and the same start of a part (an edit inside a function body)."""
    if len(old) != len(new):
        return False
    spelled = tuple(spelled)
    return all(a.text == b.text or (a.is_import == b.is_import and a.binds == b.binds and a.loads == b.loads
                                    and seeds(a, spelled) == seeds(b, spelled)) for a, b in zip(old, new, strict=True))


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
        if seed in owner or not seeds(found[seed], spelled):
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


BATCH_LINES = 600
"""About how many lines of parts one check reads: a bound on how long a newer text waits for a stale judgement
(a whole file's first judgement is many batches), and few enough batches that their fixed cost is small."""

_IN_FLIGHT = 2
"""How many batches each helper is handed at a time: the one it judges and the next, waiting in its queue."""


class Superseded(Exception):
    """A judgement given up because a newer text of its document came (``stale()`` said so)."""


_Batch = list[tuple[bytes, list[Statement]]]
"""Parts to judge together: each one's key and statements."""
_Judged = tuple[_Batch, list[Statement], list[int], Checked]
"""A batch, the statements of its module (imports included), the line each starts on there, and its check."""


def _batches(missing: _Batch, lines: int, ways: int = 1) -> Iterable[_Batch]:
    """``missing`` in order, cut into runs of parts of about the same number of lines, at most about ``lines`` each.

    The runs are as even as whole parts allow (a first judgement of 3,055 lines in batches of 600 was five
    batches and a sixth of 29 lines, a check's fixed cost and a helper's round trip for almost nothing), and with
    ``ways`` judges (this thread and the helpers) their count is a multiple of ``ways`` where there is more than
    one: the judges, taking batches from both ends, run out of them together rather than one judging a last
    batch alone while the other waits.
    """
    sizes = [sum(member.end - member.start + 1 for member in members) for _, members in missing]
    total = sum(sizes)
    count = max(1, -(-total // max(1, lines)))
    if ways > 1 and count > 1:
        count = -(-count // ways) * ways
    share = total / count
    batch: _Batch = []
    done = 0  # the lines of the batches cut so far and of this one
    cut = 1  # the batch being filled: it ends once the batches so far hold ``cut`` shares
    for (key, members), size in zip(missing, sizes, strict=True):
        batch.append((key, members))
        done += size
        if done >= share * cut:
            yield batch
            batch = []
            while done >= share * cut:  # a part longer than a share fills more than one
                cut += 1
    if batch:
        yield batch


@dataclasses.dataclass
class _Part:
    """A part's findings as judged (``stored``), and as last placed in a module (kept while its statements stay put)."""

    stored: tuple[_Stored, ...]
    judged: tuple[tuple[int, int], ...]
    """The first and last line of each member when it was judged (the lines its findings' evidence names)."""
    starts: tuple[int, ...] = ()
    path: str = ""
    placed: tuple[Finding, ...] = ()

    def at(self, members: Sequence[Statement], path: str) -> tuple[Finding, ...]:
        """The findings at the lines of ``members`` in the file at ``path``."""
        starts = tuple(member.start for member in members)
        if starts != self.starts or path != self.path:
            judged = self.judged

            def where(line: int) -> int:  # a line of the part when judged, now
                for (first, last), start in zip(judged, starts, strict=True):
                    if first <= line <= last:
                        return line + start - first
                return line

            moved = any(start != first for (first, _), start in zip(judged, starts, strict=True))
            self.placed = tuple(_placed(self.stored, members, path, where if moved else None))
            self.starts, self.path = starts, path
        return self.placed


@dataclasses.dataclass(frozen=True)
class _Stored:
    """A finding of a part, its line counted from the start of its statement (the ``index``-th of the part)."""

    index: int
    line: int
    end_line: int
    finding: Finding


class SlicedChecker:
    """Findings of whole modules, judged part by part, with the parts' findings kept for reuse."""

    def __init__(self, max_parts: int = 20_000, batch_lines: int = BATCH_LINES, helpers: Helpers | None = None) -> None:
        self.batch_lines = batch_lines
        self.helpers = helpers
        """Processes that judge some of the batches of a judgement that has more than one (None: all judged here)."""
        self._kept: OrderedDict[bytes, _Part] = OrderedDict()
        self._grouped: tuple[Sequence[Statement], frozenset[str], list[list[int]]] = ((), frozenset(), [])
        """The statements last grouped into parts, the names that started them, and the parts."""
        self._max = max_parts
        self._keyed: tuple[tuple[str, ...], dict[tuple[bytes | str, ...], bytes]] = ((), {})
        """The module's import statements (their texts, in order) and, under them, each part's key by the texts of
        its members (the imports a part takes in are chosen by those alone)."""
        self._index: ProjectIndex | None = None
        self._module = ""
        self.judged_parts = 0
        """How many parts were judged anew (the others were reused): for tests and benchmarks."""
        self._unstored: list[tuple[Cache, str, _Part]] = []
        """Parts judged for a ``store`` and not yet put in it (:meth:`store_judged`)."""

    def check(self, text: str, path: str, settings: Settings, *, index: ProjectIndex | None = None, module_name: str = "",
              depends: str = "", tree: ast.Module | None = None, stale: Callable[[], bool] | None = None,
              store: Cache | None = None) -> tuple[Finding, ...]:
        """The same findings as ``check_text(text, path, settings, index=index, module_name=module_name)``, in order.

        ``depends`` is a digest of what the module's findings depend on in ``index`` (the
        summaries it imports, :meth:`jitcheck.lint.index.ProjectIndex.dependency_keys`):
        a part is reused only while it is the same. ``tree`` is Python's syntax tree of ``text``
        when the caller has it already. The parts to judge are judged in batches of about ``batch_lines``
        lines, by this thread from the first and by the helpers (if any) from the last; before each, ``stale()``
        says whether a newer text has come (then :class:`Superseded` is raised). ``store`` holds parts judged in
        earlier sessions (:mod:`jitcheck.server.stored`): a part found there is not judged again, a part judged
        here is added to it (the caller saves it).
        """
        self.store_judged()
        self._index, self._module = index, module_name
        found = statements(text, tree)
        if found is None:
            return self._whole(text, path, settings)
        setting = repr((settings.graph_constructors, settings.jit_wrappers, path.endswith("__init__.py"), module_name,
                        depends)).encode()
        results: list[Finding] = []
        missing: list[tuple[bytes, list[Statement]]] = []
        by_name = import_index(found)
        imported = tuple(s.text for s in found if s.is_import)  # what by_name is made of, in order
        if imported != self._keyed[0]:
            self._keyed = (imported, {})
        keys = self._keyed[1]
        for group in self._parts(found, spellings(found, settings, index)):
            members = [found[i] for i in group]
            texts: tuple[bytes | str, ...] = (setting, *(member.text for member in members))
            key = keys.get(texts)
            if key is None:
                digest = hashlib.sha256(setting)
                for statement in (*imports_for(by_name, members), *members):
                    digest.update(b"\0" + statement.text.encode("utf-8", "surrogatepass"))
                key = digest.digest()
                if len(keys) >= self._max:
                    keys.clear()
                keys[texts] = key
            stored = self._kept.get(key)
            if stored is None and store is not None:
                stored = _from_rows(store.entries.get(key.hex()), path, len(members))
                if stored is not None:
                    self._keep(key, stored)
            if stored is None:
                missing.append((key, members))
                continue
            self._kept.move_to_end(key)
            results.extend(stored.at(members, path))
        plain = dataclasses.replace(settings, fix=None)

        def prepared(batch: _Batch) -> tuple[list[Statement], list[int], str]:
            everything = [s for _, members in batch for s in members]
            pieces = sorted({*imports_for(by_name, everything), *everything}, key=lambda s: s.start)
            source, starts = compact(pieces)
            return pieces, starts, source

        ways = 1 + (self.helpers.count if self.helpers is not None else 0)
        batches = deque(_batches(missing, self.batch_lines, ways))
        judged: list[_Judged] = []
        gave_up = threading.Event()
        changed = threading.Condition()  # guards batches, judged and the count of batches helpers hold
        held = [0]

        def take(front: bool, leaving: int = 0) -> _Batch | None:
            """The next batch from the front (this thread) or the back (a helper), while more than ``leaving`` are left."""
            if stale is not None and stale():
                gave_up.set()
            with changed:
                if gave_up.is_set() or len(batches) <= leaving:
                    return None
                if not front:
                    held[0] += 1
                return batches.popleft() if front else batches.pop()

        if self.helpers is not None and self.helpers.count and len(batches) > 1:
            helpers = self.helpers

            def help_() -> None:  # in a thread of its own: hands batches from the end to a helper process once it is up
                try:
                    helpers.ready()
                except Exception:  # a helper that cannot start: everything is judged here
                    helpers.stop()
                    return
                # Two batches in flight: the next one waits in the helper's queue and starts as the last ends. Handed
                # on one at a time, a helper sat idle between batches while this process (its analysis thread holding
                # the interpreter's lock for a batch of its own) took the result in, prepared the next batch and sent it.
                held_here: deque[_Batch] = deque()  # taken by this helper and not judged yet, oldest first
                sent: deque[tuple[list[Statement], list[int], Future[Checked]]] = deque()
                try:
                    while True:
                        # (the next batch only while this thread still has one left to take: at the end a batch
                        # waiting in a busy helper's queue would leave this thread idle)
                        while len(held_here) < _IN_FLIGHT and (batch := take(False, 1 if held_here else 0)) is not None:
                            held_here.append(batch)
                            pieces, starts, source = prepared(batch)
                            sent.append((pieces, starts, helpers.check(source, path, plain, index, module_name)))
                        if not held_here:
                            return
                        pieces, starts, future = sent[0]
                        checked = future.result()
                        sent.popleft()
                        with changed:
                            judged.append((held_here.popleft(), pieces, starts, checked))
                            held[0] -= 1
                            changed.notify_all()
                except Exception:  # a helper that died or refused the work: its batches are judged here instead
                    with changed:
                        batches.extend(held_here)
                        held[0] -= len(held_here)
                        changed.notify_all()
                    helpers.stop()  # and the next judgement starts new helpers

            for _ in range(helpers.count):
                threading.Thread(target=help_, name="jitcheck-helper-feed", daemon=True).start()
        # A judgement of many batches (a file's first) pauses the collector's automatic passes, which scan the
        # growing heap of the parts judged so far again and again (a fifth of the CPU of a 5,000-line file's, two
        # fifths of a 30,000-line file's), and collects the young generations after each batch instead: the
        # garbage of a batch's libcst trees goes at once, so the heap stays the size it was with the collector on.
        paused = len(batches) > 1 and gc.isenabled()
        if paused:
            gc.disable()
        unreadable = False
        try:
            while True:
                while (batch := take(front=True)) is not None:
                    pieces, starts, source = prepared(batch)
                    checked = check_text(source, path, plain, index=index, module_name=module_name)
                    with changed:
                        judged.append((batch, pieces, starts, checked))
                    if paused:
                        gc.collect(1)
                with changed:  # wait for the batches helpers hold (a helper still starting holds none)
                    changed.wait_for(lambda: held[0] == 0 or bool(batches and not gave_up.is_set()))
                    if held[0] == 0 and (gave_up.is_set() or not batches):
                        break
            # The parts are placed with the collector still paused: what they allocate (every finding placed, every
            # part kept) would otherwise count towards a full pass of the collector, which then came before the
            # publication (26-49 ms at load 9 on the bench's file); the settling after the publication makes it.
            judged.sort(key=lambda done: done[0][0][1][0].start)  # in the file's order, whoever judged them
            for batch, pieces, starts, checked in judged:
                if checked.internal_error or any(f.code == "JC000" for f in checked.findings):
                    unreadable = True
                    break
                moved = list(_moved(checked.findings, pieces, starts))
                for key, members in batch:
                    found_here = tuple(_stored(moved, members))
                    # placed where they were judged: the findings as moved (``at`` made each one again, the same)
                    part = _Part(found_here, tuple((member.start, member.end) for member in members),
                                 tuple(member.start for member in members), path, tuple(item.finding for item in found_here))
                    self._keep(key, part)
                    if store is not None:  # written out as rows after the publication (store_judged), not before it
                        self._unstored.append((store, key.hex(), part))
                    results.extend(part.at(members, path))
                    self.judged_parts += 1
        finally:
            if paused:
                gc.enable()
        if unreadable:
            return self._whole(text, path, settings)
        if gave_up.is_set():
            raise Superseded(path)  # the parts judged so far are kept: the newer text's judgement reuses them
        results.sort(key=lambda f: (f.line, f.column, f.code))
        if any(f.fix is not None for f in results) and not compiles_by_statement(text, found):
            # a fix is offered only for a file Python compiles (a late `from __future__`): a whole-file fact no part sees
            results = [dataclasses.replace(f, fix=None, fix_message="", edits=()) for f in results]
        return tuple(results)

    def store_judged(self) -> None:
        """Put the parts judged for a ``store`` since the last call in it, as JSON rows: the caller does so after
        publishing the judgement (turning a first judgement's 358 parts of the bench's 5,000-line file into rows took
        16 ms of the open), and every judgement does so as it starts (a part is then found in its store as before)."""
        unstored, self._unstored = self._unstored, []
        for store, key, part in unstored:
            store.put_rows(key, _rows(part))

    def _whole(self, text: str, path: str, settings: Settings) -> tuple[Finding, ...]:
        return check_text(text, path, dataclasses.replace(settings, fix=None), index=self._index,
                          module_name=self._module).findings

    def _parts(self, found: Sequence[Statement], spelled: frozenset[str]) -> list[list[int]]:
        """``parts(found, spelled)``, kept from the last call while an edit changes no part (a keystroke in a body)."""
        old, old_spelled, groups = self._grouped
        if spelled != old_spelled or not same_parts(old, found, spelled):
            groups = parts(found, spelled)
        self._grouped = (found, spelled, groups)
        return groups

    def _keep(self, key: bytes, stored: _Part) -> None:
        self._kept[key] = stored
        while len(self._kept) > self._max:
            self._kept.popitem(last=False)


def _rows(part: _Part) -> list[list[Any]]:
    """A part's findings as JSON rows (:mod:`jitcheck.server.stored`): its members' lines when judged, then each finding."""
    return [[list(lines) for lines in part.judged],
            *([item.index, item.line, item.end_line, item.finding.to_row()] for item in part.stored)]


def _from_rows(rows: list[list[Any]] | None, path: str, members: int) -> _Part | None:
    """The part stored as ``rows`` (None: none, or rows of another shape: a damaged store is only a miss)."""
    if not rows:
        return None
    try:
        judged = tuple((int(first), int(last)) for first, last in rows[0])
        stored = tuple(_Stored(int(index), int(line), int(end), Finding.from_row(path, row))
                       for index, line, end, row in rows[1:])
    except (TypeError, ValueError):
        return None
    if len(judged) != members or any(not 0 <= item.index < members for item in stored):
        return None
    return _Part(stored, judged)


_LINE = re.compile(r"\bline (\d+)\b")
""""line N" in a reason's words: one pattern for every N (a pattern per line number was compiled per finding)."""


def relocated(evidence: Evidence, where: Callable[[int], int]) -> Evidence:
    """``evidence`` with every line it names (a reason's line, and "line N" in its words) moved to ``where(N)``."""
    def moved(reason: Reason) -> Reason:
        if not reason.line:
            return reason
        line = where(reason.line)
        old, new = str(reason.line), f"line {line}"
        text = _LINE.sub(lambda found: new if found[1] == old else found[0], reason.text)
        return Reason(reason.kind, text, line)

    if not any(reason.line for reason in (*evidence.again, *evidence.same)):
        return evidence
    return dataclasses.replace(evidence, again=tuple(map(moved, evidence.again)), same=tuple(map(moved, evidence.same)))


def _moved(findings: Iterable[Finding], pieces: Sequence[Statement], starts: Sequence[int]) -> Iterable[Finding]:
    """The findings of a compact module at their lines in the real one (the lines their evidence names too)."""
    def where(line: int) -> int:
        index = bisect.bisect_right(starts, line) - 1
        return line + pieces[index].start - starts[index] if index >= 0 else line

    for finding in findings:
        yield dataclasses.replace(finding, line=where(finding.line), end_line=where(finding.end_line) if finding.end_line else 0,
                                  evidence=relocated(finding.evidence, where))


def _stored(findings: Iterable[Finding], members: Sequence[Statement]) -> Iterable[_Stored]:
    for finding in findings:
        for index, statement in enumerate(members):
            if statement.start <= finding.line <= statement.end:
                end = finding.end_line - statement.start if finding.end_line else -1
                yield _Stored(index, finding.line - statement.start, end, finding)
                break


def _placed(stored: Iterable[_Stored], members: Sequence[Statement], path: str,
            where: Callable[[int], int] | None) -> Iterable[Finding]:
    """The stored findings at their members' lines now; ``where`` moves the lines their evidence names (None: unmoved)."""
    for item in stored:
        start = members[item.index].start
        evidence = item.finding.evidence if where is None else relocated(item.finding.evidence, where)
        yield dataclasses.replace(item.finding, path=path, line=start + item.line,
                                  end_line=start + item.end_line if item.end_line >= 0 else 0, evidence=evidence)


__all__ = ["BATCH_LINES", "SlicedChecker", "Statement", "Superseded", "compact", "import_index", "imports_for", "parts",
           "relocated", "same_parts", "seeds", "spellings", "statements"]
