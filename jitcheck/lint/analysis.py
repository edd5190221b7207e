"""The driver of the static pass: resolve names with libcst's scope analysis and judge.

:func:`analyze` parses nothing itself: it takes a parsed module, runs the cheap
walk of :mod:`jitcheck.lint.collect`, and only where a finding is possible
resolves libcst's `ScopeProvider` (qualified names, assignments, accesses) and
hands each candidate to the rule families of :mod:`jitcheck.lint.checks`, which
judge it against the rules of :mod:`jitcheck.rules`. Positions are libcst's
`PositionProvider`'s, computed only when there is something to report, and then
only for the reported nodes (:mod:`.positions`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, ScopeProvider

from jitcheck import rules
from jitcheck.lint import cstwalk, names
from jitcheck.lint.checks.base import FixPlan, RawFinding
from jitcheck.lint.checks.identity_aux import annotated_with
from jitcheck.lint.checks.jit_sites import JitSites
from jitcheck.lint.checks.nodes import Nodes
from jitcheck.lint.collect import collect
from jitcheck.lint.evidence import Evidence
from jitcheck.lint.index import UNNAMED_MODULE, ProjectIndex, with_module
from jitcheck.lint.positions import code_range, positions_of
from jitcheck.lint.prefilter import possible

cstwalk.install()  # libcst's visitors (scopes, the collector) walk without rebuilding every node


@dataclasses.dataclass(frozen=True)
class Located:
    """A finding with its position (1-based line and column) and rendered text."""

    line: int
    column: int
    end_line: int
    end_column: int
    rule: rules.Rule
    message: str
    help: str
    fix: FixPlan | None
    evidence: Evidence


@dataclasses.dataclass
class Analysis:
    """What :func:`analyze` found in one module, with the wrapper the fixes run on."""

    module: cst.Module
    wrapper: MetadataWrapper | None
    findings: list[Located]


class Analyzer(JitSites, Nodes):
    """Walks one module's candidates and hands each to the rule family that judges it (:mod:`jitcheck.lint.checks`)."""

    def run(self) -> list[RawFinding]:
        for site in self.c.candidates:
            call = site.node
            wrapper = self.wrapper_for(call.func)
            if wrapper is not None:
                self.jit_call(site, wrapper)
                continue
            if self.is_kind(call.func, self.node_constructors):
                self.node_call(site)
                continue
            if self.is_kind(call.func, names.FUNCTOOLS_PARTIALS) and call.args:
                inner = self.wrapper_for(call.args[0].value)
                if inner is not None:
                    self.partial_jit_call(site, inner)
        for function, decorator, context in self.c.decorated:
            self.decorated_def(function, decorator, context)
        self.imported_jit_calls()
        self.made_jit_calls()
        return self.found


def analyze(module: cst.Module, source: str, *, graph_constructors: Sequence[str] = (), jit_wrappers: Sequence[str] = (),
            prefilter: bool = True, index: ProjectIndex | None = None, module_name: str = "", path: str = "") -> Analysis:
    """Every finding of the static rules in a parsed module, in source order.

    ``index`` is the project index of the run (what the other files define); without
    one, the module is indexed alone, as ``module_name``. ``prefilter=False`` skips
    the ``ast`` test of :mod:`.prefilter` (the tests use it to show that the test
    never hides a finding).
    """
    module_name = module_name or UNNAMED_MODULE
    index = with_module(index, module_name, source)
    hints = index.hints()
    jit_wrappers = (*jit_wrappers, *(alias for alias, _ in hints.jit_aliases))
    if prefilter and not possible(source, graph_constructors, jit_wrappers, hints=hints):
        return Analysis(module, None, [])
    collector = collect(module, source, graph_constructors, jit_wrappers)
    if not collector.needs_scope and not any(
            (cst.helpers.get_full_name_for_node(func) or "").rsplit(".", 1)[-1]
            in hints.static_jitted | hints.jit_factories | hints.jit_methods for func in collector.call_of_func) and not (hints.identity_aux and any(
            annotated_with(function, hints.identity_aux) for function, _, _ in collector.decorated)):
        return Analysis(module, None, [])
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = wrapper.resolve(ScopeProvider)
    analyzer = Analyzer(module, collector, scopes, graph_constructors, jit_wrappers, index, module_name, path, wrapper)
    analyzer.source_text = source
    raw = analyzer.run()
    if not raw:
        return Analysis(module, wrapper, [])
    spans = analyzer.spans  # every node's range, when a rule asked for a line
    positions = {} if spans is not None else positions_of(module, [item.node for item in raw])  # else the reported nodes'
    located = []
    for item in raw:
        where = code_range(spans[id(item.node)]) if spans is not None else positions[item.node]
        located.append(
            Located(
                where.start.line,
                where.start.column + 1,
                where.end.line,
                where.end.column + 1,
                item.rule,
                item.rule.format(**item.fields),
                (item.rule.format_jitted_help(**item.fields) if item.jitted else item.rule.format_help(**item.fields))
                + (f"; {item.note}" if item.note else ""),
                item.fix,
                item.evidence,
            )
        )
    located.sort(key=lambda f: (f.line, f.column, f.rule.code))
    return Analysis(module, wrapper, located)


__all__ = ["Analysis", "Analyzer", "FixPlan", "Located", "RawFinding", "analyze"]
