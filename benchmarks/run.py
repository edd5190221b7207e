"""Run every jitcheck benchmark in one go and write ``docs/performance.md``.

    python benchmarks/run.py            # all benchmarks, full size
    python benchmarks/run.py --quick    # smaller, for a smoke test
    python benchmarks/run.py --only core
    python benchmarks/run.py --only server   # the language server (bench_server.py): a change on a warm server

Each benchmark module ``benchmarks/bench_*.py`` defines ``run(quick) -> Section``.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from harness import Section  # noqa: E402


def discover() -> list[str]:
    """The benchmark module names, in a stable order."""
    return sorted(p.stem for p in (ROOT / "benchmarks").glob("bench_*.py"))


def machine() -> str:
    """The machine, in words: processor, cores, memory, Python and library versions."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem_kb = int(next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")).split()[1])
        memory = f"{mem_kb / 2**20:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        memory = "unknown memory"
    versions = []
    for name in ("jax", "jaxlib", "libcst", "mypy", "beartype", "brainstate"):
        try:
            versions.append(f"{name} {importlib.import_module(name).__version__}")
        except Exception:
            pass
    return (
        f"{cpu}, {os.cpu_count()} cores, {memory}; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}; " + ", ".join(versions)
    )


def render(sections: list[Section], command: str, elapsed: float) -> str:
    lines = [
        "# Performance",
        "",
        "Every figure is a ratio against a baseline measured in the same run, interleaved, best of",
        "several repeats: these machines are noisy and absolute times do not carry from one run to",
        "the next. Where a ratio reads \"median, best\", the subjects were timed round by round in",
        "rotating order with the same number of calls, each call waiting for its result; the median",
        "of the per-round ratios is what the target is judged by, the best ratio is the least disturbed",
        "round of each. Lower ratios are better unless the target says \"faster\".",
        "",
        f"Produced by `{command}` on {datetime.date.today().isoformat()} in {elapsed:.0f} s.",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    for section in sections:
        lines += [f"## {section.title}", "", "| figure | subject | baseline | subject time | baseline time | ratio | target | met |", "|---|---|---|---|---|---|---|---|"]
        for f in section.figures:
            met = {True: "yes", False: "**no**", None: "-"}[f.met]
            lines.append(
                f"| {f.name} | {f.subject} | {f.baseline} | {_time(f.subject_seconds)} | {_time(f.baseline_seconds)} "
                f"| {f.ratio_text()} | {f.target_text()} | {met} |"
            )
        notes = [n for n in section.notes] + [f"{f.name}: {f.note}" for f in section.figures if f.note]
        if notes:
            lines.append("")
            lines += [f"- {n}" for n in notes]
        lines.append("")
    return "\n".join(lines)


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    parser.add_argument("--only", action="append", default=[], help="run only bench_NAME (repeatable)")
    parser.add_argument("--output", default=str(ROOT / "docs" / "performance.md"), help="where to write the report ('-' for stdout)")
    args = parser.parse_args(argv)
    names = [n for n in discover() if not args.only or n.removeprefix("bench_") in args.only]
    start = time.perf_counter()
    sections = []
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        module = importlib.import_module(name)
        sections.append(module.run(args.quick))
    command = "python benchmarks/run.py" + (" --quick" if args.quick else "") + "".join(f" --only {o}" for o in args.only)
    text = render(sections, command, time.perf_counter() - start)
    if args.output == "-":
        print(text)
    else:
        Path(args.output).write_text(text + "\n")
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
