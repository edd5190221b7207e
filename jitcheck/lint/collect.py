"""The first pass over a module: the calls that matter, and the context each runs in.

One cheap walk (no metadata) records every call of a jit-like wrapper, a partial
or a graph constructor, spelled as the module imports it, with what a rule needs
to know about where it runs: inside a function (rebuilt on every call), inside a
loop, in a constructor. It also records assignments, classes and call sites, so
the second pass (:mod:`jitcheck.lint.analysis`) resolves names with libcst's
scope analysis only in modules where a finding is possible at all.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from typing import Union

import libcst as cst
from libcst.helpers import get_full_name_for_node

from jitcheck.lint import generators, names
from jitcheck.lint.memos import attribute_memo, memo_return

FunctionNode = Union[cst.FunctionDef, cst.Lambda]


@dataclasses.dataclass(frozen=True)
class Context:
    """Where an expression is evaluated."""

    function: FunctionNode | None
    """The innermost function (or lambda) it runs in, None at module or class level."""
    function_name: str | None
    method_of: cst.ClassDef | None
    """The class, when ``function`` is a method of it."""
    self_name: str | None
    """The receiver's parameter name (``self``), when ``function`` is a method."""
    in_loop: bool
    """Evaluated again on every iteration of a loop or comprehension (within the function)."""
    memoised: bool = False
    """Under a hand-written cache test, ``if key not in self.cache:`` whose block stores into
    ``self.cache[...]``: it runs once per key, like a function under ``functools.cache``."""
    loop: cst.CSTNode | None = dataclasses.field(default=None, compare=False)
    """The innermost loop (``for``, ``while`` or comprehension) it runs in, within the function, when ``in_loop``."""

    @property
    def per_call(self) -> bool:
        """Evaluated more than once: in a function body or in a loop."""
        return self.function is not None or self.in_loop

    def where(self) -> str:
        """Words for how often: "on every call of `f`", "on every loop iteration"."""
        if self.in_loop:
            return "on every loop iteration"
        if self.function_name:
            return f"on every call of `{self.function_name}`"
        return "more than once"


MODULE_CONTEXT = Context(None, None, None, None, False)


@dataclasses.dataclass
class Frame:
    kind: str  # "module", "class", "function", "lambda"
    node: cst.CSTNode | None
    name: str
    loops: int = 0
    memos: int = 0
    loop_nodes: list[cst.CSTNode] = dataclasses.field(default_factory=list)
    arms: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    """The branches (``id`` of an ``if`` or ``match``, and which arm) the walk is inside, in this frame."""
    self_name: str | None = None
    method_of: cst.ClassDef | None = None
    jit_off: int = 0
    """How many ``with jax.disable_jit():`` blocks of this frame the walk is inside: nothing compiles there."""
    memo_after: cst.If | None = None
    """A method's ``if self.fn is not None: return self.fn`` (:func:`memos.memo_return`): what follows runs once per
    object."""


@dataclasses.dataclass
class CallSite:
    """A call, with its context and the node that holds it."""

    node: cst.Call
    context: Context
    parent: cst.CSTNode | None
    spelled: str
    arms: tuple[tuple[int, int], ...] = ()
    """The branches it is in within its function (``id`` of an ``if``/``match`` statement, and the arm)."""

    def exclusive(self, other: CallSite) -> bool:
        """True when this call and ``other`` can never both run in one run of their function: they are in
        different arms of one ``if``/``elif``/``else`` chain (or ``match``), outside any loop there, or each is
        the value of a ``return`` (a run of a function returns once: ``if not jit: return build()`` and a later
        ``return build()``)."""
        if self.context.function is not other.context.function or self.context.in_loop or other.context.in_loop:
            return False
        if isinstance(self.parent, cst.Return) and isinstance(other.parent, cst.Return) and self.node is not other.node:
            return True
        mine = dict(self.arms)
        return any(statement in mine and mine[statement] != arm for statement, arm in other.arms)


@dataclasses.dataclass
class ClassInfo:
    """What a class body defines, for the bound-method and hashability rules."""

    node: cst.ClassDef
    methods: dict[str, cst.FunctionDef] = dataclasses.field(default_factory=dict)
    class_values: dict[str, cst.BaseExpression] = dataclasses.field(default_factory=dict)
    instance_values: dict[str, list[cst.BaseExpression]] = dataclasses.field(default_factory=dict)
    defines: set[str] = dataclasses.field(default_factory=set)
    annotations: dict[str, cst.BaseExpression] = dataclasses.field(default_factory=dict)
    """Class-level and ``self.x: T = ...`` annotations, by attribute name."""


_ALIAS = re.compile(r"\b(\w+)\s+as\s+(\w+)")


def trigger_names(source: str, extra: Iterable[str]) -> frozenset[str]:
    """The spellings a call must have to matter: known last names and their import aliases."""
    wanted = set(names.BASE_TRIGGERS) | set(names.PARTIAL_TRIGGERS) | set(names.last_names(extra))
    for match in _ALIAS.finditer(source):
        if match.group(1) in wanted:
            wanted.add(match.group(2))
    return frozenset(wanted)


class Collector(cst.CSTVisitor):
    """Walks a module once and records the candidate calls and the facts the rules need."""

    def __init__(self, triggers: frozenset[str], jit_spellings: frozenset[str], graph_spellings: frozenset[str],
                 single_yield: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.triggers = triggers
        self.single_yield = single_yield
        """The module's generators that yield at most once (:mod:`generators`): a loop over a call of one runs once."""
        self.jit_spellings = jit_spellings
        self.graph_spellings = graph_spellings
        self.frames: list[Frame] = [Frame("module", None, "")]
        self.stack: list[cst.CSTNode] = []
        self.candidates: list[CallSite] = []
        self.call_of_func: dict[cst.CSTNode, CallSite] = {}
        self.self_calls: dict[tuple[cst.ClassDef, str], list[CallSite]] = {}
        self.assigned: dict[cst.CSTNode, tuple[cst.BaseExpression, Context]] = {}
        self.unpacked: dict[cst.CSTNode, tuple[cst.Call, int, Context]] = {}
        """A name bound by unpacking a call's result (``init, apply = make(...)``): the call, the name's position."""
        self.outer_loops: dict[cst.CSTNode, cst.CSTNode | None] = {}
        """Each loop that repeats, with the loop around it in the same function (None: none)."""
        self.reaching: dict[cst.Name, cst.Name] = {}
        """A read of a name that only one binding can reach: such an unpacking's target, or the target of a plain
        ``name = call(...)``, above it in the same block, with no other binding of the name in between
        (straight-line code, whatever else binds it elsewhere)."""
        self._live_unpacked: dict[str, tuple[cst.CSTNode, cst.Name]] = {}
        self._loop_binds: dict[cst.CSTNode, set[str]] = {}
        self.classes: dict[cst.ClassDef, ClassInfo] = {}
        self.defs: dict[FunctionNode, Context] = {}
        """Every ``def`` and lambda, with the context it is defined in."""
        self.decorated: list[tuple[cst.FunctionDef, cst.Decorator, Context]] = []
        self.passed: dict[cst.CSTNode, CallSite] = {}
        """Names handed to a call as an argument (``minimize(f, ...)``), with that call: a use of ``f``."""
        self.call_order: dict[cst.Call, int] = {}
        """Each call's rank in source order (calls are visited in the order they start)."""
        self.handed_to: dict[cst.Arg, cst.Call] = {}
        """For an argument that is itself a call (``make_jaxpr(jax.jit(f))``) or a lambda (``jax.grad(lambda r: ...)``):
        the call it is handed to."""
        self.jit_off_calls: set[int] = set()
        """The calls (by ``id``) made in the body of a ``with jax.disable_jit():`` of their own function: with jit
        disabled, what they run compiles nothing."""
        self.stand_ins: dict[int, cst.Call] = {}
        """For each call made up to stand for a thread's run (:meth:`_thread_start`), by its ``id``: the
        ``Thread(...)`` call that starts it, whose place it has."""
        self.handlers: list[tuple[cst.BaseExpression, cst.Call]] = []
        """What is handed to a call registering event handlers (``window.reg_key_handler(self.on_key)``), with that call."""
        self.applied_parent: dict[cst.Call, cst.CSTNode | None] = {}
        """For a call whose callee is itself a call (``partial(jax.jit, ...)(f)``): what holds it."""
        self.annotations: dict[cst.CSTNode, cst.BaseExpression] = {}
        """Annotated assignment targets (``env: Env = make()``) and their annotations."""
        self.loop_iters: dict[cst.CSTNode, cst.BaseExpression] = {}
        """Loop variables (``for env in (A(), B()):``) and what they iterate over."""
        self.loop_bodies: dict[cst.CSTNode, cst.BaseSuite] = {}
        """Loop variables and the body of their loop (where a read of one is that loop's item)."""
        self.class_names: dict[str, cst.ClassDef] = {}
        """Module-level classes by name (for string annotations)."""
        self.imported: set[str] = set()
        """The modules and names this file imports, qualified (``chex``, ``jax.numpy``)."""
        self.walrus_holders: dict[cst.NamedExpr, cst.CSTNode | None] = {}
        """What holds each ``(f := value)``: a call made of it at once, an argument, a statement."""
        self.needs_scope = False
        self._handlers: dict[type[cst.CSTNode], Callable[[cst.CSTNode], bool]] = {
            cst.FunctionDef: self._function,  # type: ignore[dict-item]
            cst.ClassDef: self._class,  # type: ignore[dict-item]
            cst.Lambda: self._lambda,  # type: ignore[dict-item]
            cst.For: self._for,  # type: ignore[dict-item]
            cst.While: self._while,  # type: ignore[dict-item]
            cst.With: self._with,  # type: ignore[dict-item]
            cst.If: self._if,  # type: ignore[dict-item]
            cst.Match: self._match,  # type: ignore[dict-item]
            cst.Call: self._call,  # type: ignore[dict-item]
            cst.Assign: self._assign,  # type: ignore[dict-item]
            cst.AnnAssign: self._ann_assign,  # type: ignore[dict-item]
            cst.NamedExpr: self._named_expr,  # type: ignore[dict-item]
            cst.Import: self._import,  # type: ignore[dict-item]
            cst.ImportFrom: self._import_from,  # type: ignore[dict-item]
        }

    # -- the walk ---------------------------------------------------------------

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        kind = type(node)
        if self._live_unpacked:
            if kind is cst.Name:
                self._reach(node)  # type: ignore[arg-type]
            elif kind is cst.For:
                self._forget(_bound_names(node))  # the loop target is bound before its body runs
        if kind in _COMPREHENSIONS:
            self._comprehension(node)
            return False
        handler = self._handlers.get(kind)
        return handler(node) if handler is not None else True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        kind = type(original_node)
        if kind is cst.If and self.frames[-1].memo_after is original_node:
            self.frames[-1].memos += 1  # past the guard that hands back what the object keeps: once per object
        binds = _BINDER_TYPES.get(kind)
        if binds is None:  # isinstance against libcst's abstract classes is slow: answered once per node type
            binds = _BINDER_TYPES[kind] = issubclass(kind, _BINDERS)
        if binds:
            if self._live_unpacked:
                self._forget(_bound_names(original_node))
            if isinstance(original_node, cst.Assign) and isinstance(original_node.value, (cst.Call, cst.IfExp)):
                block = next((h for h in reversed(self.stack) if isinstance(h, (cst.IndentedBlock, cst.Module))), None)
                for target in original_node.targets:
                    if isinstance(target.target, (cst.Tuple, cst.List)):
                        for element in target.target.elements:
                            if isinstance(element.value, cst.Name) and element.value in self.unpacked:
                                self._live_unpacked[element.value.value] = (block, element.value)  # type: ignore[assignment]
                    elif isinstance(target.target, cst.Name) and len(original_node.targets) == 1:
                        # `bij = DiagLinear(d[i])` in a loop body, after a `bij = ...` above the loop: the object
                        # a read below it in the block sees
                        self._live_unpacked[target.target.value] = (block, target.target)  # type: ignore[assignment]

    def _forget(self, bound: set[str]) -> None:
        for name in bound:
            self._live_unpacked.pop(name, None)

    def _reach(self, node: cst.Name) -> None:
        """Map a read of a name to the binding above it in the same block (see ``reaching``)."""
        live = self._live_unpacked.get(node.value)
        if live is None or live[1] is node:
            return
        loops: list[cst.CSTNode] = []
        for holder in reversed(self.stack[:-1]):
            if isinstance(holder, (cst.Lambda, cst.FunctionDef, cst.ClassDef, *_COMPREHENSIONS)):
                return  # runs later, or in a scope of its own: not straight-line code of the block
            if isinstance(holder, (cst.For, cst.While)):
                loops.append(holder)
            if holder is live[0]:
                # In a block nested below the binding's (a loop's body, an `if` arm), it still reaches the read
                # unless a loop in between binds the name again (a later iteration would see that binding).
                if not any(node.value in _names_bound_in(loop, self._loop_binds) for loop in loops):
                    self.reaching[node] = live[1]
                return

    def context(self) -> Context:
        """The context of what is being visited now."""
        in_loop = False
        loop: cst.CSTNode | None = None
        for frame in reversed(self.frames):
            if frame.loops:
                in_loop = True
                if loop is None and frame.loop_nodes:
                    loop = frame.loop_nodes[-1]
            if frame.kind in ("function", "lambda"):
                node = frame.node
                assert isinstance(node, (cst.FunctionDef, cst.Lambda))
                return Context(node, frame.name, frame.method_of, frame.self_name, in_loop, frame.memos > 0, loop)
        return Context(None, None, None, None, in_loop, loop=loop)

    def _qualname(self, name: str) -> str:
        outer = self.frames[-1].name
        if not outer:
            return name
        return f"{outer}.{name}" if self.frames[-1].kind == "class" else f"{outer}.<locals>.{name}"

    def _function(self, node: cst.FunctionDef) -> bool:
        context = self.context()
        self.defs[node] = context
        for decorator in node.decorators:
            decorator.visit(self)
            spelled = get_full_name_for_node(decorator.decorator)
            if spelled is None and isinstance(decorator.decorator, cst.Call):
                spelled = get_full_name_for_node(decorator.decorator.func)
            if spelled is not None and spelled.rsplit(".", 1)[-1] in self.triggers:
                self.decorated.append((node, decorator, context))
                if context.per_call or isinstance(decorator.decorator, cst.Call):
                    self.needs_scope = True
        node.params.visit(self)
        if node.returns is not None:
            node.returns.visit(self)
        outer = self.frames[-1]
        frame = Frame("function", node, self._qualname(node.name.value))
        if outer.kind == "class" and isinstance(outer.node, cst.ClassDef):
            static = any(get_full_name_for_node(d.decorator) in ("staticmethod", "classmethod") for d in node.decorators)
            params = node.params.posonly_params or node.params.params
            if not static and params:
                frame.self_name = params[0].name.value
                frame.method_of = outer.node
        frame.memo_after = memo_return(node, frame.self_name)
        self.frames.append(frame)
        node.body.visit(self)
        self.frames.pop()
        return False

    def _import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.imported.add(get_full_name_for_node(alias.name) or "")
        return False

    def _import_from(self, node: cst.ImportFrom) -> bool:
        if node.module is not None and not node.relative:
            self.imported.add(get_full_name_for_node(node.module) or "")
        return False

    def _class(self, node: cst.ClassDef) -> bool:
        info = ClassInfo(node)
        self.classes[node] = info
        if len(self.frames) == 1:
            self.class_names[node.name.value] = node
        for statement in node.body.body:
            if isinstance(statement, cst.FunctionDef):
                info.methods[statement.name.value] = statement
                info.defines.add(statement.name.value)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                info.class_values[target.target.value] = small.value
                                info.defines.add(target.target.value)
                    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        info.defines.add(small.target.value)
                        info.annotations[small.target.value] = small.annotation.annotation
                        if small.value is not None:
                            info.class_values[small.target.value] = small.value
        for decorator in node.decorators:
            decorator.visit(self)
        for arg in (*node.bases, *node.keywords):
            arg.visit(self)
        self.frames.append(Frame("class", node, self._qualname(node.name.value)))
        node.body.visit(self)
        self.frames.pop()
        return False

    def _lambda(self, node: cst.Lambda) -> bool:
        self.defs[node] = self.context()
        node.params.visit(self)
        self.frames.append(Frame("lambda", node, self._qualname("<lambda>")))
        node.body.visit(self)
        self.frames.pop()
        return False

    def _comprehension(self, node: cst.CSTNode) -> None:
        """A comprehension's first iterable is evaluated once, in the enclosing scope (``tuple(t for t in f(x))``
        calls ``f`` once); its element, conditions and inner ``for``s run per item."""
        for_in = getattr(node, "for_in")
        assert isinstance(for_in, cst.CompFor)
        for_in.iter.visit(self)
        once = _runs_once(node)
        self._enter_loop(node, not once)
        for part in ("elt", "key", "value"):
            child = getattr(node, part, None)
            if isinstance(child, cst.CSTNode):
                child.visit(self)
        for_in.target.visit(self)
        for condition in for_in.ifs:
            condition.visit(self)
        if for_in.inner_for_in is not None:
            for_in.inner_for_in.visit(self)
        self._leave_loop(not once)

    def _enter_loop(self, node: cst.CSTNode, repeats: bool = True) -> None:
        if repeats:
            loops = self.frames[-1].loop_nodes
            self.outer_loops.setdefault(node, loops[-1] if loops else None)
            self.frames[-1].loops += 1
            self.frames[-1].loop_nodes.append(node)

    def _leave_loop(self, repeats: bool = True) -> None:
        if repeats:
            self.frames[-1].loops -= 1
            self.frames[-1].loop_nodes.pop()

    def _for(self, node: cst.For) -> bool:
        if isinstance(node.target, cst.Name):
            self.loop_iters[node.target] = node.iter
            self.loop_bodies[node.target] = node.body
        node.target.visit(self)
        node.iter.visit(self)
        once = _one_item(node.iter) or self._single_yield_call(node.iter) or _retries(node)
        self._enter_loop(node, not once)
        node.body.visit(self)
        self._leave_loop(not once)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def _single_yield_call(self, iterable: cst.BaseExpression) -> bool:
        """``gen(...)``, ``self.gen(...)`` or ``cls.gen(...)`` of a generator of this module yielding at most once."""
        if not self.single_yield or not isinstance(iterable, cst.Call):
            return False
        func = iterable.func
        if isinstance(func, cst.Name):
            return func.value in self.single_yield
        return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
            and func.value.value in ("self", "cls") and func.attr.value in self.single_yield

    def _if(self, node: cst.If) -> bool:
        memo = _memo_guard(node) or int(attribute_memo(node, self.frames[-1].self_name))
        node.test.visit(self)
        arms = self.frames[-1].arms
        self.frames[-1].memos += memo
        arms.append((id(node), 0))
        loops = self.frames[-1].loop_nodes
        loop = loops[-1] if loops and (_one_iteration(node.test, loops[-1]) or _latched(node, loops[-1])) else None
        if loop is not None:  # the innermost loop runs this arm in one of its iterations only
            self._leave_loop()
        node.body.visit(self)
        if loop is not None:
            self._enter_loop(loop)
        arms.pop()
        self.frames[-1].memos -= memo
        if node.orelse is not None:
            arms.append((id(node), 1))
            loop = loops[-1] if loops and isinstance(node.orelse, cst.Else) and _one_iteration(node.test, loops[-1], 1) \
                else None
            if loop is not None:
                self._leave_loop()
            node.orelse.visit(self)
            if loop is not None:
                self._enter_loop(loop)
            arms.pop()
        return False

    def _match(self, node: cst.Match) -> bool:
        node.subject.visit(self)
        arms = self.frames[-1].arms
        for number, case in enumerate(node.cases):
            arms.append((id(node), number))
            case.visit(self)
            arms.pop()
        return False

    def _while(self, node: cst.While) -> bool:
        repeats = not _retries(node)
        self._enter_loop(node, repeats)
        node.test.visit(self)
        node.body.visit(self)
        self._leave_loop(repeats)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def _with(self, node: cst.With) -> bool:
        off = any(_disables_jit(item.item) for item in node.items)
        for item in node.items:
            item.visit(self)
        self.frames[-1].jit_off += off
        node.body.visit(self)
        self.frames[-1].jit_off -= off
        return False

    def _call(self, node: cst.Call) -> bool:
        func = node.func
        self.call_order.setdefault(node, len(self.call_order))
        if self.frames[-1].jit_off:
            self.jit_off_calls.add(id(node))
        if isinstance(func, cst.Call):
            self.applied_parent[node] = self.stack[-2] if len(self.stack) > 1 else None
        for arg in node.args:
            if isinstance(arg.value, (cst.Call, cst.Lambda)):
                self.handed_to[arg] = node
        callee = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if callee and names.registers_handler(callee):
            self.handlers.extend((arg.value, node) for arg in node.args)
        if callee == "Thread":
            self._thread_start(node)
        if not (isinstance(func, cst.Attribute) and func.attr.value in _STORING) and not (
                isinstance(func, cst.Name) and func.value in _STORING):
            for arg in node.args:
                if isinstance(arg.value, cst.Name):
                    self.passed[arg.value] = CallSite(node, self.context(), None, "", tuple(self.frames[-1].arms))
        if isinstance(func, (cst.Name, cst.Attribute)):
            spelled = get_full_name_for_node(func) or ""
            site: CallSite | None = None
            last = spelled.rsplit(".", 1)[-1]
            if last in self.triggers:
                site = CallSite(node, self.context(), self._holder(), spelled, tuple(self.frames[-1].arms))
                self.candidates.append(site)
                if last in self.graph_spellings:
                    self.needs_scope = True
                elif last in self.jit_spellings:
                    if site.context.per_call or any(a.keyword is not None for a in node.args):
                        self.needs_scope = True
                elif node.args and (get_full_name_for_node(node.args[0].value) or "").rsplit(".", 1)[-1] in self.jit_spellings:
                    self.needs_scope = True  # partial(jax.jit, static_argnums=...)
            if isinstance(func, cst.Name) or (isinstance(func, cst.Attribute) and spelled):  # `f`, `m.f`, `pkg.m.f`
                if site is None:
                    site = CallSite(node, self.context(), self._holder(), spelled, tuple(self.frames[-1].arms))
                self.call_of_func[func] = site
                if (
                    isinstance(func, cst.Attribute)
                    and isinstance(func.value, cst.Name)
                    and site.context.method_of is not None
                    and func.value.value == site.context.self_name
                ):
                    self.self_calls.setdefault((site.context.method_of, func.attr.value), []).append(site)
        return True

    def _thread_start(self, node: cst.Call) -> None:
        """``Thread(target=f, args=(a, b))`` runs ``f(a, b)`` in the thread it makes, in this process and with its
        jit caches: a call of ``f`` where the thread is made (once per iteration of a loop starting one thread
        per actor). It is recorded as a call made up of the target and the thread's arguments, standing in the
        ``Thread(...)`` call's place."""
        given = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        target, args, kwargs = given.get("target"), given.get("args"), given.get("kwargs")
        if not isinstance(target, (cst.Name, cst.Attribute)):
            return
        handed: list[cst.Arg] = []
        if isinstance(args, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in args.elements):
            handed += [cst.Arg(value=element.value) for element in args.elements]
        elif args is not None:
            handed.append(cst.Arg(value=args, star="*"))
        named = _keyword_args(kwargs) if isinstance(kwargs, cst.Dict) else None
        if named is not None:
            handed += named
        elif kwargs is not None:
            handed.append(cst.Arg(value=kwargs, star="**"))
        stand_in = cst.Call(func=target, args=handed)
        self.stand_ins[id(stand_in)] = node
        self.call_order[stand_in] = self.call_order[node]
        spelled = get_full_name_for_node(target) or ""
        self.call_of_func[target] = CallSite(stand_in, self.context(), self._holder(), spelled, tuple(self.frames[-1].arms))

    def _holder(self) -> cst.CSTNode | None:
        """What holds the call visited now, looking through conditional expressions: in
        ``g = jax.jit(f) if jitting else f`` the wrapper is bound to ``g``."""
        index = len(self.stack) - 2
        child = self.stack[-1]
        while index >= 0:
            holder = self.stack[index]
            if not (isinstance(holder, cst.IfExp) and holder.test is not child):
                return holder
            child = holder
            index -= 1
        return None

    def _record_target(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        context = self.context()
        if isinstance(target, cst.Name):
            self.assigned[target] = (value, context)
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, cst.Call):
            for position, element in enumerate(target.elements):
                if isinstance(element, cst.StarredElement):
                    break  # the positions after a starred name depend on the length
                if isinstance(element.value, cst.Name):
                    self.unpacked[element.value] = (value, position, context)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            self.assigned[target] = (value, context)
            if context.method_of is not None and target.value.value == context.self_name:
                info = self.classes.get(context.method_of)
                if info is not None:
                    info.instance_values.setdefault(target.attr.value, []).append(value)

    def _assign(self, node: cst.Assign) -> bool:
        for target in node.targets:
            self._record_target(target.target, node.value)
        return True

    def _named_expr(self, node: cst.NamedExpr) -> bool:
        """``(f := jax.jit(g))(x)`` binds ``f`` as an assignment does, and is itself used where it stands."""
        self._record_target(node.target, node.value)
        self.walrus_holders[node] = self.stack[-2] if len(self.stack) > 1 else None
        return True

    def _ann_assign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            self._record_target(node.target, node.value)
        if isinstance(node.target, cst.Name):
            self.annotations[node.target] = node.annotation.annotation
        elif isinstance(node.target, cst.Attribute) and isinstance(node.target.value, cst.Name):
            context = self.context()
            if context.method_of is not None and node.target.value.value == context.self_name:
                info = self.classes.get(context.method_of)
                if info is not None:
                    info.annotations.setdefault(node.target.attr.value, node.annotation.annotation)
        return True


def _keyword_args(table: cst.Dict) -> list[cst.Arg] | None:
    """``{"steps": 4, "slot": i}`` as the keyword arguments ``steps=4, slot=i``; None when a key is not a string
    naming a parameter, or an entry is a ``**`` unpacking."""
    found: list[cst.Arg] = []
    for element in table.elements:
        key = element.key if isinstance(element, cst.DictElement) else None
        if not isinstance(key, cst.SimpleString) or not str(key.evaluated_value).isidentifier():
            return None
        found.append(cst.Arg(value=element.value, keyword=cst.Name(str(key.evaluated_value))))
    return found


def _disables_jit(expr: cst.BaseExpression) -> bool:
    """``jax.disable_jit()``, ``jax.disable_jit(True)`` or ``disable_jit(disable=True)``: a context in which jitted
    functions run op by op, compiling nothing (not ``disable_jit(False)``, nor a flag known only when it runs)."""
    if not isinstance(expr, cst.Call) or (get_full_name_for_node(expr.func) or "").rsplit(".", 1)[-1] != "disable_jit":
        return False
    given = [arg for arg in expr.args if arg.keyword is None or arg.keyword.value == "disable"]
    return not given or isinstance(given[0].value, cst.Name) and given[0].value.value == "True"


_STORING = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "setattr", "put", "register",
                      "list", "tuple", "dict", "set", "frozenset"})
"""Calls that store what they are handed rather than call it (``fns.append(f)``): not a use of ``f``."""

_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})


def _memo_guard(node: cst.If) -> int:
    """1 when ``node`` is a hand-written cache test whose block fills that cache: ``if key not in self.cache:``
    (or ``if self.cache.get(key) is None:``) with an assignment to ``self.cache[...]`` in its block; else 0."""
    test = node.test
    container: cst.BaseExpression | None = None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.NotIn):
            container = target.comparator
        elif isinstance(target.operator, cst.Is) and isinstance(target.comparator, cst.Name) \
                and target.comparator.value == "None" and isinstance(test.left, cst.Call) \
                and isinstance(test.left.func, cst.Attribute) and test.left.func.attr.value == "get":
            container = test.left.func.value
    spelled = get_full_name_for_node(container) if container is not None else None
    if not spelled:
        return _looked_up_memo(node)

    class _Stores(cst.CSTVisitor):
        found = False

        def visit_Subscript(self, sub: cst.Subscript) -> None:
            if get_full_name_for_node(sub.value) == spelled:
                self.found = True

        def visit_FunctionDef(self, inner: cst.FunctionDef) -> bool:
            return False

    stores = _Stores()
    for statement in node.body.body:
        for small in getattr(statement, "body", ()) if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                stored = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                for assigned in stored:
                    assigned.visit(stores)
    return 1 if stores.found else 0


def _looked_up_memo(node: cst.If) -> int:
    """1 when ``node`` is ``if kept is None:`` (or ``if not kept:``) whose block binds ``kept`` and stores it in a
    container, by subscript or ``setdefault`` (``kept = cache.get(key)`` above it, then ``kept = jax.jit(f)`` and
    ``cache.setdefault(key, kept)`` or ``cache[key] = kept`` in the block): a cache looked up by hand, whose block
    runs once per key; else 0."""
    test = node.test
    name: str | None = None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name) \
            and isinstance(test.comparisons[0].operator, cst.Is) and isinstance(test.comparisons[0].comparator, cst.Name) \
            and test.comparisons[0].comparator.value == "None":
        name = test.left.value
    elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression, cst.Name):
        name = test.expression.value
    if name is None or node.orelse is not None:
        return 0

    kept = _KeptInCache(name)
    node.body.visit(kept)
    return 1 if kept.bound and kept.stored else 0


class _KeptInCache(cst.CSTVisitor):
    """Whether a block binds ``name`` (``bound``: an assignment to it, or a ``def`` of it) and stores it in a
    container (``stored``: ``cache[key] = name`` or ``cache.setdefault(key, name)``); nested functions, lambdas and
    classes are not entered. One class for every test (:func:`_looked_up_memo` runs on each ``if`` a module holds)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.bound = False
        self.stored = False

    def visit_Assign(self, assign: cst.Assign) -> None:
        for target in assign.targets:
            if isinstance(target.target, cst.Name) and target.target.value == self.name:
                self.bound = True
            if isinstance(target.target, cst.Subscript) and isinstance(assign.value, cst.Name) \
                    and assign.value.value == self.name:
                self.stored = True

    def visit_Call(self, call: cst.Call) -> None:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "setdefault" and len(call.args) == 2 \
                and isinstance(call.args[1].value, cst.Name) and call.args[1].value.value == self.name:
            self.stored = True

    def visit_FunctionDef(self, inner: cst.FunctionDef) -> bool:
        self.bound = self.bound or inner.name.value == self.name  # `def kept(...)` binds it too
        return False

    def visit_Lambda(self, inner: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, inner: cst.ClassDef) -> bool:
        return False


def _one_iteration(test: cst.BaseExpression, loop: cst.CSTNode, arm: int = 0) -> bool:
    """True when the arm ``arm`` (0: the body, 1: the ``else``) of an ``if`` on ``test`` runs in one iteration of
    ``loop`` at most. The loop runs over a literal of distinct constants (``for mode in ("a", "b"):``,
    ``for sharded in [False, True]:``), its variable is not bound again in its body, and the test is
    ``mode == "b"`` (either side: its body runs in one iteration), ``sharded`` or ``not sharded`` (each arm runs
    in as many iterations as there are truthy or falsy items). Such an arm runs once per run of the loop, not on
    every iteration; what changes on each run of it is what the loops around change."""
    if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name):
        return False
    name = loop.target.value
    iterable = loop.iter
    if not isinstance(iterable, (cst.List, cst.Tuple, cst.Set)) or not iterable.elements:
        return False
    values = [element.value for element in iterable.elements]
    if any(isinstance(element, cst.StarredElement) for element in iterable.elements) \
            or not all(_constant(value) for value in values):
        return False
    texts = [cst.Module([]).code_for_node(value) for value in values]
    if len(set(texts)) != len(texts):
        return False  # a value twice: its arm runs twice
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    tested = test.expression if negated and isinstance(test, cst.UnaryOperation) else test
    if isinstance(tested, cst.Name) and tested.value == name:
        truths = [_truthy(value) for value in values]
        if None in truths:
            return False
        runs = sum(1 for truth in truths if truth != negated) if arm == 0 else sum(1 for truth in truths if truth == negated)
    elif not negated and isinstance(test, cst.Comparison) and len(test.comparisons) == 1 \
            and isinstance(test.comparisons[0].operator, cst.Equal):
        left, right = test.left, test.comparisons[0].comparator
        if not any(isinstance(side, cst.Name) and side.value == name and _constant(other)
                   for side, other in ((left, right), (right, left))):
            return False
        runs = 1 if arm == 0 else len(values) - 1
    else:
        return False
    if runs > 1:
        return False
    rebinds = _Rebinds({name})
    loop.body.visit(rebinds)
    return not rebinds.found


def _latched(node: cst.If, loop: cst.CSTNode) -> bool:
    """True when the body of ``node`` runs in one iteration of ``loop`` at most because it sets a latch that its test
    requires unset: ``if not built: ...; built = True`` (or ``if ready and not built:``), where the loop binds the
    latch nowhere but to ``True``. The first iteration that passes the test closes it for the rest of the loop."""
    for flag in _required_unset(node.test):
        inside, everywhere = _LatchSets(flag), _LatchSets(flag)
        node.body.visit(inside)
        getattr(loop, "body").visit(everywhere)
        if inside.latched and not everywhere.other:
            return True
    return False


def _required_unset(test: cst.BaseExpression) -> list[str]:
    """The names ``test`` is true only when falsy: ``not flag``, or a conjunct ``not flag`` of an ``and``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression, cst.Name):
        return [test.expression.value]
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _required_unset(test.left) + _required_unset(test.right)
    return []


class _LatchSets(cst.CSTVisitor):
    """Where a latch ``flag`` is bound in the code visited: to ``True`` (``latched``), or in any other way (``other``)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag
        self.latched = False
        self.other = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.flag in _bound_names(node):
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value == "True" \
                    and all(isinstance(t.target, cst.Name) for t in node.targets):
                self.latched = True
            else:
                self.other = True
        return not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _constant(node: cst.BaseExpression) -> bool:
    return isinstance(node, _CONSTANTS) or (isinstance(node, cst.Name) and node.value in ("True", "False", "None"))


def _truthy(node: cst.BaseExpression) -> bool | None:
    """Whether a constant is truthy (None when not known)."""
    if isinstance(node, cst.Name):
        return node.value == "True"
    if isinstance(node, cst.Integer):
        return node.evaluated_value != 0
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value not in ("", b"")
    if isinstance(node, cst.Float):
        return node.evaluated_value != 0
    return None


_CONSTANTS = (cst.SimpleString, cst.Integer, cst.Float)


class _Rebinds(cst.CSTVisitor):
    """Whether any of ``names`` is bound again (an assignment, a ``for``, a walrus, ``with ... as``) in the code visited."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if _bound_names(node) & self.names:
            self.found = True
        return not self.found


def _one_item(iterable: cst.BaseExpression) -> bool:
    """A literal list or tuple of one item (``for t in [0.5]:``): the loop body runs once."""
    return isinstance(iterable, (cst.List, cst.Tuple)) and len(iterable.elements) == 1 \
        and not isinstance(iterable.elements[0], cst.StarredElement)


def _retries(loop: cst.For | cst.While) -> bool:
    """A loop that runs its body again only after an attempt raised: a ``try`` directly in its body whose normal
    path leaves the loop (its body, or its ``else``, ends with ``return`` or ``break``), and no ``continue``
    outside the handlers. Such a loop retries a failure (an out-of-memory fallback to a smaller batch): a run that
    succeeds passes once, and each retry is another attempt, not the same computation compiled again."""
    body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
    if not any(isinstance(statement, cst.Try) and (_leaves(statement.body) or (
            statement.orelse is not None and _leaves(statement.orelse.body))) for statement in body):
        return False
    continues = _Continues()
    for statement in body:
        statement.visit(continues)
    return not continues.found


def _leaves(block: cst.BaseSuite) -> bool:
    """Whether a block's last statement is a ``return`` or a ``break``."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
    last = statements[-1] if statements else None
    small = getattr(last, "body", None) if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
    return bool(small) and isinstance(small[-1], (cst.Return, cst.Break))  # type: ignore[index]


class _Continues(cst.CSTVisitor):
    """Whether a ``continue`` of the loop visited is met outside its ``except`` handlers."""

    def __init__(self) -> None:
        self.found = False

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found = True

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.ExceptHandler, cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        return super().on_visit(node)


def _runs_once(node: cst.CSTNode) -> bool:
    """A comprehension over one literal item, with no other ``for`` or ``if``: its element is evaluated once."""
    for_in = getattr(node, "for_in", None)
    return isinstance(for_in, cst.CompFor) and for_in.inner_for_in is None and not for_in.ifs \
        and _one_item(for_in.iter)


def collect(module: cst.Module, source: str, graph_constructors: Iterable[str] = (), jit_wrappers: Iterable[str] = ()) -> Collector:
    """Walk ``module`` once and return what was recorded."""
    graph_names = tuple(graph_constructors)
    jit_names = tuple(jit_wrappers)
    triggers = trigger_names(source, (*graph_names, *jit_names))
    aliases = {m.group(2) for m in _ALIAS.finditer(source)}
    jit_spellings = names.last_names((*names.JIT_WRAPPERS, *names.METHOD_WRAPPERS, *jit_names)) | (aliases & triggers)
    graph_spellings = names.last_names((*names.NODE_CONSTRUCTORS, *names.GRAPH_CONSTRUCTORS, *graph_names))
    single_yield = generators.single_yield_generators(module) if "yield" in source else frozenset()
    collector = Collector(triggers, jit_spellings, graph_spellings, single_yield)
    module.visit(collector)
    return collector


__all__ = ["CallSite", "ClassInfo", "Collector", "Context", "MODULE_CONTEXT", "collect", "trigger_names"]


_BINDERS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.With, cst.FunctionDef, cst.ClassDef,
            cst.Import, cst.ImportFrom, cst.Del)
_BINDER_TYPES: dict[type, bool] = {}
"""Whether each node type is one of :data:`_BINDERS`."""


def _target_names(target: cst.BaseExpression | None, into: set[str]) -> None:
    if isinstance(target, cst.Name):
        into.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _target_names(element.value, into)
    elif isinstance(target, cst.StarredElement):
        _target_names(target.value, into)


def _names_bound_in(loop: cst.CSTNode, cache: dict[cst.CSTNode, set[str]]) -> set[str]:
    """Every plain name a loop binds anywhere in its target and body (its nested scopes apart), remembered."""
    found = cache.get(loop)
    if found is None:
        found = set()
        stack: list[cst.CSTNode] = [loop]
        while stack:
            current = stack.pop()
            found |= _bound_names(current)
            if current is not loop and isinstance(current, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
                continue
            stack.extend(current.children)
        cache[loop] = found
    return found


def _bound_names(node: cst.CSTNode) -> set[str]:
    """The plain names a statement (or ``for``/walrus) binds."""
    bound: set[str] = set()
    if isinstance(node, cst.Assign):
        for target in node.targets:
            _target_names(target.target, bound)
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For)):
        _target_names(node.target, bound)
    elif isinstance(node, cst.With):
        for item in node.items:
            if item.asname is not None:
                _target_names(item.asname.name, bound)
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        bound.add(node.name.value)
    elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        for alias in node.names:
            bound.add(alias.evaluated_alias or alias.evaluated_name.split(".")[0])
    elif isinstance(node, cst.Del):
        _target_names(node.target, bound)
    return bound
