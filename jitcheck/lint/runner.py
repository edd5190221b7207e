"""One run of the static pass over many files: cache, parallel workers, fixes, filters.

The main process reads and hashes every file and answers from the cache what it
can, without importing libcst; the rest is checked by worker processes (forked,
one per core) and stored back. Fixed files are written atomically.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jitcheck.lint.cache import Cache, digest, write_atomic
from jitcheck.lint.config import Config
from jitcheck.lint.files import Source, discover
from jitcheck.lint.findings import Finding, unreadable
from jitcheck.lint.index import ProjectIndex, build_index, module_name_cached
from jitcheck.lint.settings import FixMode, Settings

if TYPE_CHECKING:
    from jitcheck.lint.check import Checked


@dataclasses.dataclass(frozen=True)
class Options:
    """How to run: fix mode, diff only, workers, cache."""

    fix: FixMode = None
    diff: bool = False
    jobs: int | None = None
    use_cache: bool = True


@dataclasses.dataclass
class Report:
    """What a run found and did."""

    findings: list[Finding]
    files: int = 0
    lines: int = 0
    fixed: int = 0
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
    module: str = ""


_PROJECT: ProjectIndex | None = None
"""The run's project index: set before the workers fork (they inherit it), or by their initializer."""


def _set_project(project: ProjectIndex | None) -> None:
    global _PROJECT
    _PROJECT = project


def _check(work: _Work) -> tuple[int, Checked]:
    from jitcheck.lint.check import check_bytes

    return work.index, check_bytes(work.data, work.display, work.settings, is_package_init=work.package_init,
                                   index=_PROJECT, module=work.module)


def _run_all(work: list[_Work], jobs: int) -> list[tuple[int, Checked]]:
    if jobs <= 1 or len(work) < 4:
        return [_check(item) for item in work]
    import multiprocessing  # only when there is work for a pool: a warm run starts faster
    from concurrent.futures import ProcessPoolExecutor

    work = sorted(work, key=lambda w: -len(w.data))
    chunk = max(1, len(work) // (jobs * 8))
    # Forking is fast (workers inherit libcst) but unsafe once jax's threads run in this
    # process (an in-process call from a program that imported jax): then a fork server.
    method = "fork" if "jax" not in sys.modules and sys.platform.startswith("linux") else "forkserver"
    if method not in multiprocessing.get_all_start_methods():
        method = "spawn"
    context = multiprocessing.get_context(method)
    initargs = () if method == "fork" else (_PROJECT,)  # forked workers inherit the index
    with ProcessPoolExecutor(max_workers=min(jobs, len(work)), mp_context=context,
                             initializer=_set_project if initargs else None, initargs=initargs) as pool:
        return list(pool.map(_check, work, chunksize=chunk))


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def run(paths: Sequence[Path], config: Config, options: Options, cwd: Path) -> Report:
    """Check ``paths`` under ``config``; in a fix mode, fix (or, with ``diff``, show the fixes)."""
    started = time.perf_counter()
    sources: list[Source] = list(discover(paths, config, cwd))
    cache = Cache(config.cache_dir if options.use_cache else None, config.fingerprint())
    results: dict[int, list[Finding]] = {}
    keys: dict[int, str] = {}
    originals: dict[int, bytes] = {}
    work: list[_Work] = []
    read: list[tuple[int, Source, bytes, str]] = []
    report = Report([])
    for index, source in enumerate(sources):
        report.files += 1
        if source.broken_link:
            target = os.readlink(source.path)
            results[index] = [unreadable(source.display, f"it is a broken symbolic link (to {target!r})",
                                         "point the link at an existing file, or remove it")]
            continue
        try:
            size = source.path.stat().st_size
            if size > config.max_file_size:
                results[index] = [unreadable(source.display, f"it is {size:,} bytes, over the limit of {config.max_file_size:,}",
                                             "exclude it, or raise `max-file-size` in [tool.jitcheck]")]
                continue
            data = source.path.read_bytes()
        except OSError as error:
            results[index] = [unreadable(source.display, f"it cannot be read: {error.strerror or error}",
                                         "check the file's permissions, or exclude it")]
            continue
        report.lines += data.count(b"\n")
        package_init = source.path.name == "__init__.py"
        read.append((index, source, data, digest(data, package_init=package_init)))

    # The project index (every file's summary, cached by content) is part of each finding's key:
    # what one file reports can depend on what another defines.
    index_file = config.cache_dir / "index" / f"{config.fingerprint()}.json" if options.use_cache and config.cache_dir else None
    project = build_index(((s.path.resolve(), k, d) for _, s, d, k in read), index_file)
    _set_project(project)
    packages: dict[Path, bool] = {}
    modules = {i: module_name_cached(s.path.resolve(), packages) for i, s, _, _ in read}
    depends = project.dependency_keys()
    for index, source, data, content_key in read:
        package_init = source.path.name == "__init__.py"
        key = f"{content_key}:{depends.get(modules[index], '')}"
        keys[index] = key
        select = config.select - config.ignored_for(source.relative)
        cached = cache.get(key, source.display)
        if cached is not None and (options.fix is None or not any(_fixable(f, select, options.fix) for f in cached)):
            results[index] = cached
            continue
        originals[index] = data
        settings = Settings(config.graph_constructors, config.jit_wrappers, options.fix, select)
        work.append(_Work(index, source.display, data, package_init, settings, modules[index]))

    if work:
        import jitcheck.lint.check  # noqa: F401  (imported before forking, so workers share it)

        jobs = options.jobs or default_jobs()
        for index, checked in _run_all(work, jobs):
            report.analysed += 1
            source = sources[index]
            results[index] = list(checked.findings)
            if checked.internal_error:
                report.internal_errors += 1
                continue
            if checked.fixed_source is None:
                cache.put(keys[index], list(checked.findings))
                continue
            new_bytes = checked.fixed_source.encode("utf-8")
            cache.put(f"{digest(new_bytes, package_init=source.path.name == '__init__.py')}:{keys[index].split(':')[-1]}",
                      list(checked.findings))
            old_text = originals[index].decode("utf-8", errors="replace")
            report.fixed += checked.fixed_count
            report.changed.append(source.display)
            if options.diff:
                report.diffs.append("".join(difflib.unified_diff(
                    old_text.splitlines(keepends=True), checked.fixed_source.splitlines(keepends=True),
                    fromfile=source.display, tofile=source.display)))
            else:
                write_atomic(source.path, checked.fixed_source)
    if options.use_cache:
        cache.save()

    for index, source in enumerate(sources):
        select = config.select - config.ignored_for(source.relative)
        report.findings.extend(f for f in results.get(index, ()) if f.code in select)
    report.findings.sort(key=lambda f: (f.path, f.line, f.column, f.code))
    report.seconds = time.perf_counter() - started
    return report


def _fixable(finding: Finding, select: frozenset[str], mode: FixMode) -> bool:
    if finding.fix is None or finding.code not in select:
        return False
    return finding.fix == "safe" or mode == "unsafe"


__all__ = ["Options", "Report", "default_jobs", "run"]
