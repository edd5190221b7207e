"""Every finding of the static pass on the development corpus, in full, to compare two versions of the pass.

    python benchmarks/lint_findings.py --keep /work/corpus-dl --output before.json
    python benchmarks/lint_findings.py --keep /work/corpus-dl --output after.json --compare before.json

Each development library unpacked in ``--keep`` (benchmarks/bench_lint_cpu.py's choice: a
sealed library is never read) is checked as real_world.py checks it (its own project index,
the default configuration with ``--preview``, no cache), in this process. Each finding is
written with every field a user sees (path, cell, position, code, message, help, fix, fix
message, evidence and confidence); ``--edits`` also asks for each fix's text edits (as the
JSON output does). ``--compare`` exits 1 when the findings differ from an earlier output,
and prints the first differences. A change meant to make the pass faster must leave this
output unchanged.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def findings(keep: Path, edits: bool, libraries: set[str] | None = None) -> list[list[object]]:
    """Every finding on the development libraries in ``keep``, each as a JSON row (library first)."""
    from benchmarks.bench_lint_cpu import development_folders
    from benchmarks.real_world import SCORING_FILE_TIMEOUT
    from jitcheck.lint.config import Config
    from jitcheck.lint.runner import Options, run

    rows: list[list[object]] = []
    for name, folder in development_folders(keep):
        if libraries is not None and name.split()[0] not in libraries:
            continue
        config = Config(root=folder, file_timeout=SCORING_FILE_TIMEOUT, preview=True)
        report = run([folder], config, Options(jobs=1, use_cache=False, isolate=False, edits=edits), folder)
        for f in report.findings:
            rows.append([name, f.path, f.cell, f.line, f.column, f.end_line, f.end_column, f.code, f.message, f.help,
                         f.fix, f.fix_message, [dataclasses.astuple(e) for e in f.edits], f.evidence.to_row(), f.confidence])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True, help="the folder real_world.py --download-only --keep unpacked into")
    parser.add_argument("--output", type=Path, required=True, help="write the findings here (JSON)")
    parser.add_argument("--compare", type=Path, help="an earlier output: exit 1 when the findings differ")
    parser.add_argument("--edits", action="store_true", help="also ask for each fix's text edits")
    parser.add_argument("--libraries", help="comma-separated names: only these")
    args = parser.parse_args(argv)
    chosen = set(args.libraries.split(",")) if args.libraries else None
    rows = findings(args.keep, args.edits, chosen)
    args.output.write_text(json.dumps(rows, indent=0) + "\n")
    print(f"{len(rows)} findings written to {args.output}")
    if args.compare is None:
        return 0
    before = json.loads(args.compare.read_text())
    after = json.loads(json.dumps(rows))
    if before == after:
        print(f"the same {len(rows)} findings as {args.compare}")
        return 0
    gone = [row for row in before if row not in after]
    new = [row for row in after if row not in before]
    print(f"DIFFERENT from {args.compare}: {len(gone)} findings gone, {len(new)} new or changed")
    for row in gone[:10]:
        print("-", row)
    for row in new[:10]:
        print("+", row)
    return 1


if __name__ == "__main__":
    sys.exit(main())
