"""Structured findings (`Violation`) and the errors that carry them (`Refused` and kin).

A violation says where (the path of graph labels, the node, the leaf inside it),
what (a rule of :mod:`jitcheck.rules`) and how to fix it. Checks yield violations;
construction collects every one of them and raises a single `Refused` listing all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from jitcheck.rules import LABEL_BOUND, RETURNED_UNLIKE, TRACE_FAILED, VALUES_UNLIKE_INPUTS, Rule


@dataclasses.dataclass(frozen=True)
class Violation:
    """One finding of a runtime check.

    ``graph`` is the path of labels from the outermost graph down to the graph that
    holds the node (empty at the top level); ``node`` the node's label, or None for
    a finding about the whole graph; ``leaf`` the path inside the node to the value
    at fault (``"body"``, ``"settings['w']"``, ``"body.args[0]"``), or None.
    ``cause`` keeps the exception behind the finding, when there is one.
    """

    rule: Rule
    message: str
    help: str
    graph: tuple[Hashable, ...] = ()
    node: Hashable | None = None
    leaf: str | None = None
    cause: BaseException | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def code(self) -> str:
        """The rule code, e.g. ``"JC101"``."""
        return self.rule.code

    @property
    def where(self) -> str:
        """The location, in words: graph path, node and leaf."""
        parts = []
        if self.graph:
            parts.append("graph " + "/".join(_label(label) for label in self.graph))
        if self.node is not None:
            parts.append(f"node {_label(self.node)}")
        if self.leaf:
            parts.append(self.leaf)
        return ", ".join(parts) or "graph"

    def __str__(self) -> str:
        return f"{self.code} [{self.where}] {self.message}\n  help: {self.help}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this violation (for reports and machines)."""
        return {
            "code": self.code,
            "rule": self.rule.name,
            "graph": [repr(label) for label in self.graph],
            "node": None if self.node is None else repr(self.node),
            "leaf": self.leaf,
            "message": self.message,
            "help": self.help,
        }


def _label(label: Hashable) -> str:
    return label if isinstance(label, str) else repr(label)


def node_name(graph: Sequence[Hashable], node: Hashable) -> str:
    """A node's full name for messages: its graph path and label, ``'outer/inner'``."""
    return repr("/".join(_label(label) for label in (*graph, node)))


def violation(
    rule: Rule,
    *,
    graph: tuple[Hashable, ...] = (),
    node: Hashable | None = None,
    leaf: str | None = None,
    cause: BaseException | None = None,
    **fields: object,
) -> Violation:
    """A violation of ``rule``, its message and help filled from ``fields``."""
    return violation_from(rule, fields, graph=graph, node=node, leaf=leaf, cause=cause)


def violation_from(
    rule: Rule,
    fields: Mapping[str, object],
    *,
    graph: tuple[Hashable, ...] = (),
    node: Hashable | None = None,
    leaf: str | None = None,
    cause: BaseException | None = None,
) -> Violation:
    """A violation of ``rule`` with its message and help filled from the ``fields`` mapping."""
    return Violation(
        rule=rule,
        message=rule.format(**fields),
        help=rule.format_help(**fields),
        graph=graph,
        node=node,
        leaf=leaf,
        cause=cause,
    )


class Refused(Exception):
    """Construction refused: every violation the checks found, in one error.

    ``violations`` holds them all; the message lists each with its code, place and fix.
    """

    violations: tuple[Violation, ...]

    def __init__(self, subject: str, violations: Iterable[Violation]) -> None:
        self.subject = subject
        self.violations = tuple(violations)
        count = len(self.violations)
        lines = [f"{subject} refused: {count} violation{'s' if count != 1 else ''}"]
        lines += [str(v) for v in self.violations]
        super().__init__("\n".join(lines))

    @property
    def codes(self) -> tuple[str, ...]:
        """The rule codes of the violations, in order."""
        return tuple(v.code for v in self.violations)

    @property
    def node(self) -> Hashable | None:
        """The node of the first violation that names one."""
        return next((v.node for v in self.violations if v.node is not None), None)


class ReturnedUnlike(Refused):
    """A node body returned another number or structure of outputs than it declares."""


class TraceFailed(Refused):
    """A node body failed when traced at the shapes handed in; the cause is chained."""


class ValuesUnlike(Refused, KeyError):
    """The values handed to a graph do not name exactly its free inputs (JC404).

    Also a ``KeyError`` (a value is looked up by place), for code that catches one;
    unlike a plain ``KeyError`` it prints its message as written.
    """

    def __str__(self) -> str:
        return Exception.__str__(self)


class LabelRefused(Refused, TypeError):
    """A label or place that does not hash (JC301); also a ``TypeError``, what Python raises for one."""


ERRORS_BY_RULE: dict[str, type[Refused]] = {
    TRACE_FAILED.code: TraceFailed,
    RETURNED_UNLIKE.code: ReturnedUnlike,
    VALUES_UNLIKE_INPUTS.code: ValuesUnlike,
    LABEL_BOUND.code: LabelRefused,
}


def refusal(subject: str, violations: Sequence[Violation]) -> Refused:
    """The error to raise for ``violations``: the most specific error class, cause chained."""
    error_class: type[Refused] = Refused
    for v in violations:
        if v.code in ERRORS_BY_RULE:
            error_class = ERRORS_BY_RULE[v.code]
            break
    error = error_class(subject, violations)
    cause = next((v.cause for v in violations if v.cause is not None), None)
    if cause is not None:
        error.__cause__ = cause
    return error
