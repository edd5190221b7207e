"""A static argument that takes a new value on every call (JC207): a counter or a loop index as a cache key.

A static argument is hashed into the cache key, so each value it takes compiles the
function again. When the value read is a counter the class changes between calls
(``self._n_updates += 1``) or a loop's index (``range``, ``enumerate``, a ``while`` loop's
``step += 1``), and the jitted function uses the parameter only in arithmetic, every
compile is the same program: traced, the parameter would compile once. A parameter that sets a shape, a
Python branch or a loop count is another program per value and is left alone.
"""

from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from jitcheck import rules
from jitcheck.lint.checks.base import Checker, snippet
from jitcheck.lint.collect import Context
from jitcheck.lint.evidence import Evidence, Reason

ARRAY_MODULES = frozenset({"jnp", "jax.numpy", "lax", "jax.lax", "jax.nn", "jax.scipy", "jax.random", "jr"})
"""Modules whose functions take traced numbers as they take Python ones (the roots a data call is spelled from)."""

SHAPE_FUNCTIONS = frozenset({
    "zeros", "ones", "full", "empty", "arange", "linspace", "logspace", "eye", "identity", "tri", "tril", "triu",
    "reshape", "broadcast_to", "tile", "repeat", "split", "array_split", "pad", "roll", "dynamic_slice",
    "dynamic_slice_in_dim", "dynamic_update_slice", "slice", "slice_in_dim", "top_k", "fori_loop", "iota",
    "zeros_like", "ones_like", "full_like", "expand_dims", "squeeze", "moveaxis", "swapaxes", "transpose", "take",
    "one_hot", "diag", "concatenate", "stack", "split_key", "fold_in", "choice", "permutation",
})
"""Array functions whose number arguments are shapes, sizes, axes or counts: concrete values, not data."""

SHAPE_KEYWORDS = frozenset({"shape", "axis", "axes", "num", "size", "length", "n", "k", "dtype", "num_classes"})
"""Keyword arguments that take a concrete number."""

_ARITHMETIC = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)
"""What a number passes through and stays a number (the walk up from a use stops at the first other node)."""


class _Uses(cst.CSTVisitor):
    """Every read of some names in a function, each with the chain of nodes above it (the function first)."""

    def __init__(self, wanted: set[str]) -> None:
        self.wanted = wanted
        self.stack: list[cst.CSTNode] = []
        self.reads: list[tuple[cst.Name, tuple[cst.CSTNode, ...]]] = []
        self.bound: list[tuple[str, cst.CSTNode]] = []
        """Names assigned from an expression that reads a wanted name: (name, the assigned value)."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name) and node.value in self.wanted:
            parent = self.stack[-1] if self.stack else None
            if not (isinstance(parent, cst.Attribute) and parent.attr is node) and not isinstance(parent, (cst.Param, cst.AssignTarget)) \
                    and not (isinstance(parent, cst.Arg) and parent.keyword is node):
                self.reads.append((node, tuple(self.stack)))
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


class ChangingStatics(Checker):
    """Judges a static argument whose value reads a counter or a loop index (JC207)."""

    def counters(self, cls: cst.ClassDef) -> dict[str, cst.CSTNode]:
        """The attributes of ``self`` the methods of ``cls`` change by arithmetic on themselves (``self.n += k``,
        ``self.n = self.n + k``), each with the statement that changes it (the first)."""
        found: dict[str, cst.CSTNode] = {}

        class Find(cst.CSTVisitor):
            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                if isinstance(node.target, cst.Attribute) and isinstance(node.target.value, cst.Name) \
                        and isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)):
                    found.setdefault(node.target.attr.value, node)

            def visit_Assign(self, node: cst.Assign) -> None:
                for target in node.targets:
                    t = target.target
                    if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) \
                            and isinstance(node.value, cst.BinaryOperation) \
                            and isinstance(node.value.operator, (cst.Add, cst.Subtract)) \
                            and isinstance(node.value.left, cst.Attribute) and node.value.left.attr.value == t.attr.value \
                            and isinstance(node.value.left.value, cst.Name) and node.value.left.value.value == t.value.value:
                        found.setdefault(t.attr.value, node)

        cls.body.visit(Find())
        return found

    def data_only(self, function: cst.FunctionDef, param: str) -> cst.CSTNode | None:
        """The first use of ``param`` in ``function`` when every use is arithmetic whose result goes to an array
        function (``jnp``, ``lax``) as data, is returned, or goes to a name used the same way; None when some use
        is concrete (a Python branch, a loop count, a shape, an index, a call of anything else) or there is none."""
        wanted = {param}
        uses = _Uses(wanted)
        function.body.visit(uses)
        first: cst.CSTNode | None = None
        pending = list(uses.reads)
        seen_names = {param}
        while pending:
            name, chain = pending.pop(0)
            index = len(chain) - 1
            while index >= 0 and isinstance(chain[index], _ARITHMETIC):
                index -= 1
            holder = chain[index] if index >= 0 else None
            if isinstance(holder, cst.Arg):
                call = chain[index - 1] if index >= 1 else None
                if not isinstance(call, cst.Call) or holder.keyword is not None and holder.keyword.value in SHAPE_KEYWORDS:
                    return None
                spelled = get_full_name_for_node(call.func) or ""
                root, _, last = spelled.rpartition(".")
                if root not in ARRAY_MODULES or last in SHAPE_FUNCTIONS:
                    return None
            elif isinstance(holder, cst.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0].target, cst.Name):
                bound = holder.targets[0].target.value
                if bound in seen_names:
                    return None  # a name rebinding itself: follow no further
                seen_names.add(bound)
                more = _Uses({bound})
                function.body.visit(more)
                pending.extend(more.reads)
            elif not isinstance(holder, cst.Return):
                return None
            if first is None:
                first = name
        return first

    def changing_static(self, expr: cst.BaseExpression, position: str, param: str | None, call: cst.Call,
                        context: Context, callee: cst.FunctionDef | None, callee_name: str,
                        declared: cst.CSTNode | None) -> None:
        """Report the static spec ``declared`` (the jit decorator of ``callee``) when ``expr``, passed as the static
        ``position`` (parameter ``param``), reads a counter of the caller's class or an index of the loop around the
        call (:func:`_counted_by`), and ``callee`` uses the parameter only as data: the fix is made there."""
        if callee is None or param is None or declared is None:
            return
        found = self._changing_source(expr, context)
        if found is None:
            return
        source, changes, again = found
        used = self.data_only(callee, param)
        if used is None:
            return
        line = self.line_of(used)
        same = Reason("data-only", f"`{callee_name}` uses `{param}` only in arithmetic handed to array functions "
                                   f"(line {line}): traced, it would be the same program", line)
        passed = self.line_of(expr)
        given = Reason("passed", f"line {passed} passes `{snippet(self.module, expr, 50)}` as `{param}`", passed)
        self.report(declared, rules.CHANGING_STATIC, {
            "subject": snippet(self.module, expr, 50), "line": passed, "position": position, "source": source,
            "changes": changes, "callee": callee_name, "param": param}, evidence=Evidence((given, again), (same,)))

    def _changing_source(self, expr: cst.BaseExpression, context: Context) -> tuple[str, str, Reason] | None:
        """What in ``expr`` changes between calls: its words, how it changes, and the reason (None: nothing)."""
        reads: list[cst.CSTNode] = []

        class Reads(cst.CSTVisitor):
            def visit_Attribute(self, node: cst.Attribute) -> bool:
                reads.append(node)
                return False

            def visit_Name(self, node: cst.Name) -> None:
                reads.append(node)

            def visit_Lambda(self, node: cst.Lambda) -> bool:
                return False

        expr.visit(Reads())
        body = getattr(context.function, "body", None)
        if isinstance(body, cst.IndentedBlock):  # a name the function binds once from such a value: what it reads
            bound = _bound_once(body)
            for read in list(reads):
                value = bound.get(read.value) if isinstance(read, cst.Name) else None
                if value is not None:
                    value.visit(Reads())
        if context.method_of is not None and context.self_name is not None:
            counters = self.counters(context.method_of)
            for read in reads:
                if isinstance(read, cst.Attribute) and isinstance(read.value, cst.Name) \
                        and read.value.value == context.self_name and read.attr.value in counters:
                    changed = counters[read.attr.value]
                    line = self.line_of(changed)
                    name = f"{context.self_name}.{read.attr.value}"
                    return (f"`{name}`", f"the class changes at line {line} (a counter)",
                            Reason("counter", f"`{name}` is a counter: line {line} changes it, so the value passed "
                                              "differs from one call to the next", line))
        loop = context.loop if context.in_loop else None
        if loop is None:
            return None
        counted = sorted(_counted_by(loop) & {read.value for read in reads if isinstance(read, cst.Name)})
        if not counted:
            return None
        index, line = counted[0], self.line_of(loop)
        kind = "the `for` loop" if isinstance(loop, cst.For) else "the `while` loop" if isinstance(loop, cst.While) \
            else "the comprehension"
        return (f"the loop index `{index}`", f"takes a new value on every iteration of {kind} at line {line}",
                Reason("loop", f"`{index}` counts the iterations of {kind} at line {line}", line))


def _counted_by(loop: cst.CSTNode) -> set[str]:
    """The names ``loop`` counts its iterations with: a ``for`` over ``range(...)``, the index ``enumerate(...)``
    gives, or a name a ``while`` loop's body adds to (``step += 1``)."""
    if isinstance(loop, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        found_in: set[str] = set()
        clause: cst.CompFor | None = loop.for_in
        while clause is not None:
            found_in |= _indices(clause.target, clause.iter)
            clause = clause.inner_for_in
        return found_in
    if isinstance(loop, cst.For):
        return _indices(loop.target, loop.iter)
    if isinstance(loop, cst.While):
        found: set[str] = set()

        class Added(cst.CSTVisitor):
            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
                    found.add(node.target.value)

            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return False

        loop.body.visit(Added())
        return found
    return set()


def _bound_once(body: cst.IndentedBlock) -> dict[str, cst.BaseExpression]:
    """The names a function body's own statements bind exactly once, by ``name = value``, with their values."""
    values: dict[str, cst.BaseExpression] = {}
    counts: dict[str, int] = {}

    class Bindings(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    counts[target.target.value] = counts.get(target.target.value, 0) + 1
                    values[target.target.value] = node.value

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name):
                counts[node.target.value] = counts.get(node.target.value, 0) + 2

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    body.visit(Bindings())
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _indices(target: cst.BaseAssignTargetExpression, iterated: cst.BaseExpression) -> set[str]:
    """The name a ``for`` clause counts with: its target over ``range(...)``, or ``enumerate``'s index."""
    if not isinstance(iterated, cst.Call):
        return set()
    spelled = get_full_name_for_node(iterated.func)
    if spelled == "range" and isinstance(target, cst.Name):
        return {target.value}
    if spelled == "enumerate" and isinstance(target, cst.Tuple) and target.elements \
            and isinstance(target.elements[0].value, cst.Name):
        return {target.elements[0].value.value}
    return set()
