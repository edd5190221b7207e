"""The semantic model of the static pass: what an expression *is*, apart from the rules that judge it.

:class:`Resolver` answers with libcst's scope analysis for names read in the file,
the :class:`~jitcheck.lint.collect.Collector`'s records for what the file assigns and
defines, and the :class:`~jitcheck.lint.index.ProjectIndex` for what other modules
(and installed packages, read without importing them) define: a module, a class, a
method (bound when read from an instance), a stable function or stored value, a
fresh object built right there, or unknown. The rule families (:mod:`jitcheck.lint.checks`)
ask; they never walk scopes themselves.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, Union

import libcst as cst
from libcst.metadata import ClassScope, GlobalScope, ImportAssignment, Scope

from jitcheck.lint import names
from jitcheck.lint.collect import CallSite, ClassInfo, Collector, Context
from jitcheck.lint.index import Forwarded, ProjectIndex

_RECORD_MAKERS = frozenset({"collections.namedtuple", "typing.NamedTuple", "typing_extensions.NamedTuple"})

ClassRef = Union[ClassInfo, str]
"""A class: defined in this file (its :class:`ClassInfo`), or by qualified name in the index."""

Member = Literal["method", "stable", "unknown"]
"""What ``receiver.attr`` is: a bound method (new each read), a stable object, or unknown."""

Receiver = tuple[Literal["instances", "stable", "unknown"], list[ClassRef]]


class Resolver:
    """Name resolution for one module: libcst scopes, the file's own records, the project index."""

    def __init__(self, module: cst.Module, collector: Collector, scopes: Mapping[cst.CSTNode, Scope | None],
                 jit_wrappers: Sequence[str], index: ProjectIndex | None = None, module_name: str = "") -> None:
        self.module = module
        self.c = collector
        self.scopes = scopes
        self.jit_wrappers = dict(names.JIT_WRAPPERS)
        for name in jit_wrappers:
            self.jit_wrappers[name] = names.Wrapper(name)
        self.index = index if index is not None else ProjectIndex()
        for alias, target in self.index.hints().jit_aliases:
            self.jit_wrappers[alias] = names.JIT_WRAPPERS[target]  # `jit = jax.jit` in a module of the run
        self.module_name = module_name
        self.uses_chex = any(q.startswith("chex") for q in self.c.imported)

    # -- name resolution ----------------------------------------------------------

    def qnames(self, node: cst.CSTNode) -> set[str]:
        """The qualified names ``node`` resolves to (``{"jax.jit"}``), via the module's imports."""
        scope = self.scopes.get(node)
        if scope is None:
            return set()
        try:
            found = {q.name for q in scope.get_qualified_names_for(node)}
        except Exception:  # libcst can fail on exotic nodes; an unresolved name is never a finding
            return set()
        if not found and isinstance(node, (cst.Name, cst.Attribute)):
            return self.star_names(node)
        return found

    def star_names(self, node: cst.Name | cst.Attribute) -> set[str]:
        """What a name that nothing in the file binds stands for when the module takes names by
        ``from m import *`` from modules of the run (libcst's scopes cannot see into ``m``; the index can)."""
        summary = self.index.modules.get(self.module_name)
        if summary is None or not summary.get("stars"):
            return set()
        spelled = cst.helpers.get_full_name_for_node(node)
        if not spelled:
            return set()
        head: cst.BaseExpression = node
        while isinstance(head, cst.Attribute):
            head = head.value
        if not isinstance(head, cst.Name) or self.referents(head):
            return set()  # bound in this file: libcst's answer (none) stands
        resolved = self.index.resolve_in(self.module_name, spelled)
        return {resolved} if resolved != spelled else set()

    def referents(self, node: cst.Name) -> list[object]:
        """The assignments a name read refers to (libcst `Assignment` objects), in the order they are made: libcst
        holds them in a set, whose order changes from run to run, and a walk over them that stops early must find
        the same things every time."""
        scope = self.scopes.get(node)
        if scope is None:
            return []
        try:
            accesses = scope.accesses[node]
        except Exception:
            return []
        found: dict[int, object] = {}
        for access in accesses:
            if access.node is node:
                for ref in access.referents:
                    found.setdefault(id(ref), ref)
        return sorted(found.values(), key=_made_at)

    def assignments_of(self, target: cst.Name | cst.FunctionDef) -> list[object]:
        """The libcst assignments made by this very node (a target name or a def)."""
        name_node = target.name if isinstance(target, cst.FunctionDef) else target
        scope = self.scopes.get(name_node)
        if scope is None:
            return []
        try:
            assignments = scope.assignments[name_node]
        except Exception:
            return []
        return [a for a in assignments if getattr(a, "node", None) is target]

    def calls_of(self, target: cst.Name | cst.FunctionDef) -> list[CallSite]:
        """The calls, in this file, of what ``target`` binds (read through its name)."""
        calls = []
        for assignment in self.assignments_of(target):
            for access in getattr(assignment, "references", ()):
                site = self.c.call_of_func.get(access.node)
                if site is not None:
                    calls.append(site)
        return self.in_source_order(calls)

    def uses_of(self, target: cst.Name | cst.FunctionDef) -> list[CallSite]:
        """The calls of what ``target`` binds, and the calls it is handed to as an argument (which call it)."""
        uses = []
        for assignment in self.assignments_of(target):
            for access in getattr(assignment, "references", ()):
                site = self.c.call_of_func.get(access.node) or self.c.passed.get(access.node)
                if site is not None:
                    uses.append(site)
        return self.in_source_order(uses)

    def in_source_order(self, sites: list[CallSite]) -> list[CallSite]:
        """``sites`` in the order their calls start in the file (libcst's references are a set, in no fixed order)."""
        return sorted(sites, key=lambda site: self.c.call_order.get(site.node, -1))

    def single_referent(self, node: cst.Name) -> object | None:
        found = self.referents(node)
        return found[0] if len(found) == 1 else None

    def wrapper_for(self, func: cst.BaseExpression) -> names.Wrapper | None:
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self" \
                and func.attr.value in names.METHOD_WRAPPERS and self.uses_chex:
            return names.METHOD_WRAPPERS[func.attr.value]  # chex's ``self.variant(f)`` in a variants test
        spelled = self.qnames(func)
        for name in spelled:
            if name in self.jit_wrappers:
                return self.jit_wrappers[name]
        for name in self.alias_names(func, spelled):
            if name in self.jit_wrappers:
                return self.jit_wrappers[name]  # `ops.jit` where the run's `ops` module says `jit = jax.jit`
        return None

    def jit_decorator(self, expr: cst.BaseExpression) -> tuple[names.Wrapper, Sequence[cst.Arg]] | None:
        """The jit wrapper the decorator ``expr`` applies, with the arguments that set its options: none for
        ``@jax.jit``, the call's for ``@jax.jit(static_argnums=...)``, those after the wrapper for
        ``@partial(jax.jit, static_argnums=...)``; None when it applies no jit wrapper."""
        if not isinstance(expr, cst.Call):
            wrapper = self.wrapper_for(expr)
            return (wrapper, ()) if wrapper is not None else None
        wrapper = self.wrapper_for(expr.func)
        if wrapper is not None:
            return wrapper, expr.args
        if self.is_kind(expr.func, names.FUNCTOOLS_PARTIALS) and expr.args:
            wrapper = self.wrapper_for(expr.args[0].value)
            if wrapper is not None:
                return wrapper, expr.args[1:]
        return None

    def alias_names(self, expr: cst.BaseExpression, spelled: set[str], depth: int = 0) -> set[str]:
        """What ``expr`` (``ops.jit``) names through other names for modules and functions: a local alias
        (``ops = backend.ops``, bound once in this file) and the run's modules (:meth:`ProjectIndex.canonical`)."""
        found = {self.index.canonical(self.absolute(name)) for name in spelled if "." in name}
        if isinstance(expr, cst.Attribute) and depth < 4:
            head: cst.BaseExpression = expr
            tail: list[str] = []
            while isinstance(head, cst.Attribute):
                tail.append(head.attr.value)
                head = head.value
            if isinstance(head, cst.Name):
                bound = self.value_of(head)
                if bound is not None and isinstance(bound[0], (cst.Name, cst.Attribute)):
                    suffix = ".".join(reversed(tail))
                    for name in self.alias_names(bound[0], self.qnames(bound[0]), depth + 1) | self.qnames(bound[0]):
                        found.add(self.index.canonical(self.absolute(f"{name}.{suffix}")))
        return found - spelled

    def is_kind(self, func: cst.BaseExpression, qualified: frozenset[str]) -> bool:
        return bool(self.qnames(func) & qualified)

    def local_class(self, func: cst.BaseExpression) -> ClassInfo | None:
        """The class defined in this file that ``func`` (a call's callee) names, if any."""
        if not isinstance(func, cst.Name):
            return None
        ref = self.single_referent(func)
        node = getattr(ref, "node", None)
        if isinstance(node, cst.ClassDef):
            return self.c.classes.get(node)
        return None

    def value_of(self, name: cst.Name) -> tuple[cst.BaseExpression, Context, Scope] | None:
        """The value bound to a name by its one assignment in this file, with where it ran."""
        ref = self.single_referent(name)
        target = getattr(ref, "node", None)
        if target is None or target not in self.c.assigned:
            return None
        value, context = self.c.assigned[target]
        return value, context, ref.scope  # type: ignore[attr-defined]

    def receiver_rebuilt(self, expr: cst.Attribute, context: Context) -> bool:
        """True when the receiver of ``expr`` is bound anew as often as ``context`` runs.

        A bound method equals another of the same receiver object; a wrapper that
        compares callables by value finds it again unless the receiver is rebuilt
        too (``Model().apply``, or a model built in the same function and loop).
        """
        receiver = expr.value
        if not isinstance(receiver, cst.Name):
            return True
        if context.method_of is not None and receiver.value == context.self_name:
            return False
        target = getattr(self.single_referent(receiver), "node", None)
        if target is None or target not in self.c.assigned:
            return False
        _, bound_in = self.c.assigned[target]
        return bound_in.function is context.function and (bound_in.in_loop or not context.in_loop)

    def module_receiver(self, expr: cst.Attribute, context: Context) -> bool:
        """True when the receiver of ``expr`` (``model.setup``) is known to be an instance of an ``equinox.Module``
        subclass: the method read on it is a Module too, compared by its fields, so a wrapper that compares by
        value finds it again however often the instance is rebuilt (jax 0.10.2, equinox 0.13.8: three instances
        with equal fields, ``eqx.filter_jit(m.f)`` traces once; three plain objects, three times)."""
        tag, classes = self.receiver(expr.value, context)
        return tag == "instances" and bool(classes) and all(self.equinox_module(ref) for ref in classes)

    def equinox_module(self, ref: ClassRef, depth: int = 0) -> bool:
        """True when the class ``ref`` (of this file or the index) derives from ``equinox.Module``, through its bases."""
        if depth > 12:
            return False
        if isinstance(ref, str):
            found = self.index.cls(ref)
            if found is None:
                return False
            module, facts = found
            for base in facts["bases"]:
                qualified = self.index.resolve_in(module, base)
                if qualified in names.EQUINOX_MODULES or self.equinox_module(qualified, depth + 1):
                    return True
            return False
        for base in ref.node.bases:
            if self.qnames(base.value) & names.EQUINOX_MODULES:
                return True
            based = self.class_ref(base.value)
            if based is not None and based is not ref and self.equinox_module(based, depth + 1):
                return True
        return False

    def class_method_kind(self, info: ClassInfo | None, attr: str, seen: set[int]) -> str | None:
        """``"method"`` when instances of the class get ``attr`` as a bound method; ``"static"``,
        ``"class"``, ``"property"`` or ``"stored"`` for what is not; None when unknown (bases included)."""
        if info is None or id(info.node) in seen:
            return None
        seen.add(id(info.node))
        if attr in info.instance_values:
            # An instance attribute is not bound, whatever it holds, unless it is a method of a part the instance builds.
            return "method" if self.part_method(info, attr) else "stored"
        method = info.methods.get(attr)
        if method is not None:
            for decorator in method.decorators:
                qualified = self.qnames(decorator.decorator) or {cst.helpers.get_full_name_for_node(decorator.decorator) or ""}
                if qualified & {"builtins.staticmethod", "staticmethod"}:
                    return "static"
                if qualified & {"builtins.classmethod", "classmethod"}:
                    return "class"
                if qualified & {"builtins.property", "property", "functools.cached_property"}:
                    return "property"
                if any(q.endswith(".setter") or q.endswith(".getter") for q in qualified):
                    return "property"
            return "method"
        value = info.class_values.get(attr)
        if value is not None:
            if isinstance(value, cst.Lambda):
                return "method"
            if isinstance(value, cst.Name):
                ref = self.single_referent(value)
                if isinstance(getattr(ref, "node", None), cst.FunctionDef):
                    return "method"
            return "stored"
        if attr in info.defines:
            return "stored"  # annotated at class level (a dataclass field, a NamedTuple field)
        for base in info.node.bases:
            ref = self.class_ref(base.value)
            if isinstance(ref, str):
                kind = self.index.member(ref, attr)
            else:
                kind = self.class_method_kind(ref, attr, seen)
            if kind is not None:
                return kind
        return None

    def part_method(self, info: ClassInfo, attr: str) -> bool:
        """True when every value the methods give ``self.attr`` is ``self.part.name``, ``part`` holding an object
        of a class the instance builds (``self.part = Part(...)``) and ``name`` that class's method: a bound
        method of a part made per instance, so a new callable per instance (``self.inverse = self._inner.inverse``)."""
        selves = {m.params.params[0].name.value for m in info.methods.values() if m.params.params}
        parts = set()
        for value in info.instance_values[attr]:
            if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Attribute)
                    and isinstance(value.value.value, cst.Name) and value.value.value.value in selves):
                return False
            parts.add((value.value.attr.value, value.attr.value))
        if len(parts) != 1:
            return False
        part, name = parts.pop()
        built = [self.class_ref(value.func) for value in info.instance_values.get(part, ()) if isinstance(value, cst.Call)]
        return bool(built) and all(ref is not None and self.member(ref, name) == "method" for ref in built)

    # -- classes and members, across files ------------------------------------------------

    def absolute(self, qualified: str) -> str:
        """A qualified name with a relative import's dots resolved against this module."""
        if not qualified.startswith("."):
            return qualified
        summary = self.index.modules.get(self.module_name)
        return self.index.absolute(qualified, self.module_name, is_package=bool(summary and summary.get("package")))

    def class_ref(self, expr: cst.BaseExpression) -> ClassRef | None:
        """The class ``expr`` names (a callee or an annotation), in this file or in the index."""
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, (cst.Name, cst.Attribute)):
            spelled = cst.helpers.get_full_name_for_node(expr.value) or ""
            if spelled.rsplit(".", 1)[-1] == "Optional" and len(expr.slice) == 1:
                inner = expr.slice[0].slice
                return self.class_ref(inner.value) if isinstance(inner, cst.Index) else None
            return None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            sides = [s for s in (expr.left, expr.right) if not (isinstance(s, cst.Name) and s.value == "None")]
            return self.class_ref(sides[0]) if len(sides) == 1 else None
        if isinstance(expr, cst.SimpleString):
            text = expr.evaluated_value
            if isinstance(text, str) and text.replace(".", "").replace("_", "").isalnum():
                local = self.c.class_names.get(text)
                if local is not None:
                    return self.c.classes.get(local)
                qualified = self.index.resolve_in(self.module_name, text)
                return qualified if self.index.cls(qualified) is not None else None
            return None
        info = self.local_class(expr)
        if info is not None:
            return info
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return None
        for name in self.qnames(expr):
            qualified = self.absolute(name)
            if "." not in qualified:
                qualified = f"{self.module_name}.{qualified}"
            if self.index.cls(qualified) is not None:
                return qualified
        return None

    def returned_class(self, func: cst.BaseExpression) -> ClassRef | None:
        """The class a call of ``func`` returns, by the function's return annotation (``def make() -> Env``):
        a function of this file, or one the index knows (``base.GradientTransformation``, a NamedTuple)."""
        if isinstance(func, cst.Name):
            node = getattr(self.single_referent(func), "node", None)
            if isinstance(node, cst.FunctionDef):
                return self.class_ref(node.returns.annotation) if node.returns is not None else self.made_class(node)
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        for name in self.qnames(func):
            qualified = self.absolute(name)
            if "." in qualified:
                found = self.index.returned_class(qualified)
                if found is not None:
                    return found
        return None

    def returned_item_class(self, func: cst.BaseExpression, item: int) -> ClassRef | None:
        """The class a call of ``func`` returns at position ``item`` of its tuple (``fns, energy = make(...)``), by
        the function's ``-> Tuple[Fns, Callable]`` or the class every return builds there: a function of this file,
        or one the index knows (its ``types_items``)."""
        if isinstance(func, cst.Name):
            node = getattr(self.single_referent(func), "node", None)
            if isinstance(node, cst.FunctionDef):
                return self.tuple_item_class(node, item)
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        for name in self.qnames(func):
            qualified = self.absolute(name)
            if "." in qualified:
                found = self.index.returned_item_class(qualified, item)
                if found is not None:
                    return found
        return None

    def tuple_item_class(self, function: cst.FunctionDef, item: int) -> ClassRef | None:
        """The class this file's ``function`` returns at position ``item`` of its tuple (see returned_item_class)."""
        if function.returns is not None:
            annotation = function.returns.annotation
            if not (isinstance(annotation, cst.Subscript) and isinstance(annotation.value, (cst.Name, cst.Attribute))
                    and (cst.helpers.get_full_name_for_node(annotation.value) or "").rsplit(".", 1)[-1]
                    in ("Tuple", "tuple") and item < len(annotation.slice)):
                return None
            if any(isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis) for e in annotation.slice):
                return None  # `tuple[Env, ...]`: any length, not positions
            element = annotation.slice[item].slice
            return self.class_ref(element.value) if isinstance(element, cst.Index) else None
        values = returned_values(function)
        if not values or not all(isinstance(v, cst.Tuple) and len(v.elements) > item for v in values):
            return None
        items = [v.elements[item].value if isinstance(v, cst.Tuple) else None for v in values]
        return _one_class([self.class_ref(i.func) if isinstance(i, cst.Call) else None for i in items])

    def made_class(self, function: cst.FunctionDef, own: ClassRef | None = None) -> ClassRef | None:
        """The class every ``return`` of an unannotated ``function`` builds (``return Model(...)``; a helper that
        makes one kind of object), or None: another value, several classes, or no return. For a method of the
        class ``own``, ``return cls(...)`` (its first parameter) builds ``own``."""
        values = returned_values(function)
        first = function.params.params[0].name.value if own is not None and function.params.params else None
        return _one_class([(own if first is not None and isinstance(v.func, cst.Name) and v.func.value == first
                             else self.class_ref(v.func)) if isinstance(v, cst.Call) else None for v in values])

    def makes_record(self, func: cst.BaseExpression) -> bool:
        """True when ``func`` names a class made by ``collections.namedtuple(...)`` or ``typing.NamedTuple(...)``
        (the functional forms, bound to a name in this file or in a module of the run): fields only, no methods."""
        if isinstance(func, cst.Name):
            bound = self.value_of(func)
            if bound is not None:
                value = bound[0]
                return isinstance(value, cst.Call) and bool(self.qnames(value.func) & _RECORD_MAKERS)
        for name in self.qnames(func):
            qualified = self.absolute(name)
            if "." in qualified and self.index.is_record(qualified):
                return True
        return False

    def passed_through(self, call: cst.Call) -> cst.BaseExpression | None:
        """The argument a call returns the kind of, by the callee's annotations in the index
        (``def without_apply_rng(f: T) -> T`` returns what it is handed as ``f``)."""
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if positional and self.qnames(call.func) & names.COPIES:
            return positional[0]  # `copy.deepcopy(m)`, `dataclasses.replace(m, s=2.0)`: an object of m's class
        for name in self.qnames(call.func):
            qualified = self.absolute(name)
            position = self.index.same_as_argument(qualified) if "." in qualified else None
            if position is not None:
                return positional[position] if position < len(positional) else None
        return None

    def member(self, ref: ClassRef, attr: str) -> str | None:
        """``"method"`` when instances of ``ref`` get ``attr`` as a bound method; another kind, or None when unknown."""
        if isinstance(ref, str):
            return self.index.member(ref, attr)
        return self.class_method_kind(ref, attr, set())

    def attribute_class(self, ref: ClassRef, attr: str) -> ClassRef | None:
        """The class of what instances of ``ref`` hold in ``attr`` (``self.env = Env(...)``)."""
        if isinstance(ref, str):
            held = self.index.attribute_type(ref, attr)
            return held if held is not None and self.index.cls(held) is not None else None
        for value in ref.instance_values.get(attr, ()):
            if isinstance(value, cst.Call):
                found = self.class_ref(value.func)
                if found is not None:
                    return found
        annotation = ref.annotations.get(attr)
        if annotation is not None:
            return self.class_ref(annotation)
        for base in ref.node.bases:
            base_ref = self.class_ref(base.value)
            if base_ref is not None and base_ref is not ref:
                found = self.attribute_class(base_ref, attr)
                if found is not None:
                    return found
        return None

    def receiver(self, expr: cst.BaseExpression, context: Context, depth: int = 0) -> Receiver:
        """What ``expr`` evaluates to, as a receiver: instances of known classes, a stable object, or unknown."""
        if depth > 6:
            return "unknown", []
        if isinstance(expr, cst.Name):
            if context.method_of is not None and expr.value == context.self_name:
                info = self.c.classes.get(context.method_of)
                return ("instances", [info]) if info is not None else ("unknown", [])
            referents = self.referents(expr)
            reaching = self.c.reaching.get(expr)
            if reaching is not None and len(referents) > 1:
                # the binding just above it in the same block is the only one this read can see
                referents = [r for r in referents if getattr(r, "node", None) is reaching] or referents
            if len(referents) > 1:
                return self.union_receiver(referents, context, depth)
            if not referents:
                return "unknown", []
            ref = referents[0]
            if isinstance(ref, ImportAssignment):
                return "stable", []  # a module, a class or a function imported by name
            node = getattr(ref, "node", None)
            if isinstance(node, (cst.ClassDef, cst.FunctionDef)):
                return "stable", []
            if isinstance(node, cst.Param):
                if node.annotation is not None:
                    found = self.class_ref(node.annotation.annotation)
                    if found is not None:
                        return "instances", [found]
                    return "unknown", []
                guarded = self.isinstance_guard(node, context)
                if guarded is not None:
                    return "instances", [guarded]
                found_rows = self.row_receiver(node, context, depth)
                return found_rows if found_rows[0] != "unknown" else self.argument_receiver(node, context, depth)
            if node is not None and node in self.c.annotations:
                found = self.class_ref(self.c.annotations[node])
                if found is not None:
                    return "instances", [found]
            if node is not None and (node in self.c.assigned or node in self.c.unpacked):
                return self.binding_receiver(node, context, depth)
            if node is not None and node in self.c.loop_iters:
                iterable = self.c.loop_iters[node]
                if isinstance(iterable, (cst.Tuple, cst.List)) and iterable.elements:
                    classes: list[ClassRef] = []
                    for element in iterable.elements:
                        tag, found_classes = self.value_receiver(element.value, context, depth)
                        if tag != "instances":
                            return "unknown", []
                        classes += found_classes
                    return "instances", classes
            return "unknown", []
        if isinstance(expr, cst.Attribute):
            tag, classes = self.receiver(expr.value, context, depth + 1)
            if tag == "instances":
                held = [self.attribute_class(ref, expr.attr.value) for ref in classes]
                if held and all(h is not None for h in held):
                    return "instances", [h for h in held if h is not None]
                if all(self.member(ref, expr.attr.value) not in (None, "stored") for ref in classes):
                    return "stable", []  # a method or property read: not a receiver we follow further
            return "unknown", []
        return self.value_receiver(expr, context, depth)

    def isinstance_guard(self, param: cst.Param, context: Context) -> ClassRef | None:
        """The class a function's own top-level statements make its unannotated parameter an instance of before
        anything else runs: ``if not isinstance(p, C): raise ...`` or ``assert isinstance(p, C)`` (one class
        named, of this file or the index), as a type checker narrows it; None otherwise."""
        function = self.param_owner(param, context)
        if function is None or not isinstance(function.body, cst.IndentedBlock):
            return None
        name = param.name.value
        for statement in function.body.body:
            test: cst.BaseExpression | None = None
            if isinstance(statement, cst.If) and statement.orelse is None and isinstance(statement.test, cst.UnaryOperation) \
                    and isinstance(statement.test.operator, cst.Not) and _raises(statement.body):
                test = statement.test.expression
            elif isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
                    and isinstance(statement.body[0], cst.Assert):
                test = statement.body[0].test
            if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance" \
                    and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name) and test.args[0].value.value == name:
                return self.class_ref(test.args[1].value)
        return None

    def method_owner(self, function: cst.FunctionDef) -> ClassInfo | None:
        """The class of this file whose method ``function`` is (its body defines it), or None for a function."""
        return next((info for info in self.c.classes.values() if info.methods.get(function.name.value) is function), None)

    def param_owner(self, param: cst.Param, context: Context) -> cst.FunctionDef | None:
        """The ``def`` whose parameter ``param`` is, from a ``context`` inside it (a lambda's is none)."""
        function: object = context.function
        while isinstance(function, (cst.FunctionDef, cst.Lambda)) and not has_param(function, param):
            outer = self.c.defs.get(function)
            function = outer.function if outer is not None else None
        return function if isinstance(function, cst.FunctionDef) else None

    def registered_handlers(self) -> list[tuple[cst.BaseExpression, Sequence[cst.Arg], cst.Call]]:
        """Each callable this file registers as an event handler: what names it (``key_handler``,
        ``self.on_key``), the arguments a ``partial(key_handler, env)`` binds to it (none otherwise), and the
        registering call."""
        found: list[tuple[cst.BaseExpression, Sequence[cst.Arg], cst.Call]] = []
        for value, call in self.c.handlers:
            if isinstance(value, cst.Call) and self.is_kind(value.func, names.FUNCTOOLS_PARTIALS) and value.args:
                found.append((value.args[0].value, value.args[1:], call))
            else:
                found.append((value, (), call))
        return found

    def row_receiver(self, param: cst.Param, context: Context, depth: int) -> Receiver:
        """What a parameter of a parameterized test holds: the values its decorator's rows give it
        (``@parameterized.parameters((p_pipeline, 1.0), ...)``, ``@pytest.mark.parametrize("env", [...])``),
        when every row's value is known and of one kind (all stable, or all instances)."""
        function = self.param_owner(param, context)
        if function is None:
            return "unknown", []
        params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        if self.method_owner(function) is not None \
                and not any(cst.helpers.get_full_name_for_node(d.decorator) == "staticmethod" for d in function.decorators):
            params = params[1:]  # the rows fill the parameters after the receiver
        values: list[cst.BaseExpression] = []
        for decorator in function.decorators:
            expr = decorator.decorator
            if not isinstance(expr, cst.Call):
                continue
            layout = next((names.PARAMETERIZED_ROWS[q] for q in self.qnames(expr.func) if q in names.PARAMETERIZED_ROWS), None)
            if layout is None:
                continue
            found = _row_values(expr, layout, params, param.name.value)
            if found is None:
                return "unknown", []
            values += found
        if not values:
            return "unknown", []
        if any(self.names_a_class(v) for v in values):
            return "unknown", []  # a class handed in: its classmethods are bound methods
        tags = [self.value_receiver(v, context, depth + 1) for v in values]
        if all(tag == "stable" for tag, _ in tags):
            return "stable", []
        if all(tag == "instances" for tag, _ in tags):
            return "instances", [ref for _, refs in tags for ref in refs]
        return "unknown", []

    def binding_receiver(self, node: cst.CSTNode, context: Context, depth: int) -> Receiver:
        """What a name holds from one binding: the value assigned (``env = Env()``), or the item of a call's tuple it
        is unpacked from (``fns, energy = make(...)``, by :meth:`returned_item_class`)."""
        if node in self.c.assigned:
            return self.value_receiver(self.c.assigned[node][0], context, depth)
        if node in self.c.unpacked:
            call, item, _ = self.c.unpacked[node]
            held = self.returned_item_class(call.func, item)
            return ("instances", [held]) if held is not None else ("unknown", [])
        return "unknown", []

    def union_receiver(self, referents: list[object], context: Context, depth: int) -> Receiver:
        """A name bound in several places (the arms of an ``if``: ``env = Maze(...)`` or ``env = Overcooked(...)``):
        instances of the classes all its assignments build, when each builds one; unknown otherwise."""
        classes: list[ClassRef] = []
        for ref in referents:
            node = getattr(ref, "node", None)
            tag, found = self.binding_receiver(node, context, depth + 1) if node is not None else ("unknown", [])
            if tag != "instances":
                return "unknown", []
            classes += found
        return "instances", classes

    def argument_receiver(self, param: cst.Param, context: Context, depth: int) -> Receiver:
        """What a parameter of a plain function holds: what every call this file shows passes for it, the
        functions it registers as handlers bound by ``partial(f, env)`` included, when all agree (instances of
        known classes, or all stable). A method's parameters, a call with ``*args``, or no call: unknown."""
        function = self.param_owner(param, context)
        if function is None or depth > 5 or self.method_owner(function) is not None:
            return "unknown", []
        positional = [*function.params.posonly_params, *function.params.params]
        position = next((i for i, p in enumerate(positional) if p is param), None)
        passed: list[tuple[cst.BaseExpression, Context]] = []
        calls: list[tuple[Sequence[cst.Arg], Context]] = [(site.node.args, site.context) for site in self.calls_of(function)]
        for target, bound, call in self.registered_handlers():
            if bound and isinstance(target, cst.Name) and getattr(self.single_referent(target), "node", None) is function:
                holder = self.c.call_of_func.get(call.func)  # `partial(f, env)` binds `env` where it is registered
                calls.append((bound, holder.context if holder is not None else context))
        for args, where in calls:
            if any(arg.star for arg in args):
                return "unknown", []
            named = [arg for arg in args if arg.keyword is not None and arg.keyword.value == param.name.value]
            plain = [arg for arg in args if arg.keyword is None]
            if named:
                passed.append((named[0].value, where))
            elif position is not None and position < len(plain):
                passed.append((plain[position].value, where))
            else:
                return "unknown", []  # its default, or a keyword this file cannot match
        if not passed:
            return "unknown", []
        tags = [self.value_receiver(value, where, depth + 1) for value, where in passed]
        if all(tag == "stable" for tag, _ in tags):
            return "stable", []
        if all(tag == "instances" for tag, _ in tags):
            return "instances", [ref for _, refs in tags for ref in refs]
        return "unknown", []

    def value_receiver(self, value: cst.BaseExpression, context: Context, depth: int) -> Receiver:
        if isinstance(value, cst.Call):
            found = self.class_ref(value.func) or self.returned_class(value.func)
            if found is not None:
                return "instances", [found]
            passed = self.passed_through(value)
            if passed is not None and depth < 6:
                return self.value_receiver(passed, context, depth + 1)
            if self.makes_record(value.func):
                return "stable", []  # a namedtuple's instance: every attribute is a stored field
            made = self.method_made(value.func, context, depth) if depth < 6 else None
            return ("instances", [made]) if made is not None else ("unknown", [])
        if isinstance(value, (cst.Name, cst.Attribute)):
            return self.receiver(value, context, depth + 1)
        if isinstance(value, cst.IfExp) and depth < 6:
            # `Model() if c else Model(3.0)`: what either branch builds
            tags = [self.value_receiver(branch, context, depth + 1) for branch in (value.body, value.orelse)]
            if all(tag == "instances" for tag, _ in tags):
                return "instances", [ref for _, refs in tags for ref in refs]
        return "unknown", []

    def method_made(self, func: cst.BaseExpression, context: Context, depth: int) -> ClassRef | None:
        """The class a call of the method ``func`` builds, for a class of this file: a classmethod or staticmethod
        read from the class (``Model.create(...)`` returning ``cls(...)`` or ``Model(...)``), or a method of an
        object whose class is known (``base.clone()`` returning ``Model(...)``)."""
        if not isinstance(func, cst.Attribute):
            return None
        name = func.attr.value
        owners: list[ClassRef] = []
        from_class = self.names_a_class(func.value)
        if from_class:
            ref = self.class_ref(func.value)
            owners = [ref] if ref is not None else []
        else:
            tag, owners = self.receiver(func.value, context, depth + 1)
            if tag != "instances":
                return None
        made: list[ClassRef] = []
        for owner in owners:
            found: ClassRef | None = None
            if isinstance(owner, ClassInfo):
                method = owner.methods.get(name)
                found = self.made_class(method, own=owner) if method is not None else None
            elif from_class:
                indexed = self.index.cls(owner)  # another module's class: its classmethods returning `cls(...)`
                found = owner if indexed is not None and name in indexed[1].get("makers", ()) else None
            if found is None:
                return None
            made.append(found)
        return made[0] if made and all(ref is made[0] for ref in made) else None

    def member_kind(self, expr: cst.Attribute, context: Context) -> Member:
        """Whether ``expr`` (``receiver.attr``) is a bound method, something stable, or unknown."""
        attr = expr.attr.value
        receiver = expr.value
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            return self.super_member(attr, context)
        if isinstance(receiver, (cst.Name, cst.Attribute)):
            named_class = self.class_ref(receiver) if self.names_a_class(receiver) else None
            if named_class is not None:
                # Read from the class: a classmethod is bound to it (a new object each read), the rest are plain.
                return "method" if self.member(named_class, attr) == "class" else "stable"
        tag, classes = self.receiver(receiver, context)
        if tag == "stable":
            return "stable"
        if tag == "unknown":
            return "unknown"
        kinds = {self.member(ref, attr) for ref in classes}
        if kinds == {"method"}:
            return "method"
        if None in kinds:
            return "unknown"
        return "stable"

    def names_a_class(self, expr: cst.BaseExpression) -> bool:
        """True when ``expr`` is a name bound to a class (defined here, or imported and indexed)."""
        if isinstance(expr, cst.Name):
            ref = self.single_referent(expr)
            if isinstance(getattr(ref, "node", None), cst.ClassDef):
                return True
            return isinstance(ref, ImportAssignment) and self.class_ref(expr) is not None
        if isinstance(expr, cst.Attribute):
            base = expr.value
            while isinstance(base, cst.Attribute):
                base = base.value
            return isinstance(base, cst.Name) and isinstance(self.single_referent(base), ImportAssignment) \
                and self.class_ref(expr) is not None
        return False

    def super_member(self, attr: str, context: Context) -> Member:
        """``super().attr`` in a method: a base's method, bound to ``self`` (unknown bases: a method too)."""
        info = self.c.classes.get(context.method_of) if context.method_of is not None else None
        if info is None:
            return "unknown"
        for base in info.node.bases:
            ref = self.class_ref(base.value)
            if ref is None:
                continue
            kind = self.member(ref, attr)
            if kind is not None:
                return "method" if kind == "method" else "stable"
        return "method" if info.node.bases else "unknown"

    def factory_kind(self, func: cst.BaseExpression) -> str | None:
        """What a call of ``func`` returns when it is a new function each time (``"nested function"``, ...)."""
        facts = self.function_facts(func)
        returns: str | None = facts.get("returns") if facts else None
        return returns

    def factory_item_kind(self, func: cst.BaseExpression, item: int) -> str | None:
        """What a call of ``func`` returns at position ``item`` of its tuple when that is a new function each time."""
        facts = self.function_facts(func)
        items = facts.get("returns_items") if facts else None
        return items[item] if isinstance(items, list) and item < len(items) else None

    def indexed_names(self, func: cst.BaseExpression) -> Iterator[str]:
        """The qualified names the function ``func`` may name, for the index: this module's own ``def`` (only that,
        when it is one; none for a nested one), else each dotted name its qualified names resolve to."""
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return
        if isinstance(func, cst.Name):
            node = getattr(self.single_referent(func), "node", None)
            if isinstance(node, cst.FunctionDef):
                if isinstance(self.scopes.get(node), GlobalScope):
                    yield f"{self.module_name}.{func.value}"
                return
        for name in self.qnames(func):
            qualified = self.absolute(name)
            if "." in qualified:
                yield qualified

    def function_facts(self, func: cst.BaseExpression) -> dict[str, Any] | None:
        """The index's facts of the function ``func`` names (this module's or an imported one)."""
        for qualified in self.indexed_names(func):
            facts = self.index.function(qualified)
            if facts is not None:
                return facts
        return None

    def defined_in_run(self, func: cst.BaseExpression) -> bool:
        """True when the function ``func`` names is defined in a module of the run (not an installed package)."""
        for qualified in self.indexed_names(func):
            found = self.index.lookup(qualified)
            if found is not None:
                return found[0] in self.index.modules
        return False

    def indexed_forwarder(self, func: cst.BaseExpression) -> tuple[Forwarded, str] | None:
        """What the run's function ``func`` names (this module's or an imported one) hands on to static arguments of
        a jitted function (:meth:`~jitcheck.lint.index.ProjectIndex.static_forward`), with its qualified name."""
        for qualified in self.indexed_names(func):
            found = self.index.static_forward(qualified)
            if found is not None:
                return found, qualified
        return None

    def indexed_jit(self, func: cst.BaseExpression) -> tuple[dict[str, object], str] | None:
        """The index's facts of an imported jitted function with static arguments, and its qualified name."""
        for name in self.qnames(func):
            qualified = self.absolute(name)
            if "." not in qualified or qualified.startswith(f"{self.module_name}."):
                continue
            facts = self.index.function(qualified)
            if facts is not None and facts.get("jit") and (facts["jit"].get("nums") or facts["jit"].get("names")
                                                           or facts["jit"].get("all")):
                return facts, qualified
        return None


def _raises(block: cst.BaseSuite) -> bool:
    """True when ``block`` ends with a ``raise``."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
    last = statements[-1] if statements else None
    smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
    return bool(smalls) and isinstance(smalls[-1], cst.Raise)


class _Returns(cst.CSTVisitor):
    """The values a function's own ``return`` statements return (nested functions are not entered)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.values.append(node.value)


def _one_class(found: list[ClassRef | None]) -> ClassRef | None:
    """The one class every entry of ``found`` names (returns that each build one), or None: none, an unknown one,
    or several."""
    if not found or any(ref is None for ref in found) or len({id(ref) if not isinstance(ref, str) else ref
                                                               for ref in found}) != 1:
        return None
    return found[0]


def returned_values(function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The values ``function``'s own ``return`` statements return (those of functions nested in it are theirs), in
    order. A ``return`` is a statement: only the blocks of compound statements are walked, not the expressions in
    them (a tenth of the nodes a visitor's walk visits); a compound statement of a kind not known here is visited."""
    values: list[cst.BaseExpression] = []
    _returns_in(function.body, values)
    return values


def _returns_in(suite: cst.BaseSuite | cst.If, values: list[cst.BaseExpression]) -> None:
    statements = suite.body if isinstance(suite, cst.IndentedBlock) else [suite]
    for statement in statements:
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            values += [small.value for small in statement.body if isinstance(small, cst.Return) and small.value is not None]
        elif isinstance(statement, cst.FunctionDef):
            continue
        else:
            blocks = _blocks_of(statement)
            if blocks is None:
                finder = _Returns()
                statement.visit(finder)
                values += finder.values
            else:
                for block in blocks:
                    _returns_in(block, values)


def _blocks_of(statement: cst.CSTNode) -> list[cst.BaseSuite | cst.If] | None:
    """The blocks of a compound statement, in libcst's order of its fields (an ``elif``: its ``if``; None: a kind not
    known here)."""
    if isinstance(statement, cst.If):
        orelse = statement.orelse
        return [statement.body, *(([orelse] if isinstance(orelse, cst.If) else [orelse.body]) if orelse is not None else [])]
    if isinstance(statement, (cst.For, cst.While)):
        return [statement.body, *([statement.orelse.body] if statement.orelse is not None else [])]
    if isinstance(statement, (cst.Try, cst.TryStar)):
        return [statement.body, *(handler.body for handler in statement.handlers),
                *([statement.orelse.body] if statement.orelse is not None else []),
                *([statement.finalbody.body] if statement.finalbody is not None else [])]
    if isinstance(statement, (cst.With, cst.ClassDef)):
        return [statement.body]
    if isinstance(statement, cst.Match):
        return [case.body for case in statement.cases]
    return None


def has_param(function: cst.FunctionDef | cst.Lambda, param: cst.Param) -> bool:
    """True when ``param`` (the node itself, not one like it) is a parameter of ``function``."""
    parameters = function.params
    return any(p is param for p in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params))


def param_names(function: cst.FunctionDef | cst.Lambda) -> set[str]:
    """The names of every parameter of ``function``, ``*args`` and ``**kwargs`` included."""
    parameters = function.params
    found = {p.name.value for p in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params)}
    found |= {p.name.value for p in (parameters.star_arg, parameters.star_kwarg) if isinstance(p, cst.Param)}
    return found


def _row_values(decorator: cst.Call, layout: str, params: Sequence[str], name: str) -> list[cst.BaseExpression] | None:
    """The values parameter ``name`` takes in the rows of a parameterized-test decorator; None when a row is not
    literal enough to tell (a row built by a call, a ``*rows`` argument, names given by a variable)."""
    args = list(decorator.args)
    if layout == "argnames":  # pytest.mark.parametrize("a, b", [(1, 2), ...])
        if len(args) < 2 or args[0].keyword is not None and args[0].keyword.value != "argnames":
            return None
        spelled = args[0].value
        if isinstance(spelled, cst.SimpleString) and isinstance(spelled.evaluated_value, str):
            argnames = [n.strip() for n in spelled.evaluated_value.split(",") if n.strip()]
        elif isinstance(spelled, (cst.List, cst.Tuple)) and all(
                isinstance(e.value, cst.SimpleString) for e in spelled.elements):
            argnames = [str(e.value.evaluated_value) for e in spelled.elements  # type: ignore[attr-defined]
                        ]
        else:
            return None
        if name not in argnames:
            return []
        rows = args[1].value
        if not isinstance(rows, (cst.List, cst.Tuple)):
            return None
        position = argnames.index(name)
        found = []
        for element in rows.elements:
            if isinstance(element, cst.StarredElement):
                return None
            row = element.value
            if isinstance(row, cst.Call) and (cst.helpers.get_full_name_for_node(row.func) or "").endswith("param"):
                items = [a.value for a in row.args if a.keyword is None and not a.star]
            elif len(argnames) == 1:
                items = [row]
            elif isinstance(row, (cst.Tuple, cst.List)):
                items = [e.value for e in row.elements]
            else:
                return None
            if position >= len(items):
                return None
            found.append(items[position])
        return found
    if name not in params:
        return []
    position = params.index(name)
    found = []
    for arg in args:
        if arg.star or arg.keyword is not None:
            return None
        row = arg.value
        if isinstance(row, cst.Dict):
            keyed = {e.key.evaluated_value: e.value for e in row.elements
                     if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)}
            if name not in keyed:
                return None
            found.append(keyed[name])
            continue
        if isinstance(row, (cst.Tuple, cst.List)):
            items = [e.value for e in row.elements]
            if any(isinstance(e, cst.StarredElement) for e in row.elements):
                return None
        elif layout == "rows" and len(params) == 1:
            items = [row]
        else:
            return None
        if layout == "named rows":
            items = items[1:]  # the first item names the test case
        if position >= len(items):
            return None
        found.append(items[position])
    return found


def _made_at(assignment: object) -> int:
    """Where libcst's scope analysis made ``assignment`` among its scope's assignments (its ``_index``, in the order the
    code binds names); a builtin, which has none, first."""
    index = getattr(assignment, "_index", -1)
    return index if isinstance(index, int) else -1


__all__ = ["ClassRef", "Member", "Receiver", "Resolver", "has_param", "param_names"]
