"""Run jitcheck's static pass on public JAX libraries, downloaded inside the run.

    python benchmarks/real_world.py                 # download, check, print a report
    python benchmarks/real_world.py --json out.json # also write the findings as JSON
    python benchmarks/real_world.py --keep DIR      # keep (and reuse) the downloads in DIR

Each library's source distribution is fetched with ``pip download --no-deps
--no-binary :all:`` into a temporary folder (never committed), unpacked, and checked
with the default configuration. The report gives, per library, the files, lines,
seconds and findings by rule, then every finding; docs/real-world.md judges each
one true or false positive by reading the code.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LIBRARIES: tuple[tuple[str, str], ...] = (
    ("flax", "0.12.8"),
    ("optax", "0.2.8"),
    ("equinox", "0.13.8"),
    ("numpyro", "0.22.0"),
    ("brax", "0.14.2"),
    ("chex", "0.1.92"),
    ("brainstate", "0.5.4"),
)
"""Pinned versions that exist on PyPI as source distributions (brainstate: the other
``StatefulFunction``, and the code that uses it most)."""


@dataclasses.dataclass
class LibraryResult:
    """What the static pass found in one library."""

    name: str
    version: str
    root: Path
    files: int
    lines: int
    seconds: float
    findings: list[tuple[str, int, str, str]]
    """(path relative to the unpacked root, line, code, message)."""

    @property
    def by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(code for _, _, code, _ in self.findings).items()))


def download(folder: Path, libraries: Sequence[tuple[str, str]] = LIBRARIES) -> dict[str, Path]:
    """Download and unpack each library's sdist into ``folder``; their unpacked roots, by name."""
    folder.mkdir(parents=True, exist_ok=True)
    wanted = [f"{name}=={version}" for name, version in libraries]
    missing = [spec for spec, (name, version) in zip(wanted, libraries) if not list(folder.glob(f"{name}-{version}.tar.gz"))]
    if missing:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", "-d", str(folder), *missing],
            check=True,
            timeout=900,
        )
    roots = {}
    for name, version in libraries:
        archive = folder / f"{name}-{version}.tar.gz"
        root = folder / f"{name}-{version}"
        if not root.is_dir():
            with tarfile.open(archive) as tar:
                tar.extractall(folder, filter="data")
        roots[name] = root
    return roots


def check_library(name: str, version: str, root: Path, jobs: int | None = None) -> LibraryResult:
    """Run the static pass over one unpacked library (default configuration, no cache)."""
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    config = config_module.Config(root=root)
    start = time.perf_counter()
    report = run([root], config, Options(jobs=jobs, use_cache=False), root)
    seconds = time.perf_counter() - start
    # A notebook's findings are placed in a cell: `nb.ipynb:cell 3` (line and column count in the cell).
    findings = [(Path(f.path).as_posix() + (f":cell {f.cell}" if f.cell else ""), f.line, f.code, f.message)
                for f in report.findings]
    return LibraryResult(name, version, root, report.files, report.lines, seconds, findings)


def render(results: Sequence[LibraryResult]) -> str:
    lines = ["| library | files | lines | seconds | findings by rule |", "|---|---|---|---|---|"]
    for r in results:
        rules = ", ".join(f"{code}: {n}" for code, n in r.by_rule.items()) or "none"
        lines.append(f"| {r.name} {r.version} | {r.files} | {r.lines:,} | {r.seconds:.1f} | {rules} |")
    total = sum(len(r.findings) for r in results)
    lines += ["", f"{total} findings in {sum(r.files for r in results)} files, {sum(r.lines for r in results):,} lines.", ""]
    for r in results:
        for path, line, code, message in r.findings:
            lines.append(f"- {r.name}-{r.version}/{path}:{line}: {code} {message}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="download into (and reuse) this folder instead of a temporary one")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    parser.add_argument("--jobs", type=int, help="worker processes (default: every core)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="jitcheck-real-world-") as temporary:
        folder = args.keep or Path(temporary)
        roots = download(folder)
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        results = [check_library(name, version, roots[name], args.jobs) for name, version in LIBRARIES]
        print(render(results))
        if args.json:
            args.json.write_text(json.dumps([
                {"library": r.name, "version": r.version, "files": r.files, "lines": r.lines, "seconds": round(r.seconds, 2),
                 "by_rule": r.by_rule, "findings": [{"path": p, "line": n, "code": c, "message": m} for p, n, c, m in r.findings]}
                for r in results
            ], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
