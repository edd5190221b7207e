"""One run of the static pass over many files: cache, isolated workers, fixes, filters.

The run goes in steps: discover the files (:mod:`.files`), read and hash them and
answer from the cache what it can without importing libcst (:func:`_plan`), check
the rest in worker processes (:mod:`.workers`: a crash or a hang costs one file a
JC000, never the run), then store, report and write the fixes (:mod:`.writeback`:
encoding, links, owner and mode kept; a file changed since it was read is left alone).
A per-run step (such as building a project index) fits between planning and checking.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import itertools
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jitcheck.lint.cache import Cache, digest
from jitcheck.lint.config import Config
from jitcheck.lint.files import Source, discover
from jitcheck.lint.findings import Finding, unreadable
from jitcheck.lint.heap import paused, set_aside
from jitcheck.lint.index import ProjectIndex, build_index, module_name_cached
from jitcheck.lint.settings import FixMode, Settings
from jitcheck.lint.text import lines
from jitcheck.lint.writeback import Skipped, encode_like, signals_raise, sweep, write_fixed

if TYPE_CHECKING:
    from jitcheck.lint.check import Checked


@dataclasses.dataclass(frozen=True)
class Options:
    """How to run: fix mode, diff only, workers, cache."""

    fix: FixMode = None
    diff: bool = False
    jobs: int | None = None
    use_cache: bool = True
    isolate: bool = True
    """Check files in worker processes (a crash or a hang costs one file); False checks in this process."""
    edits: bool = False
    """Give fixable findings their fix's text edits (JSON output)."""


@dataclasses.dataclass
class Report:
    """What a run found and did."""

    findings: list[Finding]
    files: int = 0
    lines: int = 0
    fixed: int = 0
    """Findings fixed (each finding counts, also when one edit fixed several)."""
    skipped: list[str] = dataclasses.field(default_factory=list)
    """Messages for fixed files that were not written (changed or deleted during the run, and why)."""
    diffs: list[str] = dataclasses.field(default_factory=list)
    changed: list[str] = dataclasses.field(default_factory=list)
    internal_errors: int = 0
    analysed: int = 0
    """Files parsed and analysed in this run (the others came from the cache)."""
    seconds: float = 0.0


@dataclasses.dataclass(frozen=True)
class _Work:
    index: int
    display: str
    data: bytes
    package_init: bool
    settings: Settings
    notebook: bool = False
    module: str = ""
    """The file's module name in the project index."""
    python_parses: bool = False
    """Python's ``ast`` parsed the file's bytes when the index was built (the check need not parse them to know)."""


def _check(project: ProjectIndex | None, work: _Work) -> Checked:
    """One file's result, judged with what the run's other files define (``project``)."""
    from jitcheck.lint.check import check_bytes, check_notebook

    if work.notebook:
        return check_notebook(work.data, work.display, work.settings, index=project)
    return check_bytes(work.data, work.display, work.settings, is_package_init=work.package_init,
                       index=project, module=work.module, python_parses=work.python_parses)


def _check_all(work: list[_Work], jobs: int, timeout: float, isolate: bool,
               project: ProjectIndex | None) -> Iterator[tuple[_Work, Checked, bool]]:
    """Every item's result and whether it came back; in worker processes when ``isolate``.

    A worker that died or ran out of time gives its file a JC000 (False: not to be
    cached, the next run tries again); the run's exit status is that of findings.
    """
    from jitcheck.lint.check import Checked
    from jitcheck.lint.workers import Pool

    check = functools.partial(_check, project)  # a worker gets the index once, when it starts
    if not isolate:
        for item in work:
            yield item, check(item), True
        return
    ordered = sorted(work, key=lambda w: -len(w.data))
    pool: Pool[_Work, Checked] = Pool(check, jobs, timeout)
    for position, outcome in pool.run(ordered):
        item = ordered[position]
        if isinstance(outcome, Checked):
            yield item, outcome, True
            continue
        if outcome.timed_out:
            help_ = "exclude it, or raise `file-timeout` in [tool.jitcheck]"
            reason = f"{outcome.reason}, the limit (`file-timeout`)"
        else:
            help_ = "please report this file to jitcheck; the other files were checked (exclude it meanwhile)"
            reason = outcome.reason
        yield item, Checked((unreadable(item.display, reason, help_),)), False


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


@dataclasses.dataclass
class _Plan:
    """What the reading step leaves for the checking step."""

    sources: list[Source]
    results: dict[int, list[Finding]]
    keys: dict[int, str]
    originals: dict[int, bytes]
    work: list[_Work]
    project: ProjectIndex | None = None
    """The project index of the run's Python files (what each file's findings may depend on)."""
    depends: dict[int, str] = dataclasses.field(default_factory=dict)
    """Each file's part of its cache key that digests the summaries of the modules it imports."""


def _rest_of_project(paths: Sequence[Path], config: Config, cwd: Path, have: set[Path]) -> Iterator[tuple[Path, str, bytes]]:
    """The project's other Python files, for the index only: what ``jitcheck src/`` from the project root reads
    (as the editor does), when the paths given do not cover the pyproject.toml folder (single files from
    pre-commit, one subfolder). Summaries come from the index cache by content, so a file unchanged since an
    earlier run costs a read and a digest. Nothing is read without a pyproject.toml: the root is then a guess."""
    if not paths:
        return
    first = (cwd / paths[0]) if not paths[0].is_absolute() else paths[0]
    found = config.source or _nearest_pyproject(first.resolve())
    if found is None:
        return
    root = found.parent.resolve()
    if any(root.is_relative_to(((cwd / p) if not p.is_absolute() else p).resolve()) for p in paths):
        return  # the run walks the whole project already
    for source in discover([root], config, root):
        path = source.path.resolve()
        if source.problem is not None or source.is_notebook or path.suffix == ".pyi" or path in have:
            continue
        try:
            if path.stat().st_size > config.max_file_size:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        yield path, digest(data, package_init=path.name == "__init__.py"), data


def _nearest_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` (a project's root, with or without a [tool.jitcheck])."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _plan(sources: list[Source], config: Config, options: Options, cache: Cache, report: Report,
          rest: Iterable[tuple[Path, str, bytes]] = (), resolved: Sequence[Path | None] | None = None) -> _Plan:
    """Read every file; answer from the cache what it can; the rest becomes work for the checking step.

    ``rest``: the project's other files, read for the project index only. ``resolved``: each source's resolved
    path, when the caller has them (a resolve asks the file system for every folder of the path).
    """
    plan = _Plan(sources, {}, {}, {}, [])
    read: list[tuple[int, Source, bytes, str]] = []
    for index, source in enumerate(sources):
        report.files += 1
        if source.problem is not None:
            reason, fix = source.problem
            plan.results[index] = [unreadable(source.display, reason, fix)]
            continue
        try:
            size = source.path.stat().st_size
            if size > config.max_file_size:
                plan.results[index] = [unreadable(source.display, f"it is {size:,} bytes, over the limit of {config.max_file_size:,}",
                                                  "exclude it, or raise `max-file-size` in [tool.jitcheck]")]
                continue
            data = source.path.read_bytes()
        except OSError as error:
            plan.results[index] = [unreadable(source.display, f"it cannot be read: {error.strerror or error}",
                                              "check the file's permissions, or exclude it")]
            continue
        report.lines += data.count(b"\n")
        package_init = source.path.name == "__init__.py"
        read.append((index, source, data, digest(data, package_init=package_init) + ("n" if source.is_notebook else "")))

    # The project index (every Python file's summary, cached by content) is part of each
    # finding's key: what one file reports can depend on what another defines.
    index_file = config.cache_dir / "index" / f"{config.fingerprint()}.json" if options.use_cache and config.cache_dir else None
    # A stub describes a module, it is none (its `def f(): ...` would stand in for the real one's facts).
    modules_read = [(i, s, d, k) for i, s, d, k in read if not s.is_notebook and s.path.suffix != ".pyi"]
    paths = {i: (resolved[i] if resolved is not None else None) or s.path.resolve() for i, s, _, _ in modules_read}
    parsed: set[str] = set()
    with paused():  # summaries and syntax trees hold no cycles: the collector would scan a growing heap for nothing
        plan.project = build_index(itertools.chain(((paths[i], k, d) for i, _, d, k in modules_read), rest),
                                   index_file, parsed)
        packages: dict[Path, bool] = {}
        modules = {i: plan.project.names.get(paths[i]) or module_name_cached(paths[i], packages) for i, _, _, _ in modules_read}
        plan.project.paths.update({modules[i]: s.relative for i, s, _, _ in modules_read})  # evidence names callers' files by these
        depends = plan.project.dependency_keys(index_file.with_name(f"{index_file.stem}.deps.json") if index_file else None)
    # A notebook is no module of the index: any module it may import counts.
    every_module = digest(",".join(f"{name}={key}" for name, key in sorted(depends.items())).encode(), package_init=False)
    for index, source, data, content_key in read:
        package_init = source.path.name == "__init__.py"
        plan.depends[index] = every_module if source.is_notebook else depends.get(modules.get(index, ""), "")
        key = plan.keys[index] = f"{content_key}:{plan.depends[index]}"
        select = config.select - config.ignored_for(source.relative)
        cached = cache.get(key, source.display)
        if cached is not None and options.edits and any(f.fix and not f.edits and not f.cell for f in cached):
            cached = None  # stored without the fixes' edits, which this run shows
        if cached is not None and (options.fix is None or not any(_fixable(f, select, options.fix) and config.reports(f)
                                                                  for f in cached)):
            plan.results[index] = cached
            continue
        plan.originals[index] = data
        settings = Settings(config.graph_constructors, config.jit_wrappers, options.fix, select,
                            max_expression_depth=config.max_expression_depth, edits=options.edits, preview=config.preview)
        plan.work.append(_Work(index, source.display, data, package_init, settings, source.is_notebook, modules.get(index, ""),
                               content_key in parsed))
    return plan


def _store(plan: _Plan, item: _Work, checked: Checked, completed: bool, options: Options, cache: Cache,
           report: Report) -> None:
    """Keep one file's result: cache it, and in a fix mode show or write its fix."""
    index = item.index
    source = plan.sources[index]
    report.analysed += 1
    plan.results[index] = list(checked.findings)
    if not completed:
        return
    if checked.internal_error:
        report.internal_errors += 1
        return
    if checked.fixed_source is None:
        cache.put(plan.keys[index], list(checked.findings))
        return
    original = plan.originals[index]
    try:
        new_bytes = checked.fixed_source.encode("utf-8") if item.notebook else encode_like(original, checked.fixed_source)
    except Skipped as skipped:
        report.skipped.append(f"{source.display}: not fixed: {skipped}")
        plan.results[index] = list(checked.unfixed)
        return
    if options.diff:
        from jitcheck.lint.check import decode

        old_text = decode(original, source.display)
        old = old_text if isinstance(old_text, str) else original.decode("utf-8", errors="replace")
        report.diffs.append("".join(difflib.unified_diff(
            lines(old, keepends=True), lines(checked.fixed_source, keepends=True),
            fromfile=source.display, tofile=source.display)))
    else:
        try:
            write_fixed(source.path, original, new_bytes)
        except Skipped as skipped:
            report.skipped.append(f"{source.display}: not fixed: {skipped}")
            plan.results[index] = list(checked.unfixed)
            return
        except OSError as error:
            report.skipped.append(f"{source.display}: not fixed: it cannot be written: {error.strerror or error}")
            plan.results[index] = list(checked.unfixed)
            return
    key = digest(new_bytes, package_init=source.path.name == "__init__.py") + ("n" if item.notebook else "")
    cache.put(f"{key}:{plan.depends[index]}", list(checked.findings))
    report.fixed += checked.fixed_count
    report.changed.append(source.display)


def run(paths: Sequence[Path], config: Config, options: Options, cwd: Path) -> Report:
    """Check ``paths`` under ``config``; in a fix mode, fix (or, with ``diff``, show the fixes)."""
    started = time.perf_counter()
    sources: list[Source] = list(discover(paths, config, cwd))
    cache = Cache(config.cache_dir if options.use_cache else None, config.fingerprint())
    report = Report([])
    resolved = [s.path.resolve() if s.problem is None else None for s in sources]
    have = {path for path in resolved if path is not None}
    plan = _plan(sources, config, options, cache, report, _rest_of_project(paths, config, cwd, have), resolved)
    if options.fix is not None and not options.diff:
        sweep({s.path.resolve().parent for s in sources if s.problem is None and s.path.exists()})
    if plan.work:
        import jitcheck.lint.check  # noqa: F401  (imported before forking, so workers share it)

        jobs = options.jobs or default_jobs()
        with signals_raise(), set_aside():  # the index lives to the end: the checks' collections need not scan it
            for item, checked, completed in _check_all(plan.work, jobs, config.file_timeout, options.isolate, plan.project):
                _store(plan, item, checked, completed, options, cache, report)
    if options.use_cache:
        cache.save()

    for index, source in enumerate(sources):
        select = config.select - config.ignored_for(source.relative)
        report.findings.extend(f for f in plan.results.get(index, ()) if f.code in select and config.reports(f))
    report.findings.sort(key=lambda f: (f.path, f.cell, f.line, f.column, f.code))
    report.seconds = time.perf_counter() - started
    return report


def _fixable(finding: Finding, select: frozenset[str], mode: FixMode) -> bool:
    if finding.fix is None or finding.code not in select:
        return False
    return finding.fix == "safe" or mode == "unsafe"


__all__ = ["Options", "Report", "default_jobs", "run"]
