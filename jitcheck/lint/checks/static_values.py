"""Static values (JC201-JC204): what is hashed into a cache key must hash by value.

A static argument or a node setting is hashed and compared with ``==``: an array
(JC201) or a list, set or dict (JC202) cannot be hashed, a non-frozen dataclass
(JC203) or a class with ``__eq__`` but no ``__hash__`` (JC204) is unhashable too.
:meth:`StaticValues.static_kind` tells the fixes whether a value is plainly static.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import GlobalScope, ImportAssignment

from jitcheck import rules
from jitcheck.lint import names
from jitcheck.lint.checks.base import Checker, FixPlan, Problem, snippet
from jitcheck.lint.collect import ClassInfo


class StaticValues(Checker):
    """Judges an expression as a static value, hashed into a cache key."""

    def static_kind(self, expr: cst.BaseExpression) -> bool | None:
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
            return True
        if isinstance(expr, cst.Name):
            if expr.value in ("None", "True", "False"):
                return True
            ref = self.single_referent(expr)
            if isinstance(getattr(ref, "node", None), (cst.FunctionDef, cst.ClassDef)) and isinstance(getattr(ref, "scope", None), GlobalScope):
                return True
            if isinstance(ref, ImportAssignment):
                return True
            return None
        if isinstance(expr, cst.Attribute):
            base = expr.value
            while isinstance(base, cst.Attribute):
                base = base.value
            if isinstance(base, cst.Name) and isinstance(self.single_referent(base), ImportAssignment):
                return True
            return None
        if isinstance(expr, cst.Tuple):
            kinds = [self.static_kind(e.value) for e in expr.elements]
            return False if False in kinds else (True if all(kinds) else None)
        if isinstance(expr, cst.UnaryOperation):
            return self.static_kind(expr.expression)
        if isinstance(expr, cst.Call) and self.array_call(expr):
            return False
        return None

    def array_call(self, call: cst.Call) -> bool:
        for name in self.qnames(call.func):
            if name in names.ARRAY_FACTORIES:
                return True
            if name.startswith(names.ARRAY_MODULES) and name not in names.NOT_ARRAY_IN_RANDOM and name.count(".") == 2:
                return True
        return False

    def value_problem(self, expr: cst.BaseExpression, position: str, depth: int = 0) -> Problem | None:
        """The rule ``expr`` breaks as a static value (hashed into a cache key), or None."""
        subject = snippet(self.module, expr)
        if isinstance(expr, (cst.List, cst.ListComp)):
            plan = FixPlan("tuple", expr, "unsafe") if isinstance(expr, cst.List) else None
            return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": "list", "subject": f"`{subject}`", "position": position}, plan)
        if isinstance(expr, (cst.Set, cst.SetComp)):
            plan = FixPlan("frozenset", expr, "unsafe") if isinstance(expr, cst.Set) else None
            return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": "set", "subject": f"`{subject}`", "position": position}, plan)
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": "dict", "subject": f"`{subject}`", "position": position})
        if isinstance(expr, cst.Tuple):
            for element in expr.elements:
                found = self.value_problem(element.value, position, depth + 1)
                if found is not None:
                    return found
            return None
        if isinstance(expr, cst.Call):
            for name in self.qnames(expr.func):
                if name in names.CONTAINER_BUILTINS:
                    kind = names.CONTAINER_BUILTINS[name]
                    return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": kind, "subject": f"`{subject}`", "position": position})
            if self.array_call(expr):
                return Problem(rules.ARRAY_STATIC, {"subject": f"`{subject}`", "position": position})
            info = self.local_class(expr.func)
            if info is not None:
                return self.class_problem(info, subject, position)
            ref = self.class_ref(expr.func)
            if isinstance(ref, str):
                return self.indexed_class_problem(ref, subject, position)
            return None
        if isinstance(expr, cst.Name) and depth < 2:
            bound = self.value_of(expr)
            if bound is not None:
                value, _, _ = bound
                found = self.value_problem(value, position, depth + 1)
                if found is not None:
                    return Problem(found.rule, {**found.fields, "subject": f"`{expr.value}`"})
            return self.loop_value_problem(expr, position, depth)
        return None

    def loop_value_problem(self, expr: cst.Name, position: str, depth: int) -> Problem | None:
        """A loop variable over a literal (``for cfg in ([1, 2], [3]):``) as a static value: unhashable when every
        item is (each iteration fails); a hashable item per iteration is a different key, a different program."""
        loops = [ref.node for ref in self.referents(expr) if getattr(ref, "node", None) in self.c.loop_iters]  # type: ignore[attr-defined]
        if len(loops) > 1:  # the name is the variable of several loops: the one whose body reads it here
            loops = [target for target in loops if _contains(self.c.loop_bodies[target], expr)]
        iterable = self.c.loop_iters.get(loops[0]) if len(loops) == 1 else None
        if not isinstance(iterable, (cst.Tuple, cst.List)) or not iterable.elements:
            return None
        found = [self.value_problem(e.value, position, depth + 1) if not isinstance(e, cst.StarredElement) else None
                 for e in iterable.elements]
        first = found[0]
        if first is None or any(f is None or f.rule is not first.rule for f in found):
            return None
        return Problem(first.rule, {**first.fields, "subject": f"`{expr.value}`"})

    def indexed_class_problem(self, qualified: str, subject: str, position: str) -> Problem | None:
        """A class of another module (from the index) as a static value: a mutable dataclass, or ``__eq__`` without ``__hash__``."""
        found = self.index.cls(qualified)
        if found is None:
            return None
        _, facts = found
        methods = facts["methods"]
        name = qualified.rsplit(".", 1)[-1]
        options = facts.get("dataclass")
        if options is not None:
            if options["frozen"] or not options["eq"] or options["unsafe_hash"] or "__hash__" in methods or not options["literal"]:
                return None
            return Problem(rules.MUTABLE_DATACLASS, {"subject": subject, "type": name, "position": position})
        if "__eq__" in methods and "__hash__" not in methods and "__hash__" not in facts["stored"]:
            return Problem(rules.EQ_WITHOUT_HASH, {"subject": subject, "type": name, "position": position})
        return None

    def identity_problem(self, expr: cst.BaseExpression, position: str) -> Problem | None:
        """``expr`` builds an instance of a plain class (no decorator, no base but ``object``, no ``__eq__`` or
        ``__hash__``): hashed by its address, so each one built is a new cache key as a static value (JC206)."""
        if not isinstance(expr, cst.Call):
            return None
        info = self.local_class(expr.func)
        ref = self.class_ref(expr.func) if info is None else None
        indexed = self.index.cls(ref) if isinstance(ref, str) else None
        if info is not None:
            plain = not info.node.decorators and all(
                (cst.helpers.get_full_name_for_node(b.value) or "") in ("object", "builtins.object") for b in info.node.bases) \
                and not {"__eq__", "__hash__"} & set(info.defines) and not {"__eq__", "__hash__"} & set(info.methods)
            name = info.node.name.value
        elif isinstance(ref, str) and indexed is not None:
            _, facts = indexed
            plain = not facts.get("decorated") and facts.get("dataclass") is None and facts["bases"] in ([], ["object"]) \
                and not {"__eq__", "__hash__"} & (set(facts["methods"]) | set(facts["stored"]))
            name = ref.rsplit(".", 1)[-1]
        else:
            return None
        if not plain:
            return None
        return Problem(rules.IDENTITY_VALUE, {"subject": f"`{snippet(self.module, expr)}`", "type": name, "position": position})

    def class_problem(self, info: ClassInfo, subject: str, position: str) -> Problem | None:
        name = info.node.name.value
        for decorator in info.node.decorators:
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            if self.is_kind(call.func if call else expr, names.DATACLASS_DECORATORS):
                options = {a.keyword.value: a.value for a in (call.args if call else ()) if a.keyword is not None}
                if _is_true(options.get("frozen")) or _is_false(options.get("eq")) or _is_true(options.get("unsafe_hash")):
                    return None
                if "__hash__" in info.defines:
                    return None
                if any(not _is_literal(v) for v in options.values()):
                    return None
                plan = FixPlan("frozen-dataclass", decorator, "unsafe") if self.can_freeze(info) else None
                return Problem(rules.MUTABLE_DATACLASS, {"subject": subject, "type": name, "position": position}, plan)
        if "__eq__" in info.defines and "__hash__" not in info.defines:
            return Problem(rules.EQ_WITHOUT_HASH, {"subject": subject, "type": name, "position": position})
        return None

    def can_freeze(self, info: ClassInfo) -> bool:
        """Freezing this dataclass keeps its program running: no method assigns to ``self``, every base is a
        class of this module, and no dataclass base or subclass is left non-frozen (dataclasses refuses to mix them)."""
        if info.instance_values:
            return False  # `self.x = ...` in __post_init__ or a method raises FrozenInstanceError once frozen
        name = info.node.name.value
        bases = {b.value.value for b in info.node.bases if isinstance(b.value, cst.Name)}
        known = {other.node.name.value for other in self.c.classes.values()}
        if len(bases) != len(info.node.bases) or not bases <= known | {"object"}:
            return False  # a base from another module may be a mutable dataclass: unknown, so no fix
        for other in self.c.classes.values():
            if other is info:
                continue
            is_base = other.node.name.value in bases
            is_subclass = any(isinstance(b.value, cst.Name) and b.value.value == name for b in other.node.bases)
            if (is_base or is_subclass) and self.is_dataclass(other) is False:
                return False  # a non-frozen dataclass base or subclass: dataclasses refuses to mix them
        return True

    def is_dataclass(self, info: ClassInfo) -> bool | None:
        """True for a frozen dataclass, False for a non-frozen one, None for a class that is not a dataclass."""
        for decorator in info.node.decorators:
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            if self.is_kind(call.func if call else expr, names.DATACLASS_DECORATORS):
                options = {a.keyword.value: a.value for a in (call.args if call else ()) if a.keyword is not None}
                return _is_true(options.get("frozen"))
        return None


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    class _Find(cst.CSTVisitor):
        found = False

        def on_visit(self, visited: cst.CSTNode) -> bool:
            if visited is node:
                self.found = True
            return not self.found

    finder = _Find()
    tree.visit(finder)
    return finder.found


def _is_true(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _is_false(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def _is_literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("True", "False", "None")
