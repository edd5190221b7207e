"""What the server remembers between requests: each open document's last judgement, and
the pending (debounced) judgements.

Kept apart from pygls's wiring (:mod:`jitcheck.server.app`): this is plain data.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from jitcheck.lint.findings import Finding
from jitcheck.lint.settings import Settings


@dataclasses.dataclass(frozen=True)
class Judged:
    """A document's findings, and the text (and version) they were made on.

    ``settings`` is None for a notebook cell: its findings come from the whole
    notebook, so only a whole-notebook fix could rewrite them.
    """

    version: int | None
    text: str
    findings: tuple[Finding, ...]
    settings: Settings | None

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


@dataclasses.dataclass
class Options:
    """The client's ``initializationOptions`` (all optional)."""

    debounce: float = 0.05
    """Seconds to wait after a change before judging (another change restarts the wait)."""
    rule_docs: str | None = None
    """The URL of docs/rules.md that diagnostics link to (default: this copy's own docs/rules.md)."""

    @classmethod
    def read(cls, raw: object) -> Options:
        options = cls()
        if isinstance(raw, dict):
            if isinstance(raw.get("debounceMs"), (int, float)) and raw["debounceMs"] >= 0:
                options.debounce = raw["debounceMs"] / 1000
            if isinstance(raw.get("ruleDocs"), str):
                options.rule_docs = raw["ruleDocs"]
        return options


def is_pyproject(path: Path | None) -> bool:
    return path is not None and path.name == "pyproject.toml"


__all__ = ["Judged", "Options", "is_pyproject"]
