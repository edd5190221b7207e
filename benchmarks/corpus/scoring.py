"""Score the static pass against the labelled corpus: recall over labelled bug sites,
precision over findings, and every finding at an unlabelled site reported as unjudged.

A label names one jit-like site of a library's sdist: the line of the call
(``jax.jit(...)``, ``pmap(...)``, ``eqx.filter_jit(...)``) or of the decorator, and an
end line (the call's last line, or for a decorator the ``def`` line). A finding
matches a label when its line falls inside that span, in the same file of the same
library. Pure functions only: no download, no jax, no libcst.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path

COLUMNS = ("library", "version", "path", "line", "end_line", "label", "kind", "reason")
VERDICTS = ("bug", "fine")
NOT_SCORED = frozenset({"JC000"})
"""Codes that say a file could not be checked (it is empty, does not parse): not a claim
about a cache key, so listed apart and kept out of precision."""


class LabelError(ValueError):
    """A malformed labels file; the message names the file and line."""


@dataclasses.dataclass(frozen=True)
class Label:
    """One judged site."""

    library: str
    version: str
    path: str
    line: int
    end_line: int
    label: str
    kind: str
    reason: str

    @property
    def is_bug(self) -> bool:
        return self.label == "bug"

    def covers(self, path: str, line: int) -> bool:
        return path == self.path and self.line <= line <= self.end_line

    @property
    def location(self) -> str:
        span = f"{self.line}" if self.end_line == self.line else f"{self.line}-{self.end_line}"
        return f"{self.library}-{self.version}/{self.path}:{span}"


@dataclasses.dataclass(frozen=True)
class Hit:
    """One finding of the static pass: (library, path relative to the sdist root, line, code, message)."""

    library: str
    path: str
    line: int
    code: str
    message: str = ""

    @property
    def location(self) -> str:
        return f"{self.library}/{self.path}:{self.line}"


def load_labels(path: Path) -> list[Label]:
    """Read a labels TSV (header row with COLUMNS); raise LabelError naming file:line on bad rows."""
    labels: list[Label] = []
    seen: dict[tuple[str, str, int], int] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader, None)
        if header is None or tuple(header) != COLUMNS:
            raise LabelError(f"{path}:1: the header must be the columns {', '.join(COLUMNS)} (tab-separated); got {header!r}")
        for number, row in enumerate(reader, start=2):
            if not row or not "".join(row).strip():
                continue
            if len(row) != len(COLUMNS):
                raise LabelError(f"{path}:{number}: {len(row)} columns, expected {len(COLUMNS)} ({', '.join(COLUMNS)})")
            library, version, file, line, end_line, verdict, kind, reason = row
            try:
                start, end = int(line), int(end_line)
            except ValueError:
                raise LabelError(f"{path}:{number}: line and end_line must be integers, got {line!r} and {end_line!r}") from None
            if start < 1 or end < start:
                raise LabelError(f"{path}:{number}: the span {start}-{end} is empty or starts before line 1")
            if verdict not in VERDICTS:
                raise LabelError(f"{path}:{number}: label {verdict!r} is not one of {', '.join(VERDICTS)}")
            if not reason.strip():
                raise LabelError(f"{path}:{number}: every label needs a one-line reason")
            key = (library, file, start)
            if key in seen:
                raise LabelError(f"{path}:{number}: {library}/{file}:{start} is already labelled on line {seen[key]}")
            seen[key] = number
            labels.append(Label(library, version, file, start, end, verdict, kind, reason))
    return labels


@dataclasses.dataclass
class Score:
    """The scores of one library, or of several added together."""

    name: str
    bugs: list[Label] = dataclasses.field(default_factory=list)
    found: list[Label] = dataclasses.field(default_factory=list)
    missed: list[Label] = dataclasses.field(default_factory=list)
    fine: int = 0
    true_positives: list[tuple[Hit, Label]] = dataclasses.field(default_factory=list)
    false_positives: list[tuple[Hit, Label]] = dataclasses.field(default_factory=list)
    unjudged: list[Hit] = dataclasses.field(default_factory=list)
    unchecked: list[Hit] = dataclasses.field(default_factory=list)
    """Files the pass could not check (NOT_SCORED codes)."""

    @property
    def findings(self) -> int:
        return len(self.true_positives) + len(self.false_positives) + len(self.unjudged)

    @property
    def recall(self) -> float | None:
        """Labelled bug sites with at least one finding, over all labelled bug sites."""
        return len(self.found) / len(self.bugs) if self.bugs else None

    @property
    def precision(self) -> float | None:
        """True findings over all findings (an unjudged finding counts against it until labelled)."""
        return len(self.true_positives) / self.findings if self.findings else None

    def add(self, other: Score) -> None:
        self.bugs += other.bugs
        self.found += other.found
        self.missed += other.missed
        self.fine += other.fine
        self.true_positives += other.true_positives
        self.false_positives += other.false_positives
        self.unjudged += other.unjudged
        self.unchecked += other.unchecked


def score(name: str, labels: Sequence[Label], hits: Iterable[Hit]) -> Score:
    """Match one library's findings to its labels."""
    result = Score(name)
    result.bugs = [label for label in labels if label.is_bug]
    result.fine = sum(1 for label in labels if not label.is_bug)
    found: set[int] = set()
    for hit in hits:
        if hit.code in NOT_SCORED:
            result.unchecked.append(hit)
            continue
        matches = [index for index, label in enumerate(labels) if label.covers(hit.path, hit.line)]
        if not matches:
            result.unjudged.append(hit)
            continue
        # Nested sites (a jit inside a jitted lambda's span): the innermost span judges.
        index = min(matches, key=lambda i: (labels[i].end_line - labels[i].line, -labels[i].line))
        label = labels[index]
        if label.is_bug:
            result.true_positives.append((hit, label))
            found.add(index)
        else:
            result.false_positives.append((hit, label))
    result.found = [label for index, label in enumerate(labels) if index in found]
    result.missed = [label for index, label in enumerate(labels) if label.is_bug and index not in found]
    return result


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def table(scores: Sequence[Score], *totals: Score) -> str:
    """A markdown table: per library, then the totals in bold."""
    lines = [
        "| library | bug sites | fine sites | bugs found | recall | findings | true | false | unjudged | precision |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in [*scores, *totals]:
        name = f"**{row.name}**" if any(row is total for total in totals) else row.name
        lines.append(
            f"| {name} | {len(row.bugs)} | {row.fine} | {len(row.found)} | {percent(row.recall)} | {row.findings} "
            f"| {len(row.true_positives)} | {len(row.false_positives)} | {len(row.unjudged)} | {percent(row.precision)} |"
        )
    return "\n".join(lines)
