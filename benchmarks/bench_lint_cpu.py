"""CPU time of the static pass on a large tree of real JAX code, against Python's and libcst's parse floors.

    python benchmarks/bench_lint_cpu.py --keep /work/corpus-dl [--rounds 2] [--quick]

The tree is the development libraries of benchmarks/real_world.py already unpacked in
``--keep`` (none is downloaded here; a library of the sealed half is never read, while the
older development libraries whose names the hash would seal are). Each round, in rotating
order: a cold run (``-j 1``, empty cache, files checked in a worker process as always), ``libcst.parse_module`` of every file, and
``ast.parse`` of every file, each timed in CPU seconds (this process and its workers):
CPU time moves far less with a loaded machine than the wall clock. Then a warm run over
the cache the cold run filled. Ratios are of bests, medians beside them.

Then the big module: the largest modules of the tree that Python parses, concatenated until
they hold 50,000 lines (``from __future__`` lines dropped), checked as one file in a fresh
interpreter in process (as the language server checks a file), its CPU seconds and peak
resident memory measured there. ``--quick`` runs one round of the tree and the big module once.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import statistics
import subprocess
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

    sealed = {name for name, _ in real_world.SEALED}
    taken = []
    for name, version in real_world.ALL:
        if name in sealed:
            continue  # never read a sealed library, even one another run unpacked (ALL holds none today)
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


BIG_MODULE_LINES = 50_000

_CHECK_ONE = """
import json, resource, sys, time
from pathlib import Path
from jitcheck.lint.check import check_text
from jitcheck.lint.settings import Settings
text = Path(sys.argv[1]).read_text(encoding="utf-8")
started = time.process_time()
findings = check_text(text, "big_module.py", Settings(preview=True)).findings
# This process's own peak (VmHWM, its memory map's high-water mark, new at exec): ru_maxrss would also
# count the benchmark process it was forked from, which holds the whole tree's runs.
try:
    status = Path("/proc/self/status").read_text()
    peak_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"cpu": time.process_time() - started, "findings": len(findings), "peak_mb": peak_kb / 1024}))
"""


def big_module(sources: list[tuple[Path, bytes]]) -> tuple[str, int]:
    """The largest modules Python parses, concatenated (``from __future__`` lines dropped) up to 50,000 lines; and how many."""
    readable = []
    for path, data in sources:
        try:
            text = data.decode("utf-8")
            ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        readable.append((text.count("\n"), str(path), text))
    readable.sort(key=lambda item: (-item[0], item[1]))
    parts: list[str] = []
    total = 0
    for count, _, text in readable:
        if total >= BIG_MODULE_LINES:
            break
        parts.append("".join(line for line in text.splitlines(keepends=True) if not line.startswith("from __future__")))
        total += count
    return "\n".join(parts), len(parts)


def check_big_module(path: Path) -> dict[str, float]:
    """CPU seconds, findings and peak memory (MB) of one in-process check of ``path``, in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _CHECK_ONE, str(path)], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True, help="the folder real_world.py --download-only --keep unpacked into")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="one round, and the big module once")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = 1

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
        module_text, module_parts = big_module(list(zip(files, sources)))
        module_file = Path(scratch) / "big_module.py"
        module_file.write_text(module_text, encoding="utf-8")
        big = [check_big_module(module_file) for _ in range(1 if args.quick else args.rounds)]

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
    print(f"Big module: {module_parts} of the largest modules concatenated, {module_text.count(chr(10)) + 1:,} lines, "
          f"checked in process in a fresh interpreter ({len(big)} run(s)): {big[0]['findings']:.0f} findings; "
          f"CPU {min(b['cpu'] for b in big):.1f} s best, {statistics.median(b['cpu'] for b in big):.1f} s median; "
          f"peak RSS {max(b['peak_mb'] for b in big):,.0f} MB (most) (target <= 300 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
