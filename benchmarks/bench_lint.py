"""Benchmark of the static pass: lines per second, cold and warm, against libcst's parse floor.

The corpus is the source of public JAX libraries downloaded in the run (see
real_world.py); offline, a synthetic tree of generated JAX modules. The floor is
parsing the same files with ``libcst.parse_module`` alone, on the same cores, in the
same kind of worker pool. Cold is a run with an empty cache (it fills it); warm is a
second run over the unchanged tree.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from harness import Figure, Section, interleaved

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_KEEP: list[tempfile.TemporaryDirectory[str]] = []


def _parse(path: str) -> int:
    import libcst

    try:
        libcst.parse_module(Path(path).read_bytes())
    except Exception:
        return 0
    return 1


def parse_floor(files: list[Path], jobs: int) -> None:
    """Parse every file with libcst alone, in a forked pool of ``jobs`` workers (the floor)."""
    import libcst  # noqa: F401  (imported before forking, as the static pass does)

    ordered = sorted((str(f) for f in files), key=lambda f: -os.path.getsize(f))
    chunk = max(1, len(ordered) // (jobs * 8))
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_parse, ordered, chunksize=chunk))


SYNTHETIC = '''\
import functools
import jax
import jax.numpy as jnp


def loss_{i}(params, x):
    return jnp.mean((x @ params) ** 2)


step_{i} = jax.jit(loss_{i})


class Model{i}:
    def __init__(self, w):
        self.w = w
        self.apply_jit = jax.jit(self.apply)

    def apply(self, x):
        return x @ self.w

    def predict(self, x):
        return jax.jit(self.apply)(x)


def train_{i}(params, batches):
    for x in batches:
        params = jax.jit(lambda p: p - 0.1 * jax.grad(loss_{i})(p, x))(params)
    return params
'''


def corpus(quick: bool) -> tuple[Path, str]:
    """The tree to check, and words saying what it is."""
    folder = tempfile.TemporaryDirectory(prefix="jitcheck-bench-lint-")
    _KEEP.append(folder)
    base = Path(folder.name)
    try:
        import real_world

        libraries = real_world.LIBRARIES[1:3] if quick else real_world.LIBRARIES[:3]
        roots = real_world.download(base / "downloads", libraries)
        tree = base / "tree"
        tree.mkdir()
        for name, root in roots.items():
            shutil.copytree(root, tree / name)
        words = ", ".join(f"{n} {v}" for n, v in libraries)
        return tree, f"the sources of {words} (downloaded in the run)"
    except Exception as error:  # offline: a synthetic tree of JAX modules
        tree = base / "synthetic"
        tree.mkdir(parents=True, exist_ok=True)
        count = 150 if quick else 600
        for i in range(count):
            (tree / f"module_{i}.py").write_text(SYNTHETIC.format(i=i) * 4)
        return tree, f"a synthetic tree of {count} generated JAX modules (download failed: {type(error).__name__})"


def run(quick: bool) -> Section:
    from jitcheck.lint import config as config_module
    from jitcheck.lint.files import discover
    from jitcheck.lint.runner import Options, default_jobs
    from jitcheck.lint.runner import run as run_lint

    tree, described = corpus(quick)
    jobs = default_jobs()
    cache = tree.parent / "cache"
    config = config_module.Config(root=tree, cache_dir=cache)
    files = [s.path for s in discover([tree], config, tree)]
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    options = Options(jobs=jobs)

    def cold() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        run_lint([tree], config, options, tree)

    def warm() -> None:
        run_lint([tree], config, options, tree)

    def floor() -> None:
        parse_floor(files, jobs)

    repeat = 2 if quick else 3
    cold_s, floor_s = interleaved(cold, floor, repeat=repeat)
    cold() if not cache.exists() else None
    warm_s, cold_again = interleaved(warm, cold, repeat=repeat)
    warm()  # leave the cache warm for the command-line timing below
    command = [sys.executable, "-m", "jitcheck", str(tree), "--cache-dir", str(cache), "-q", "--exit-zero"]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    # The first command-line run keeps what its own environment (sys.path) needs; the second is timed.
    subprocess.run(command, env=environment, capture_output=True, check=False, cwd=tree)
    started = time.perf_counter()
    subprocess.run(command, env=environment, capture_output=True, check=False, cwd=tree)
    cli_warm = time.perf_counter() - started
    return Section(
        title="Static pass: cold and warm runs vs the libcst parse floor",
        figures=[
            Figure("cold run, all cores", "jitcheck, empty cache", "libcst.parse_module of every file", cold_s, floor_s, target=2.0,
                   note=f"{lines / cold_s:,.0f} lines/s for jitcheck cold vs {lines / floor_s:,.0f} lines/s for the parse floor"),
            Figure("warm run, all cores", "jitcheck, warm cache", "jitcheck, empty cache", warm_s, cold_again, at_least=20.0,
                   note=f"{lines / warm_s:,.0f} lines/s warm"),
        ],
        notes=[
            f"Corpus: {described}: {len(files)} files, {lines:,} lines; {jobs} worker processes (every core of this machine).",
            "Both runs and the floor fork a worker pool and hand each worker whole files; the static pass reads and hashes "
            "every file and parses it with Python's ast (its summary for the project index, and the prefilter); libcst parses "
            "only the few files where a finding is possible and those Python cannot parse (it reports them: JC000).",
            f"The command line over the warm cache (a new Python process, jax not imported; its second run, as a user reruns it): {cli_warm * 1e3:.0f} ms wall.",
        ],
    )
