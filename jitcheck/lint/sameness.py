"""Why each run compiles the same computation: the ``same_computation`` evidence of a finding.

A wrapper rebuilt on each run is only a bug when the rebuilt callables compute the
same thing: the same code, closing over values that vary only as data (a closure
baking a different temperature into otherwise identical programs is one: pass it as
an argument). When each repetition builds a structurally different object, each
compile is a different program, and no restructuring shares them.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitcheck.lint.evidence import Evidence, Reason
from jitcheck.lint.repetition import Repetition


class Sameness(Repetition):
    """Says why the callables a site rebuilds are the same computation, or that a value cannot be hashed."""

    def same_code(self, evidence: Evidence, built: cst.CSTNode, what: str) -> Evidence:
        """``evidence`` with the reason each run is the same computation: ``what`` (built at ``built``) is
        made from the same code every time."""
        line = self.line_of(built)
        reason = Reason("same-code", f"each run builds {what} from the same code at line {line}", line)
        return dataclasses.replace(evidence, same=(*evidence.same, reason))

    def same_def(self, evidence: Evidence, function: cst.FunctionDef) -> Evidence:
        return self.same_code(evidence, function, f"`{function.name.value}`")

    def same_wrapper(self, evidence: Evidence, call: cst.Call) -> Evidence:
        return self.same_code(evidence, call, "a new wrapper of the same function")

    def unhashable(self, expr: cst.CSTNode) -> Evidence:
        """A static value that cannot be hashed: jax hashes it on every call and raises (no repetition needed)."""
        line = self.line_of(expr)
        return Evidence((Reason("hashed", f"the value at line {line} is hashed into the cache key each time it is passed", line),))

    def node_key(self, site: object) -> Evidence:
        """A graph node's body or setting: part of the graph's cache key wherever the node is defined."""
        node = getattr(site, "node", None)
        line = self.line_of(node) if isinstance(node, cst.CSTNode) else 0
        return Evidence((Reason("node-key", f"the node defined at line {line} is compared into its graph's cache key", line),))


__all__ = ["Sameness"]
