"""Judging part by part (jitcheck.server.slices) finds exactly what the whole-module check finds,
before and after edits, and a change re-judges only the part it touched."""

from __future__ import annotations

import contextlib
import gc
import re
import textwrap
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from jitcheck.lint.check import check_text
from jitcheck.lint.findings import Finding
from jitcheck.lint.settings import Settings
from jitcheck.server import slices
from jitcheck.server.helpers import Helpers
from jitcheck.server.slices import SlicedChecker, Superseded, import_index, parts, same_parts, spellings, statements
from tests.lint.checks import test_callables, test_nodes, test_static_values
from tests.lint.checks.support import HEADER

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = (test_callables, test_static_values, test_nodes)
TRUE_POSITIVES = {name: case for family in FAMILIES for name, case in family.TRUE_POSITIVES.items()}
TRUE_NEGATIVES = {name: case for family in FAMILIES for name, case in family.TRUE_NEGATIVES.items()}
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py"))
EDITED = ["fixtures/lint_project/data.py", "fixtures/example_project/example_buggy/schedule.py",
          "fixtures/mypy_cases/node_bodies.py"]
SETTINGS = Settings()
BLOCK = ("def loss_{i}(p, x):\n    return p * x\n\n\nstep_{i} = jax.jit(loss_{i})\n\n\n"
         "def train_{i}(p, xs):\n    for x in xs:\n        p = jax.jit(lambda q: q - loss_{i}(q, x))(p)\n    return p\n\n\n")


def whole(text: str, path: str = "m.py", settings: Settings = SETTINGS) -> tuple[Finding, ...]:
    return check_text(text, path, settings).findings


def doc_blocks() -> list[str]:
    blocks = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        blocks += re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    return blocks


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_fixture_gets_the_whole_modules_findings(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert SlicedChecker().check(text, str(path), SETTINGS) == whole(text, str(path))


def rule_cases() -> list[str]:
    cases = {**TRUE_POSITIVES, **TRUE_NEGATIVES}
    return [HEADER + textwrap.dedent(str(case[0] if isinstance(case, tuple) else case)) for case in cases.values()]


def test_every_rule_case_and_python_block_of_the_docs_gets_the_whole_modules_findings() -> None:
    checker = SlicedChecker()
    sources = rule_cases() + doc_blocks()
    with_findings = 0
    for source in sources:
        expected = whole(source)
        with_findings += bool(expected)
        assert SlicedChecker().check(source, "m.py", SETTINGS) == expected, source
        assert checker.check(source, "m.py", SETTINGS) == expected, source  # with every earlier source's parts kept
    assert with_findings >= len(TRUE_POSITIVES)


@pytest.mark.parametrize("name", EDITED)
def test_after_each_edit_the_kept_parts_still_give_the_whole_modules_findings(name: str) -> None:
    """Delete each top-level statement in turn, and duplicate it, judging with one warm checker."""
    text = (ROOT / name).read_text(encoding="utf-8")
    found = statements(text)
    assert found is not None and whole(text, name)
    checker = SlicedChecker()
    checker.check(text, name, SETTINGS)
    lines = text.split("\n")
    for statement in found:
        removed = "\n".join(lines[: statement.start - 1] + lines[statement.end:])
        doubled = "\n".join(lines[: statement.end] + lines[statement.start - 1:])
        for variant in (removed, doubled):
            assert checker.check(variant, name, SETTINGS) == whole(variant, name), (name, statement.start)


def test_configured_wrappers_start_parts_and_change_the_key() -> None:
    text = "import mylib\n\ndef run(xs):\n    for x in xs:\n        mylib.compile(lambda v: v)(x)\n"
    configured = Settings(jit_wrappers=("mylib.compile",))
    checker = SlicedChecker()
    assert checker.check(text, "m.py", SETTINGS) == whole(text) == ()
    assert checker.check(text, "m.py", configured) == whole(text, settings=configured) != ()


def test_a_change_rejudges_only_the_part_it_touched() -> None:
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    found = statements(text)
    assert found is not None and len(parts(found, spellings(found, SETTINGS))) == 6
    checker = SlicedChecker()
    first = checker.check(text, "m.py", SETTINGS)
    assert first == whole(text) and checker.judged_parts == 6
    edited = text.replace("return p * x", "return p * x * 2", 1)
    assert checker.check(edited, "m.py", SETTINGS) == whole(edited)
    assert checker.judged_parts == 7
    moved = "# a new first line\n" + edited
    assert checker.check(moved, "m.py", SETTINGS) == whole(moved)  # every part reused, one line further down
    assert checker.judged_parts == 7


def test_the_parts_are_kept_only_while_no_statement_changes_what_it_binds_loads_or_spells() -> None:
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(3))
    found = statements(text)
    assert found is not None
    spelled = spellings(found, SETTINGS)
    for old, new, kept in (("return p * x", "return p * x * 2", True),  # a keystroke in a body
                           ("return p * x", "return p * y", False),  # loads another name
                           ("return p * x", "return jax.jit(p)(x)", False),  # spells a wrapper: starts a part
                           ("def loss_1(p, x):", "def loss_9(p, x):", False)):  # binds another name
        edited = statements(text.replace(old, new, 1))
        assert edited is not None
        assert same_parts(found, edited, spelled) is kept, new
        if kept:
            assert parts(edited, spelled) == parts(found, spelled)


def test_parts_judged_in_small_batches_give_the_whole_modules_findings() -> None:
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    checker = SlicedChecker(batch_lines=1)  # one part a batch
    assert checker.check(text, "m.py", SETTINGS) == whole(text) != ()
    assert checker.judged_parts == 6


def test_a_first_judgements_batches_are_even_with_no_short_last_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # 20 parts of 7 lines in batches of about 60: three of 7, 7 and 6 parts (cut at 60 lines or more, they were 9, 9
    # and a last of 2: a check's fixed cost, and a helper's round trip, for a few lines)
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(20))
    judged: list[int] = []

    def counted(source: str, *args: object, **kwargs: object) -> object:
        judged.append(source.count("def train_"))
        return check_text(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(slices, "check_text", counted)
    checker = SlicedChecker(batch_lines=60)
    assert checker.check(text, "m.py", SETTINGS) == whole(text) != ()
    assert judged == [7, 7, 6]


def test_batches_come_in_a_multiple_of_the_judges_taking_them() -> None:
    # this thread and a helper take batches from both ends: an even count, so that neither judges a last one alone
    found = statements("import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(20)))
    assert found is not None
    missing = [(bytes([i]), [found[j] for j in group]) for i, group in enumerate(parts(found, spellings(found, SETTINGS)))]
    assert [len(batch) for batch in slices._batches(missing, 60, ways=2)] == [5, 5, 5, 5]
    assert [len(batch) for batch in slices._batches(missing, 40, ways=3)] == [4, 3, 3, 4, 3, 3]
    assert [len(batch) for batch in slices._batches(missing, 1, ways=2)] == [1] * 20  # one part a batch, as before
    assert [len(batch) for batch in slices._batches(missing, 600, ways=2)] == [20]  # one batch: no helper


def test_a_judgement_a_newer_text_made_stale_stops_between_batches_and_its_parts_are_kept() -> None:
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    asked: list[int] = []

    def stale() -> bool:  # the newer text comes while the second batch is judged
        asked.append(len(asked))
        return len(asked) > 2

    checker = SlicedChecker(batch_lines=1)
    with pytest.raises(Superseded):
        checker.check(text, "m.py", SETTINGS, stale=stale)
    assert checker.judged_parts == 2  # asked before each batch: two judged, then given up
    edited = text.replace("return p * x", "return p * x * 2", 1)  # the newer text: one part changed
    assert checker.check(edited, "m.py", SETTINGS, stale=lambda: False) == whole(edited)
    assert checker.judged_parts == 2 + 5  # the changed first part and the four never judged; the second one kept


def test_the_evidence_names_the_lines_of_the_file_as_the_command_lines_does_also_after_lines_move() -> None:
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(3))
    checker = SlicedChecker()

    def evidence(found: tuple[Finding, ...]) -> list[object]:
        return [(f.line, f.evidence) for f in found]

    found = checker.check(text, "m.py", SETTINGS)
    assert any(reason.line > 14 for f in found for reason in f.evidence.again)  # lines of a later part, in the words too
    assert evidence(found) == evidence(whole(text))
    for edited in ("# a new first line\n" + text,  # every part kept, its lines moved
                   text.replace("    for x in xs:\n", "    xs = list(xs)\n    for x in xs:\n", 1)):  # one part judged again
        assert evidence(checker.check(edited, "m.py", SETTINGS)) == evidence(whole(edited))


def test_a_helper_process_judges_a_batch_as_this_process_does_and_shares_a_first_judgement() -> None:
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    helpers = Helpers(1)
    try:
        helped = helpers.check(text, "m.py", SETTINGS, None, "").result()
        assert helped == check_text(text, "m.py", SETTINGS) and helped.findings != ()
        assert [f.evidence for f in helped.findings] == [f.evidence for f in whole(text)]
        checker = SlicedChecker(batch_lines=1, helpers=helpers)  # six batches, from both ends
        assert checker.check(text, "m.py", SETTINGS) == whole(text) and checker.judged_parts == 6
    finally:
        helpers.stop(terminate=True)



@contextlib.contextmanager
def _collector(enabled: bool, monkeypatch: pytest.MonkeyPatch, module: types.ModuleType) -> Iterator[list[bool]]:
    """The collector switched on or off (``enabled``) for the block, restored after it, with ``module``'s
    ``check_text`` recording whether the collector's automatic passes were on at each call."""
    during: list[bool] = []

    def checked(*args: object, **kwargs: object) -> object:
        during.append(gc.isenabled())
        return check_text(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "check_text", checked)
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        yield during
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_a_helpers_check_pauses_the_collector_while_it_runs_and_leaves_it_as_it_was(
        enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a helper process runs for a batch (``helpers._check``, here in this process): the collector's automatic
    passes paused during the check, as the analysis thread pauses them for its batches; the same check either way."""
    from jitcheck.lint import check
    from jitcheck.server import helpers

    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    with _collector(enabled, monkeypatch, check) as during:
        assert helpers._check(text, "m.py", SETTINGS, None, "") == check_text(text, "m.py", SETTINGS)
        assert during == [False] and gc.isenabled() is enabled


@pytest.mark.parametrize("enabled", [True, False])
def test_a_judgement_of_many_batches_pauses_the_collector_and_leaves_it_as_it_was(
        enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The collector's automatic passes are paused while the batches are judged (the young generations are collected
    after each); a judgement of one batch (a keystroke's) leaves them on; the findings are the same either way."""
    from jitcheck.server import slices

    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    with _collector(enabled, monkeypatch, slices) as during:
        assert SlicedChecker(batch_lines=1).check(text, "m.py", SETTINGS) == whole(text)
        assert during == [False] * 6 and gc.isenabled() is enabled
        during.clear()
        assert SlicedChecker().check(text, "m.py", SETTINGS) == whole(text)
        assert during == [enabled] and gc.isenabled() is enabled

def test_what_cannot_be_sliced_is_judged_whole() -> None:
    broken = "import jax\n\ndef f(x:\n    return jax.jit(lambda v: v)\n"
    assert SlicedChecker().check(broken, "m.py", SETTINGS) == whole(broken)
    shared = "import jax\nf = jax.jit(lambda v: v); g = 1\n"
    assert statements(shared) is None
    assert SlicedChecker().check(shared, "m.py", SETTINGS) == whole(shared)


def test_repeated_imports_go_into_a_part_once_and_the_findings_stay_the_whole_modules() -> None:
    block = ("import functools\nimport jax\nimport jax.numpy as jnp\n\n\n"
             "def loss_{i}(p, x):\n    return jnp.mean(p * x)\n\n\nstep_{i} = jax.jit(loss_{i})\n\n\n"
             "def train_{i}(p, xs):\n    for x in xs:\n        p = jax.jit(functools.partial(loss_{i}, x=x))(p)\n    return p\n\n\n")
    text = "".join(block.format(i=i) for i in range(4)) + "jax = None\n\n\ndef late(xs):\n    return [jax.jit(lambda v: v)(x) for x in xs]\n"
    found = statements(text)
    assert found is not None
    by_name = import_index(found)
    assert [s.start for s in by_name["jax"]] == [2] and [s.start for s in by_name["jnp"]] == [3]
    assert SlicedChecker().check(text, "m.py", SETTINGS) == whole(text) != ()


def test_a_reasons_line_is_moved_as_a_pattern_of_that_line_would_move_it() -> None:
    """``relocated`` reads "line N" with one pattern for every N: the same words as ``\\bline N\\b`` for that N."""
    import random

    from jitcheck.lint.evidence import Evidence, Reason
    from jitcheck.server.slices import relocated

    pieces = ["line ", "line", "12", "1", "2", "123", " ", "a", "\u0663", "_", "(", ")", ",", "lines ", "baseline 12", "\n", "012"]
    chance = random.Random(25)
    for _ in range(20_000):
        text = "".join(chance.choice(pieces) for _ in range(chance.randint(0, 12)))
        line, moved = chance.choice([1, 2, 12, 123]), chance.choice([5, 12, 1234])
        evidence = Evidence(again=(Reason("called", text, line),))
        found = relocated(evidence, lambda n: moved if n == line else n).again[0]
        assert found == Reason("called", re.sub(rf"\bline {line}\b", f"line {moved}", text), moved)


class _InProcessHelper:
    """A helper pool's stand-in judging each batch on a thread of its own, in this process: it records how many
    batches it was handed before the first came back, and can fail every batch (a helper that died)."""

    count = 1

    def __init__(self, fail: bool = False, hold_first: bool = True) -> None:
        import threading
        from concurrent.futures import ThreadPoolExecutor

        self.fail, self.hold_first = fail, hold_first
        self.pool = ThreadPoolExecutor(1)
        self.handed = 0
        self.handed_before_first_back = 0
        self.second = threading.Event()
        self.first_handed = threading.Event()
        self.release_first: threading.Event | None = None
        """Set: the first batch comes back only after it is set (and a little more)."""
        self.up: threading.Event | None = None
        """Set: the helper is up (``ready``) only once it is set."""
        self.stopped = False

    def ready(self) -> None:
        if self.up is not None:
            self.up.wait(5)

    def stop(self, terminate: bool = False) -> None:
        self.stopped = True

    def check(self, source: str, path: str, settings: Settings, index: object, module_name: str) -> object:
        self.handed += 1
        self.first_handed.set()
        if self.handed == 2:
            self.second.set()
        first = self.handed == 1 and self.hold_first
        release = self.release_first if self.handed == 1 else None

        def run() -> object:
            if release is not None:
                release.wait(5)
                time.sleep(0.2)
            if first:  # the first batch comes back only once the next was handed on (or after 5 s: one at a time)
                self.second.wait(5)
                self.handed_before_first_back = self.handed
            if self.fail:
                raise RuntimeError("the helper died")
            return check_text(source, path, settings, index=index, module_name=module_name)  # type: ignore[arg-type]

        return self.pool.submit(run)


def test_a_helper_is_handed_its_next_batch_before_its_last_one_comes_back() -> None:
    """Two batches in flight: the next waits in the helper's queue and starts as the last ends (handed on one at a
    time, the helper sat idle while the server took its result in and sent the next)."""
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(12))
    helper = _InProcessHelper()
    checker = SlicedChecker(batch_lines=1, helpers=helper)  # type: ignore[arg-type]
    assert checker.check(text, "m.py", SETTINGS) == whole(text) and checker.judged_parts == 12
    assert helper.handed_before_first_back == 2
    assert helper.handed <= 12 and not helper.stopped


def test_the_batches_a_failing_helper_held_are_judged_here() -> None:
    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(12))
    helper = _InProcessHelper(fail=True)
    checker = SlicedChecker(batch_lines=1, helpers=helper)  # type: ignore[arg-type]
    assert checker.check(text, "m.py", SETTINGS) == whole(text) and checker.judged_parts == 12
    assert helper.stopped and helper.handed_before_first_back == 2


def test_a_first_judgements_parts_go_into_the_store_after_it_not_during_it(tmp_path: Path) -> None:
    """Turning the parts into rows for the store is left until after the publication (``store_judged``, called by
    the server's persist step and by the next judgement): the same rows, and a new session reads them back."""
    from jitcheck.lint.cache import Cache

    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    store = Cache(tmp_path, "server-test")
    checker = SlicedChecker(batch_lines=1)
    assert checker.check(text, "m.py", SETTINGS, store=store) == whole(text)
    assert store.entries == {}  # nothing turned into rows before the judgement was returned
    checker.store_judged()
    assert len(store.entries) == 6
    store.save()
    again = SlicedChecker(batch_lines=1)
    assert again.check(text, "m.py", SETTINGS, store=Cache(tmp_path, "server-test")) == whole(text)
    assert again.judged_parts == 0
    # a judgement puts what the last one left unstored first: a part is found in the store as before
    other = Cache(tmp_path / "other", "server-test")
    third = SlicedChecker(batch_lines=1)
    third.check(text, "m.py", SETTINGS, store=other)
    third.check(text + "\n# more\n", "m.py", SETTINGS)
    assert len(other.entries) == 6


def test_a_helper_is_not_handed_a_next_batch_that_would_leave_this_thread_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three batches: this thread takes the first, the helper the last; the middle one stays for this thread (in a
    busy helper's queue it would leave this thread idle at the end)."""
    import threading

    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(3))
    helper = _InProcessHelper(hold_first=False)
    helper.release_first = threading.Event()  # the helper's batch comes back after this thread took its next one
    helper.up = threading.Event()  # the helper is up once this thread has taken its first batch

    def slow_first(*args: object, **kwargs: object) -> object:  # this thread's first batch waits for the helper's
        assert helper.up is not None
        helper.up.set()
        helper.first_handed.wait(5)
        time.sleep(0.2)  # (the helper's feed decides about a next batch right after handing on its first)
        try:
            return check_text(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            assert helper.release_first is not None
            helper.release_first.set()

    monkeypatch.setattr(slices, "check_text", slow_first)
    checker = SlicedChecker(batch_lines=1, helpers=helper)  # type: ignore[arg-type]
    assert checker.check(text, "m.py", SETTINGS) == whole(text) and checker.judged_parts == 3
    assert helper.handed == 1


def test_the_parts_of_many_batches_are_placed_with_the_collector_still_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    """What placing the parts allocates does not set off a full pass of the collector before the publication: the
    passes stay paused until the parts are placed; a batch that reads as JC000 makes the file judged whole, with the
    collector on again."""
    from jitcheck.lint.check import Checked

    text = "import jax\n\n\n" + "".join(BLOCK.format(i=i) for i in range(6))
    placing: list[bool] = []
    moved = slices._moved

    def recording(*args: object) -> object:
        placing.append(gc.isenabled())
        return moved(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(slices, "_moved", recording)
    was = gc.isenabled()
    gc.enable()
    try:
        assert SlicedChecker(batch_lines=1).check(text, "m.py", SETTINGS) == whole(text)
        assert placing == [False] * 6 and gc.isenabled()
        calls: list[bool] = []

        def unreadable_batch(source: str, *args: object, **kwargs: object) -> Checked:
            calls.append(gc.isenabled())
            if source != text:  # a batch: unreadable; the whole file: judged
                return Checked((), internal_error=True)
            return check_text(source, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(slices, "check_text", unreadable_batch)
        assert SlicedChecker(batch_lines=1).check(text, "m.py", SETTINGS) == whole(text)
        assert calls == [False] * 6 + [True] and gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
