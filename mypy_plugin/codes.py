"""The plugin's mypy error codes and the one shape of its messages.

Every finding is one rule of :mod:`jitcheck.rules`, reported under that rule's mypy
error code (``jitcheck-label``, ``jitcheck-place``, ``jitcheck-body``,
``jitcheck-setting``) in mypy's own style: a short error line in mypy's double
quotes, then ``note:`` lines giving the rule code with why, and the fix, in the
catalogue's words. The codes are
registered with mypy when this module is imported, so ``disable_error_code`` and
``# type: ignore[jitcheck-body]`` accept them.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.nodes import Context

from jitcheck import rules
from jitcheck.rules import Rule

_DESCRIPTIONS: Final = {
    "jitcheck-label": "Check that graph labels (Label type arguments) can be jit cache keys",
    "jitcheck-place": "Check that graph places (Place type arguments) can be jit cache keys",
    "jitcheck-body": "Check that node bodies compare by value, not by identity",
    "jitcheck-setting": "Check that node settings hash and compare by value",
}

ERROR_CODES: Final[dict[str, ErrorCode]] = {
    name: ErrorCode(name, _DESCRIPTIONS.get(name, "jitcheck rule"), "jitcheck")
    for name in sorted(set(rules.MYPY_CODES.values()))
}
"""mypy's error code for each ``jitcheck-...`` name of :data:`jitcheck.rules.MYPY_CODES`."""

REPORTED: Final[frozenset[str]] = frozenset(rules.MYPY_CODES)
"""The rule codes this plugin reports."""


def error_code(rule: Rule) -> ErrorCode:
    """The mypy error code ``rule`` is reported under."""
    return ERROR_CODES[rule.mypy_code]


@dataclasses.dataclass(frozen=True)
class Finding:
    """One thing to report: the rule, its message fields and where it is."""

    rule: Rule
    context: Context
    fields: dict[str, object] = dataclasses.field(default_factory=dict, hash=False)
    help: str | None = None
    """A more specific fix than the rule's own help (e.g. for the class at fault)."""
    summary: str | None = None
    """The error line, when it is not the rule message's first clause."""
    why: str | None = None
    """The explanation, when it is not the rest of the rule message."""

    @property
    def message(self) -> str:
        """The short error line mypy prints before ``[error-code]``."""
        text = self.summary if self.summary is not None else self.rule.format(**self.fields).partition(": ")[0]
        return mypy_quotes(text[:1].upper() + text[1:])

    @property
    def notes(self) -> list[str]:
        """The ``note:`` lines under the error: the rule and why, then the fix."""
        why = self.why if self.why is not None else self.rule.format(**self.fields).partition(": ")[2]
        fix = self.help if self.help is not None else self.rule.format_help(**self.fields)
        return [mypy_quotes(f"{self.rule.code} ({self.rule.name}): {why}"), mypy_quotes(f"Fix: {fix}")]

    @property
    def code(self) -> ErrorCode:
        return error_code(self.rule)


_QUOTED: Final = re.compile(r"`([^`]*)`")


def mypy_quotes(text: str) -> str:
    """The catalogue's ``name`` quoting in mypy's: ``"name"``."""
    return _QUOTED.sub(r'"\1"', text)


__all__ = ["ERROR_CODES", "REPORTED", "Finding", "error_code", "mypy_quotes"]
