"""What every rule family shares: the finding types and the checker that records findings.

A family asks the resolver (:class:`~jitcheck.lint.frequency.Frequency` and below)
what names are and reports through :meth:`Checker.report`, which keeps one finding
per node and rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Literal

import libcst as cst
from libcst.metadata import MetadataWrapper, Scope

from jitcheck import rules
from jitcheck.lint import names
from jitcheck.lint.collect import Collector
from jitcheck.lint.evidence import NONE, Evidence
from jitcheck.lint.sameness import Sameness
from jitcheck.lint.index import ProjectIndex

FixKind = Literal["value-partial", "hoist-lambda", "tuple", "frozenset", "frozen-dataclass"]


@dataclasses.dataclass(frozen=True)
class FixPlan:
    """A rewrite that removes a finding: what to change, and how safe it is."""

    kind: FixKind
    node: cst.CSTNode
    applicability: Literal["safe", "unsafe"]


@dataclasses.dataclass(frozen=True)
class RawFinding:
    """A finding before positions: the node it is about, its rule and message fields."""

    node: cst.CSTNode
    rule: rules.Rule
    fields: Mapping[str, object]
    fix: FixPlan | None = None
    note: str | None = None
    """Added to the rule's help line: what else the fix takes here."""
    jitted: bool = False
    """The finding is the function handed to a rebuilt ``jax.jit``: the rule's ``jitted_help`` applies."""
    evidence: Evidence = NONE
    """What the finding rests on (reasons still hold their nodes; :func:`~jitcheck.lint.analysis.analyze` places them)."""


@dataclasses.dataclass(frozen=True)
class Problem:
    """A rule broken by an expression, before it is reported."""

    rule: rules.Rule
    fields: dict[str, object]
    plan: FixPlan | None = None
    node: cst.CSTNode | None = None
    """Where to report it, when not at the expression judged (a partial inside ``jax.grad(...)``)."""
    note: str | None = None
    """Added to the rule's help line (a partial inside a rebuilt ``jax.grad``: build that once too)."""
    jitted: bool = False
    evidence: Evidence = NONE
    repeats_with: Evidence | None = None
    """The repetition evidence when it is not the site's: a callable built before the loop that jits it
    is rebuilt by each call of its function, not by the loop (its ``runs_again`` and ``same_computation``)."""

    def reworded(self, said: str, shown: str) -> Problem:
        """This problem with its message's "where" words ``said`` replaced by ``shown``: the words of the evidence
        it is reported with, when that is not the evidence the message was first worded from."""
        position = str(self.fields.get("position", "")).replace(said, shown)
        return dataclasses.replace(self, fields={**self.fields, "position": position})


def snippet(module: cst.Module, node: cst.CSTNode, limit: int = 60) -> str:
    """The source of ``node`` on one line, cut to ``limit`` characters, for a message."""
    text = " ".join(module.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Checker(Sameness):
    """The state of one module's judging: the findings so far, reported once per node and rule."""

    def __init__(self, module: cst.Module, collector: Collector, scopes: Mapping[cst.CSTNode, Scope | None],
                 graph_constructors: Sequence[str], jit_wrappers: Sequence[str], index: ProjectIndex | None = None,
                 module_name: str = "", path: str = "", metadata: MetadataWrapper | None = None) -> None:
        super().__init__(module, collector, scopes, jit_wrappers, index, module_name)
        self.path = path
        self._metadata = metadata
        self.node_constructors = names.NODE_CONSTRUCTORS | frozenset(graph_constructors)
        self.found: list[RawFinding] = []
        self._seen: set[tuple[int, str]] = set()
        self._hoist_names: set[str] = set()

    # -- reporting -------------------------------------------------------------------

    def report(self, node: cst.CSTNode, rule: rules.Rule, fields: dict[str, object], fix: FixPlan | None = None,
               note: str | None = None, jitted: bool = False, evidence: Evidence = NONE) -> None:
        key = (id(node), rule.code)
        if key in self._seen:
            return
        self._seen.add(key)
        self.found.append(RawFinding(node, rule, fields, fix, note, jitted, evidence))

    def report_problem(self, expr: cst.CSTNode, problem: Problem, evidence: Evidence | None = None) -> None:
        """Report ``problem`` found at ``expr``; ``evidence`` (what the site's repetition rests on) is joined to the
        problem's own (why each run is the same computation, or why a value cannot be hashed)."""
        if problem.repeats_with is not None and evidence is not None:
            evidence = problem.repeats_with  # built before the loop: its function's calls repeat it, not the loop
        joined = problem.evidence if evidence is None else dataclasses.replace(
            evidence, same=(*evidence.same, *problem.evidence.same), unproven=(*evidence.unproven, *problem.evidence.unproven),
            confidence="low" if "low" in (evidence.confidence, problem.evidence.confidence) else "high")
        self.report(problem.node if problem.node is not None else expr, problem.rule, problem.fields, problem.plan, problem.note,
                    problem.jitted, joined)

