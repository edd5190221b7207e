"""`Evidence`: what a finding of the static pass rests on, and how sure it is.

A cache-key finding claims two things: the site runs again (a loop, call sites, a
caller that loops) and each run compiles the same computation (the same function
body, closing over values that vary only as data). Each claim is a list of
:class:`Reason`; what the pass could not prove is said in ``unproven``. A finding
whose repetition or sameness is only assumed (a public function taken to be called
often, a receiver it cannot resolve) has ``confidence == "low"`` and is reported only
under ``--preview``, as ruff's preview rules are. A rule only fills these in; the
output formats and the selection read them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

Confidence = Literal["high", "low"]
"""``high``: repetition and sameness shown by the code; ``low``: one of them is a guess (``--preview``)."""

CONFIDENCES: tuple[Confidence, ...] = ("high", "low")


@dataclasses.dataclass(frozen=True)
class Reason:
    """One fact a finding rests on: a short ``kind`` tag, the words, and the line it is seen at (0: none)."""

    kind: str
    text: str
    line: int = 0

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "text": self.text, "line": self.line or None}


@dataclasses.dataclass(frozen=True)
class Evidence:
    """Why a finding's site runs again (``again``), why each run is the same computation (``same``),
    and what the pass could not prove (``unproven``)."""

    again: tuple[Reason, ...] = ()
    same: tuple[Reason, ...] = ()
    unproven: tuple[str, ...] = ()
    confidence: Confidence = "high"

    def guessed(self, what: str) -> Evidence:
        """The same evidence resting on a guess: ``what`` is not proven, and the confidence is low."""
        return dataclasses.replace(self, unproven=(*self.unproven, what), confidence="low")

    def to_json(self) -> dict[str, object]:
        """The JSON object of ``--output-format json`` (``"evidence"``)."""
        return {"runs_again": [r.to_json() for r in self.again], "same_computation": [r.to_json() for r in self.same],
                "unproven": list(self.unproven)}

    def to_row(self) -> list[Any]:
        """A compact row for the cache."""
        return [[[r.kind, r.text, r.line] for r in self.again], [[r.kind, r.text, r.line] for r in self.same],
                list(self.unproven), self.confidence]

    @classmethod
    def from_row(cls, row: list[Any] | None) -> Evidence:
        if not row:
            return NONE
        again, same, unproven, confidence = row
        return cls(tuple(Reason(*r) for r in again), tuple(Reason(*r) for r in same), tuple(unproven),
                   confidence if confidence in CONFIDENCES else "high")


NONE = Evidence()
"""No evidence recorded (a JC000 finding, or a cache row from before evidence existed)."""


__all__ = ["CONFIDENCES", "Confidence", "Evidence", "NONE", "Reason"]
