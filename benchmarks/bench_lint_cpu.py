"""CPU time of the static pass on a large tree of real JAX code, against Python's and libcst's parse floors.

    python benchmarks/bench_lint_cpu.py --keep /work/corpus-dl [--rounds 2]

The tree is the development libraries of benchmarks/real_world.py already unpacked in
``--keep`` (none is downloaded here; a library of the sealed half, by split.py's rule, is
never read). Each round, in rotating order: a cold run (``-j 1``, empty cache, files
checked in a worker process as always), ``libcst.parse_module`` of every file, and
``ast.parse`` of every file, each timed in CPU seconds (this process and its workers):
CPU time moves far less with a loaded machine than the wall clock. Then a warm run over
the cache the cold run filled. Ratios are of bests, medians beside them.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def development_folders(keep: Path) -> list[tuple[str, Path]]:
    """The development libraries unpacked in ``keep`` (name and version, folder); a sealed library is never named."""
    from benchmarks import real_world
    from benchmarks.corpus.split import is_sealed

    taken = []
    for name, version in real_world.ALL:
        if is_sealed(name):
            continue  # never read a sealed library, even one another run unpacked
        folder = next((keep / f"{spelled}-{version}" for spelled in {name, name.replace("-", "_")}
                       if (keep / f"{spelled}-{version}").is_dir()), None)
        if folder is not None:
            taken.append((f"{name} {version}", folder))
    return taken


def _tree(keep: Path, into: Path) -> list[str]:
    """Copy the development libraries unpacked in ``keep`` into ``into``; their names."""
    taken = development_folders(keep)
    for _, folder in taken:
        shutil.copytree(folder, into / folder.name)
    return [name for name, _ in taken]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True, help="the folder real_world.py --download-only --keep unpacked into")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)

    import libcst

    from jitcheck.lint.config import Config
    from jitcheck.lint.files import discover
    from jitcheck.lint.runner import Options, run

    with tempfile.TemporaryDirectory(prefix="jitcheck-bench-cpu-") as scratch:
        tree = Path(scratch) / "tree"
        tree.mkdir()
        taken = _tree(args.keep, tree)
        cache = Path(scratch) / "cache"
        config = Config(root=tree, cache_dir=cache)
        files = [s.path for s in discover([tree], config, tree) if s.problem is None and s.path.suffix != ".ipynb"]
        sources = [f.read_bytes() for f in files]
        lines = sum(data.count(b"\n") for data in sources)

        def cold() -> None:
            shutil.rmtree(cache, ignore_errors=True)
            run([tree], config, Options(jobs=1), tree)

        def warm() -> None:
            run([tree], config, Options(jobs=1), tree)

        def libcst_floor() -> None:
            for data in sources:
                try:
                    libcst.parse_module(data)
                except Exception:
                    pass

        def ast_floor() -> None:
            for data in sources:
                try:
                    ast.parse(data)
                except (SyntaxError, ValueError):
                    pass

        subjects = {"cold": cold, "libcst": libcst_floor, "ast": ast_floor}
        seconds: dict[str, list[float]] = {name: [] for name in [*subjects, "warm"]}
        order = list(subjects)
        for number in range(args.rounds):
            for name in order[number % len(order):] + order[:number % len(order)]:
                started = _cpu()
                subjects[name]()
                seconds[name].append(_cpu() - started)
            started = _cpu()
            warm()
            seconds["warm"].append(_cpu() - started)

    best = {name: min(values) for name, values in seconds.items()}
    median = {name: statistics.median(values) for name, values in seconds.items()}
    print(f"Corpus: {', '.join(taken)}: {len(files)} Python files, {lines:,} lines; -j 1; {args.rounds} rounds, rotating order.")
    print("| run | CPU best | CPU median |")
    print("|---|---|---|")
    for name, label in (("cold", "jitcheck cold (-j 1, empty cache)"), ("warm", "jitcheck warm (the cold run's cache)"),
                        ("libcst", "libcst.parse_module of every file"), ("ast", "ast.parse of every file")):
        print(f"| {label} | {best[name]:.1f} s | {median[name]:.1f} s |")
    print(f"cold / libcst parse floor: {best['cold'] / best['libcst']:.2f}x best, {median['cold'] / median['libcst']:.2f}x median (target <= 1.0x)")
    print(f"cold / ast parse floor: {best['cold'] / best['ast']:.1f}x best, {median['cold'] / median['ast']:.1f}x median")
    print(f"cold / warm: {best['cold'] / best['warm']:.0f}x best, {median['cold'] / median['warm']:.0f}x median")
    return 0


if __name__ == "__main__":
    sys.exit(main())
