"""Observed labels: per-site verdicts derived from what jax compiled while a library's code ran.

The recorder (``pytest --jitcheck-recompiles --jitcheck-recompiles-json FILE``) writes, per
run, each jit-like wrapper's build site with its traces, compiles and avoidable compiles.
These pure functions merge those records over runs, map each build site to its file in
the library's sdist, and label it by the one standard of docs/real-world.md:
``bug`` when an avoidable recompile happened there, ``fine`` when it ran at least twice
with none (or ran once where it cannot run again). No download, no jax, no venv here.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from benchmarks.corpus import scoring

COLUMNS = ("library", "version", "path", "line", "label", "evidence")

JIT_NAMES = frozenset({"jit", "pjit", "pmap", "filter_jit", "filter_pmap", "variant"})
"""The last name of a jit-like callable (``jax.jit``, ``eqx.filter_jit``, chex's ``self.variant``)."""


@dataclasses.dataclass
class Site:
    """What the recorder saw at one build site, added up over every run that reached it."""

    path: str
    """The file as the recorder names it (absolute, or relative to where the run started)."""
    line: int
    compiles: int = 0
    """Compiles of this site's wrappers (traces under an outer trace excluded)."""
    avoidable: int = 0
    """Compiles of a computation this site had compiled before in the same run."""
    nested: int = 0
    """Traces made while an outer trace ran: inlined, no compile of their own."""
    calls: int = 0
    """Calls of this site's wrappers (0 where the recorder does not count them)."""
    programs: int = 0
    """Different computations (fingerprints) compiled or traced here; the most any one run saw."""
    causes: Counter[str] = dataclasses.field(default_factory=Counter)
    runs: int = 1
    """Runs (test files, scripts) that reached the site."""
    deliberate: int = 0
    """Avoidable compiles of functions that count their traces on purpose (`counts_traces_of`): not counted as avoidable."""
    most: int = 0
    """The most times one run ran the site (compiles, inlined traces or calls): a repetition
    is seen within one process, where a compile cache could have served it."""

    def __post_init__(self) -> None:
        self.most = max(self.most, self.compiles + self.nested, self.calls)

    def add(self, other: Site) -> None:
        self.compiles += other.compiles
        self.avoidable += other.avoidable
        self.nested += other.nested
        self.calls += other.calls
        self.causes.update(other.causes)
        self.runs += other.runs
        self.deliberate += other.deliberate
        self.most = max(self.most, other.most)
        self.programs = max(self.programs, other.programs)


@dataclasses.dataclass(frozen=True)
class Observed:
    """One observed label: a site of a library's sdist, its verdict and the counts behind it."""

    library: str
    version: str
    path: str
    line: int
    label: str
    evidence: str

    @property
    def is_bug(self) -> bool:
        return self.label == "bug"

    @property
    def location(self) -> str:
        return f"{self.library}-{self.version}/{self.path}:{self.line}"


def merge(records: Iterable[Site], one_run: bool = False) -> dict[tuple[str, int], Site]:
    """Sites added up, keyed by (file, line): of several runs, or (``one_run``) the entries of one run.

    Within one run, the entries of a site (one per jitted function built there) add up to
    what that run saw at the site; across runs, a repetition is only what one run saw.
    """
    merged: dict[tuple[str, int], Site] = {}
    programs: Counter[tuple[str, int]] = Counter()
    for site in records:
        key = (site.path, site.line)
        if key not in merged:
            merged[key] = Site(site.path, site.line, runs=0)
        merged[key].add(site)
        programs[key] += site.programs
    if one_run:
        for key, site in merged.items():
            site.runs, site.programs = 1, programs[key]
            site.most = max(site.compiles + site.nested, site.calls)
    return merged


def sdist_path(recorded: str, root: Path, packages: Mapping[str, Path] = {}) -> str | None:
    """The recorded file as a path inside the unpacked sdist ``root``, or None when it is not the library's.

    A test or example runs from the sdist itself; the library's package runs from the
    environment it was installed in (``site-packages/optax/_src/base.py``), which
    ``packages`` maps (package name -> installed folder) back to the sdist's copy.
    """
    path = Path(recorded)
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        pass
    for name, installed in packages.items():
        try:
            inside = path.resolve().relative_to(installed.resolve())
        except ValueError:
            continue
        for candidate in (root / name / inside, root / "src" / name / inside):
            if candidate.is_file():
                return candidate.relative_to(root).as_posix()
    return None


def jit_sites(source: str) -> dict[int, int]:
    """Every jit-like call or decorator of a module: each line its span covers -> the span's first line.

    The first line is the label's line (docs/real-world.md's convention); a recorder that
    names another line of the same call (its last, or the decorated ``def``) is mapped to it.
    """
    tree = ast.parse(source)
    spans: dict[int, int] = {}

    def is_jit(node: ast.expr) -> bool:
        target = node
        while isinstance(target, ast.Call):  # @partial(jax.jit, ...) and @jax.jit(...) name jit inside
            if _last_name(target.func) in JIT_NAMES:
                return True
            if any(_last_name(arg) in JIT_NAMES for arg in target.args):
                return True
            target = target.func
        return _last_name(target) in JIT_NAMES

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                if is_jit(decorator):
                    for line in range(decorator.lineno, node.lineno + 1):
                        spans.setdefault(line, decorator.lineno)
        elif isinstance(node, ast.Call) and is_jit(node):
            end = node.end_lineno or node.lineno
            for line in range(node.lineno, end + 1):
                # the innermost call keeps its own line (a jit inside a jit's arguments)
                if line not in spans or spans[line] < node.lineno:
                    spans[line] = node.lineno
    return spans


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def runs_once(source: str, line: int) -> str | None:
    """Why the code at ``line`` runs once per program or per test (None when it may run again).

    Module level outside a loop, or the body of a test function, ``main`` or ``setUp``
    (not in a loop, not in a nested function): the runner or the program runs it once.
    """
    tree = ast.parse(source)
    chain: list[ast.AST] = []

    def find(node: ast.AST, parents: list[ast.AST]) -> bool:
        for child in ast.iter_child_nodes(node):
            start, end = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
            if start is not None and end is not None and not start <= line <= end:
                continue
            if start is not None and isinstance(child, ast.stmt) and start <= line <= (end or start):
                parents.append(child)
                find(child, parents)
                return True
            if find(child, parents):
                return True
        return False

    find(tree, chain)
    loops = (ast.For, ast.AsyncFor, ast.While)
    # a decorator's own line belongs to its function's statement, but runs where the def runs
    body = [node for node in chain if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                                           and any(d.lineno <= line <= (d.end_lineno or d.lineno) for d in node.decorator_list))]
    functions = [node for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if any(isinstance(node, loops) for node in body):
        return None
    if not functions:
        return "module level, outside any loop: runs once per program"
    if len(functions) == 1 and (functions[0].name.startswith("test") or functions[0].name in {"main", "setUp", "setUpClass"}):
        return f"in the body of {functions[0].name}, outside any loop: runs once per test or program"
    return None


TRACE_COUNTERS = frozenset({"assert_max_traces"})
"""Wrappers that count a function's traces on purpose (chex's): a test that makes it trace again means to."""


def counts_traces(source: str, line: int) -> str | None:
    """Why the jit at ``line`` counts its traces on purpose (None when it does not): its function is
    decorated with, or passed through, a trace counter (``jax.jit(assert_max_traces(fn, n))``)."""
    tree = ast.parse(source)

    def counter(node: ast.expr) -> str | None:
        name = _last_name(node.func if isinstance(node, ast.Call) else node)
        return name if name in TRACE_COUNTERS else None

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list:
            first = min(d.lineno for d in node.decorator_list)
            if first <= line <= node.lineno:
                found = next((name for d in node.decorator_list if (name := counter(d))), None)
                if found:
                    return f"its function is decorated with {found}: deliberate trace counting"
        elif isinstance(node, ast.Call) and node.lineno == line:
            found = next((name for arg in node.args if isinstance(arg, ast.Call) and (name := counter(arg))), None)
            if found:
                return f"it jits its function through {found}: deliberate trace counting"
    return None


def counts_traces_of(source: str, qualname: str) -> bool:
    """Whether the function ``qualname`` (``Test._init.<locals>.fn``) of a module counts its traces on purpose:
    it is decorated with a trace counter, or its parent passes it through one (``assert_max_traces(fn, n)``).

    A library's own jit site (chex's ``variant``) that jits such a function again recompiles because the
    test means it to, which the standard calls fine; its other functions still count.
    """
    parts = [part for part in qualname.split(".") if part != "<locals>"]
    if not parts or not all(part.isidentifier() for part in parts):
        return False
    scope: ast.AST = ast.parse(source)
    parent: ast.AST | None = None
    for part in parts:
        found = next((node for node in ast.walk(scope) if node is not scope and isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.name == part), None)
        if found is None:
            return False
        parent, scope = scope, found
    assert isinstance(scope, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    if any(_last_name(d.func if isinstance(d, ast.Call) else d) in TRACE_COUNTERS for d in scope.decorator_list):
        return True
    name = parts[-1]
    return parent is not None and any(
        isinstance(node, ast.Call) and _last_name(node.func) in TRACE_COUNTERS
        and any(isinstance(arg, ast.Name) and arg.id == name for arg in node.args)
        for node in ast.walk(parent))


UNFIXABLE = frozenset({"other"})
"""Recorder causes no restructuring of the site removes (jax's cache cleared, other jit options)."""


def derive(library: str, version: str, sites: Mapping[tuple[str, int], Site], sources: Mapping[str, str]) -> list[Observed]:
    """The observed label of each site (already mapped to sdist paths and label lines) whose records settle it.

    - ``bug``: at least one avoidable recompile (the same computation compiled again) whose cause
      the site controls (a new callable, an identity-keyed static argument, baked-in constants),
      unless the site counts its traces on purpose (`counts_traces`: then ``fine``, as the standard says);
      one whose only cause is ``other`` (nothing jax keys on changed: a cleared cache) settles nothing;
    - ``fine``: no avoidable recompile, and the site ran at least twice (two compiles of
      different computations, two calls of one wrapper, or traces under an outer trace
      only, which compile nothing of their own), or it ran once in code that runs once.

    A site that ran once in code that may run again is left unlabelled: one run settles nothing.
    """
    labels = []
    for (path, line), site in sorted(sites.items()):
        counts = (f"compiles={site.compiles} avoidable={site.avoidable} nested={site.nested} programs={site.programs} "
                  f"runs={site.runs}" + (f" calls={site.calls}" if site.calls else ""))
        causes = ",".join(f"{cause}:{n}" for cause, n in site.causes.most_common())
        if site.avoidable and set(site.causes) - UNFIXABLE and path in sources and (why := counts_traces(sources[path], line)):
            labels.append(Observed(library, version, path, line, "fine", f"{counts}; causes {causes}; {why}"))
        elif site.avoidable and set(site.causes) - UNFIXABLE:
            labels.append(Observed(library, version, path, line, "bug", f"{counts}; causes {causes}"))
        elif site.avoidable:
            continue  # the same program again with nothing the site controls changed (a cleared cache): unsettled
        elif site.deliberate:
            labels.append(Observed(library, version, path, line, "fine",
                                   f"{counts} deliberate={site.deliberate}; its repeated compiles are of functions that count their traces on purpose: deliberate trace counting"))
        elif site.compiles == 0 and site.nested:
            labels.append(Observed(library, version, path, line, "fine", f"{counts}; only traced under an outer trace"))
        elif site.most >= 2:
            what = "each compile a different computation" if site.compiles >= 2 else "ran again without compiling again"
            if site.compiles + site.nested == 0:
                continue
            labels.append(Observed(library, version, path, line, "fine", f"{counts}; {what}"))
        elif site.compiles == 1 and path in sources and (why := runs_once(sources[path], line)):
            labels.append(Observed(library, version, path, line, "fine", f"{counts}; ran once: {why}"))
    return labels


def write(path: Path, labels: Sequence[Observed]) -> None:
    """Write observed labels as TSV (COLUMNS), sorted by library, path and line."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(COLUMNS)
        for label in sorted(labels, key=lambda o: (o.library, o.path, o.line)):
            writer.writerow([label.library, label.version, label.path, label.line, label.label, label.evidence])


def load(path: Path) -> list[Observed]:
    """Read observed labels written by ``write``; a malformed row raises scoring.LabelError naming file:line."""
    labels = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader, None)
        if header is None or tuple(header) != COLUMNS:
            raise scoring.LabelError(f"{path}:1: the header must be the columns {', '.join(COLUMNS)} (tab-separated); got {header!r}")
        for number, row in enumerate(reader, start=2):
            if len(row) != len(COLUMNS) or row[4] not in scoring.VERDICTS or not row[3].isdigit():
                raise scoring.LabelError(f"{path}:{number}: expected {', '.join(COLUMNS)} with label bug or fine, got {row!r}")
            labels.append(Observed(row[0], row[1], row[2], int(row[3]), row[4], row[5]))
    return labels


def disagreements(observed: Iterable[Observed], hand: Sequence[scoring.Label]) -> list[tuple[Observed, scoring.Label]]:
    """Observed labels whose hand label (the innermost span covering the site) says the other verdict."""
    pairs = []
    for label in observed:
        covering = [h for h in hand if h.library == label.library and h.covers(label.path, label.line)]
        if not covering:
            continue
        inner = min(covering, key=lambda h: (h.end_line - h.line, -h.line))
        if inner.is_bug != label.is_bug:
            pairs.append((label, inner))
    return pairs
