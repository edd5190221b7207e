"""jitcheck's mypy plugin: enable with ``plugins = ["mypy_plugin"]`` in your mypy config.

It enforces the `Label` and `Place` bounds of jitcheck's graph classes where mypy's
own ``Hashable`` bound is too weak, and refuses node bodies that compare by
identity, reporting jitcheck's rule codes (see :mod:`jitcheck.rules`).

The hooks here are thin: they find the types and expressions to judge and report
what the pure functions of the package's modules find (:mod:`.bounds`,
:mod:`.bodies`, :mod:`.hashability`, :mod:`.facts`, options in :mod:`.config`).
Only :mod:`jitcheck.rules` is imported from jitcheck, never jax.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import mypy
from mypy.checker import TypeChecker
from mypy.errors import CompileError
from mypy.nodes import CallExpr, Context, Decorator, Expression, MemberExpr, MypyFile, NameExpr, PlaceholderNode, TypeInfo
from mypy.options import Options
from mypy.plugin import (
    AnalyzeTypeContext,
    ClassDefContext,
    FunctionContext,
    MethodContext,
    Plugin,
    ReportConfigContext,
)
from mypy.semanal_shared import has_placeholder
from mypy.plugins.functools import partial_call_callback
from mypy.types import AnyType, Instance, Type, get_proper_type

import jitcheck
from jitcheck import rules
from mypy_plugin import config as config_module
from mypy_plugin import facts
from mypy_plugin.answers import Answers
from mypy_plugin.codes import ERROR_CODES, Finding
from mypy_plugin.config import DEFAULT_BODY_PARAMS, ConfigError, PluginConfig
from mypy_plugin.specs import (
    JIT_BUILDERS,
    JIT_WRAPPER,
    JIT_WRAPPER_CALL,
    PARTIAL_CALL,
    SourceSpecs,
    StaticSpec,
    applies_static_pmap,
    module_of,
    refers_to_decorator,
)
from mypy_plugin.resolution import found_by_mypy, imports_jitcheck, skipped_by, skipped_messages, unresolved_messages
from mypy_plugin.roles import GRAPH_CLASSES, NODE_MAPPINGS, ROLE_OF_TYPEVAR, is_graph_class, is_node_class

if TYPE_CHECKING:
    from mypy_plugin.hashability import Env
    from mypy_plugin.jit import LoopSites

# The judging modules (bodies, bounds, hashability, jit) are imported in the methods
# that judge: a build where nothing concerns jitcheck never loads them.


def _source_digest() -> str:
    """A digest of the plugin's source and the rule catalogue it words messages with.

    mypy invalidates its cache when a plugin's ``__version__`` changes; hashing every
    module (not only this one, which is all mypy hashes) keeps cached results honest.
    """
    digest = hashlib.sha256()
    for path in [*sorted(Path(__file__).parent.glob("*.py")), Path(rules.__file__)]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


__version__ = f"{jitcheck.__version__}+{_source_digest()}"

_TYPESHED = os.path.join(os.path.dirname(mypy.__file__), "typeshed") + os.sep
_SITE = os.sep + "site-packages" + os.sep
_DIST = os.sep + "dist-packages" + os.sep
_ROLES_MODULE = next(iter(ROLE_OF_TYPEVAR)).rpartition(".")[0]
"""The module of jitcheck's Label and Place TypeVars: every graph class needs it loaded."""


class JitcheckPlugin(Plugin):
    """The plugin's entry class; its hooks live in the modules of this package."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        try:
            self.config: PluginConfig = config_module.load(options.config_file)
        except ConfigError as error:
            # Every bad option, on stdout beside mypy's own errors, before any module is checked.
            raise CompileError(error.lines, use_stdout=True) from None
        from mypy_plugin.unread import warnings

        for line in warnings(options.config_file):  # once per run: where mypy warns about its own config file
            print(line, file=sys.stderr)
        self._bypass: set[str] = set()
        self._resolution_checked = False
        self._graph_classes: dict[str, bool] = {}
        self._type_hooks: Answers[Callable[[AnalyzeTypeContext], Type] | None] = Answers(self._type_analyze_answer)
        self._function_hooks: Answers[Callable[[FunctionContext], Type] | None] = Answers(self._function_answer)
        self._class_hooks: Answers[Callable[[ClassDefContext], None] | None] = Answers(self._class_answer)
        self._classes_of_module: dict[str, list[str]] = {}
        self._library_modules: dict[str, bool] = {}
        # mypy asks through these attributes for every name it meets: each a C-level
        # lookup (answers.py), not a Python call. The methods of the same names below
        # give the same answers, for any other caller.
        setattr(self, "get_type_analyze_hook", self._type_hooks.__getitem__)
        setattr(self, "get_function_hook", self._function_hooks.__getitem__)
        setattr(self, "get_customize_class_mro_hook", self._class_hooks.__getitem__)
        self._method_hooks: dict[str, Callable[[MethodContext], Type]] = {JIT_WRAPPER_CALL: self._check_jitted_call, PARTIAL_CALL: self._partial_call}
        setattr(self, "get_method_hook", self._method_hooks.get)
        for name in _UNUSED_HOOKS:
            setattr(self, name, _NO_HOOKS.get)  # mypy's questions this plugin has no hook for, answered None in C
        self._snapshot = self.config.snapshot()
        self._reported_bounds: set[tuple[str, str, str]] = set()
        self._static_specs: dict[str, StaticSpec | None] = {}
        self._source_specs = SourceSpecs()
        self._loop_sites: LoopSites | None = None
        self._graph_names: frozenset[str] = frozenset(GRAPH_CLASSES) | frozenset(self.config.graph_classes)

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        super().set_modules(modules)
        self._forget_graphs()

    def _forget_graphs(self) -> None:
        """Judge every name again: (dmypy) the modules, or jitcheck's presence among them, changed."""
        self._graph_classes.clear()
        self._type_hooks.clear()
        self._function_hooks.clear()
        self._class_hooks.clear()
        self._classes_of_module.clear()

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        # Called once per module parsed: the first that imports jitcheck checks, once,
        # that mypy can find it (see resolution.py); a run that cannot is refused.
        for name in self._classes_of_module.pop(file.fullname, ()):
            self._class_hooks.pop(name, None)  # (dmypy) parsed again: its classes are read again
        if file.fullname == _ROLES_MODULE:
            self._forget_graphs()  # (dmypy) jitcheck arrives: names judged without it are judged again
        if not self._resolution_checked:
            line = imports_jitcheck(file)
            if line is not None:
                self._resolution_checked = True
                skipped = skipped_by(self.options)
                if skipped is not None:
                    raise CompileError(skipped_messages(file.path, line, skipped), use_stdout=True)
                if not found_by_mypy(self.options):
                    raise CompileError(unresolved_messages(file.path, line, self.options), use_stdout=True)
        return []

    def report_config_data(self, ctx: ReportConfigContext) -> object:
        """The options, for the modules they can change (not typeshed's or installed packages')."""
        if _third_party(ctx.path):
            return None
        return self._snapshot

    # Explicit type arguments: JitGraph[Name, str] in annotations, bases and aliases.

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        return self._type_hooks[fullname]

    def _type_analyze_answer(self, fullname: str) -> tuple[Callable[[AnalyzeTypeContext], Type] | None, bool]:
        # Asked once per name (answers.py), for every name in every annotation.
        if fullname in self._bypass:
            # Our own hook asked mypy for its default analysis of this very type, once.
            self._bypass.discard(fullname)
            return None, False
        if self._is_graph(fullname):
            return functools.partial(self._analyze_graph_type, fullname), True
        return None, self._graph_classes.get(fullname) is False  # not final while not defined yet

    def _analyze_graph_type(self, fullname: str, ctx: AnalyzeTypeContext) -> Type:
        self._type_hooks.pop(fullname, None)  # asked again, and answered None once
        self._bypass.add(fullname)
        try:
            analyzed = ctx.api.analyze_type(ctx.type)
        finally:
            self._bypass.discard(fullname)
        instance = get_proper_type(analyzed)
        if isinstance(instance, Instance) and instance.args and not has_placeholder(instance):
            from mypy_plugin.bounds import bound_findings

            env = self._env(ctx.api.options)
            found = bound_findings(
                instance, ctx.context, env, self.config.graph_classes, arg_contexts=ctx.type.args, reported_bounds=self._reported_bounds
            )
            # mypy's type analyser has note() beside fail(), though its plugin interface names only fail().
            note: Callable[..., object] = getattr(ctx.api, "note", ctx.api.fail)
            self._report(ctx.api.fail, note, found)
        return analyzed

    # Calls: inferred type arguments, node bodies, settings.

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return self._function_hooks[fullname]

    def _function_answer(self, fullname: str) -> tuple[Callable[[FunctionContext], Type] | None, bool]:
        # Asked once per name (answers.py), for every call mypy checks.
        if fullname in self.config.constructors or self._is_graph(fullname):
            return functools.partial(self._check_call, fullname), True
        if fullname in JIT_BUILDERS:
            return functools.partial(self._check_jit_builder, JIT_BUILDERS[fullname]), True
        if self._static_spec(fullname) is not None:
            return self._check_jitted_function_call, True  # eqx.filter_jit keeps the function's own type
        return None, self._graph_classes.get(fullname) is False  # not final while not defined yet

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return self._method_hooks.get(fullname)

    # jax.jit call sites.

    def _check_jit_builder(self, builder: str, ctx: FunctionContext) -> Type:
        if isinstance(ctx.context, CallExpr) and isinstance(ctx.api, TypeChecker):
            from mypy_plugin.bodies import CallEnv
            from mypy_plugin.jit import LoopSites, rebuilt_method_findings

            if self._loop_sites is None:
                self._loop_sites = LoopSites()
            function = ctx.api.scope.current_function()
            env = CallEnv(self._env(ctx.api.options), _type_lookup(ctx))
            found = rebuilt_method_findings(ctx.context, builder, function, self._loop_sites, env)
            self._report(ctx.api.fail, ctx.api.msg.note, found)
        return ctx.default_return_type

    def _partial_call(self, ctx: MethodContext) -> Type:
        # This hook stands in for mypy's own (first hook wins), so it returns what mypy's
        # infers, except for a module-level function decorated with
        # functools.partial(jax.pmap, static_broadcasted_argnums=...): jax's jitted-wrapper
        # type instead of Any, so that mypy hands its calls to _check_jitted_call.
        inferred = partial_call_callback(ctx)
        decorator = ctx.context
        if (
            isinstance(decorator, Decorator)
            and isinstance(get_proper_type(inferred), AnyType)
            and isinstance(ctx.api, TypeChecker)
            and ctx.api.scope.current_function() is None
            and ctx.api.scope.active_class() is None
            and applies_static_pmap(decorator)
        ):
            wrapper = self._class(JIT_WRAPPER)
            if wrapper is not None:
                return Instance(wrapper, [])
        return inferred

    def _check_jitted_call(self, ctx: MethodContext) -> Type:
        self._check_static_arguments(ctx.context, ctx)
        return ctx.default_return_type

    def _check_jitted_function_call(self, ctx: FunctionContext) -> Type:
        self._check_static_arguments(ctx.context, ctx)
        return ctx.default_return_type

    def _check_static_arguments(self, call: Context, ctx: FunctionContext | MethodContext) -> None:
        if not isinstance(call, CallExpr):
            return
        decorator = refers_to_decorator(call.callee)
        spec = self._static_spec(decorator.fullname) if decorator is not None else None
        if decorator is None or spec is None:
            return
        from mypy_plugin.bodies import CallEnv
        from mypy_plugin.jit import static_call_findings

        env = CallEnv(self._env(ctx.api.options), _type_lookup(ctx))
        self._report(ctx.api.fail, ctx.api.msg.note, static_call_findings(call, decorator, spec, env))

    def _static_spec(self, fullname: str) -> StaticSpec | None:
        """The static positions of the jitted function ``fullname``, from its decorator; None for another name."""
        if fullname in self._static_specs:
            return self._static_specs[fullname]
        spec = None
        if self._modules is not None and "jax" in self._modules:
            symbol = self.lookup_fully_qualified(fullname)
            if symbol is not None and isinstance(symbol.node, Decorator) and _may_jit(symbol.node):
                module = module_of(fullname, self._modules.__contains__)
                tree = self._modules.get(module) if module is not None else None
                if tree is not None and module is not None and fullname == f"{module}.{symbol.node.name}" and not _third_party(tree.path):
                    spec = self._source_specs.spec(tree.path, symbol.node.name)
        self._static_specs[fullname] = spec
        return spec

    def _check_call(self, fullname: str, ctx: FunctionContext) -> Type:
        from mypy_plugin.bodies import CallEnv, body_findings, graph_node_findings, settings_findings
        from mypy_plugin.bounds import bound_findings, element_findings, roles_within

        env = CallEnv(self._env(ctx.api.options), _type_lookup(ctx))
        extra = self.config.graph_classes
        found: list[Finding] = []
        returned = get_proper_type(ctx.default_return_type)
        if isinstance(returned, Instance) and is_graph_class(returned.type, extra):
            already = roles_within((arg for args in ctx.args for arg in args), env.type_of, extra)
            elements, at_elements = element_findings(returned, ctx.callee_arg_names, ctx.args, env.type_of, env.env, extra)
            found += bound_findings(returned, ctx.context, env.env, extra, already=already | at_elements, reported_bounds=self._reported_bounds)
            found += elements
        info = self._class(fullname)
        node_class = info is not None and is_node_class(info)
        body_params = self.config.constructors.get(fullname) or (DEFAULT_BODY_PARAMS if node_class else ())
        for name, args in zip(ctx.callee_arg_names, ctx.args):
            for arg in args:
                if name in body_params:
                    found += body_findings(arg, env)
                elif name == "settings" and body_params:
                    found += settings_findings(arg, env)
                elif name in NODE_MAPPINGS and info is not None and not node_class:
                    found += graph_node_findings(arg, env)
        self._report(ctx.api.fail, ctx.api.msg.note, found)
        return ctx.default_return_type

    # What a class body says about hashing, kept in the cache with the class.

    def get_customize_class_mro_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        return self._class_hooks[fullname]

    def _class_answer(self, fullname: str) -> tuple[Callable[[ClassDefContext], None] | None, bool]:
        # Asked for every class mypy analyses, before its body, again on each pass of a
        # deferred one: the facts are recorded here, in one pass, and no hook is
        # returned, so other plugins' MRO hooks run. A class read once with its
        # decorators resolved is not read again (answers.py). Only a class the symbol
        # tables cannot find (one defined in a function) is recorded by the hook, from
        # the definition mypy hands it. A library's class (typeshed, an installed
        # package) whose syntax adds nothing to its symbols is not read at all: it is
        # judged from mypy's symbols (see facts.class_facts), with or without a cache.
        info, tree = self._class_and_module(fullname)
        if info is None or tree is None:
            return _record_facts, False
        self._classes_of_module.setdefault(tree.fullname, []).append(fullname)
        if self._is_library(tree.fullname) and facts.symbols_suffice(info):
            return None, True
        facts.record(info.defn, tree.is_stub)
        return None, facts.decorators_resolved(info.defn)

    # Helpers.

    def _report(self, fail: Callable[..., object], note: Callable[..., object], found: Iterable[Finding]) -> None:
        for finding in found:
            if finding.rule.code not in self.config.ignore:
                fail(finding.message, finding.context, code=finding.code)
                for line in finding.notes:
                    note(line, finding.context, code=finding.code)

    def _env(self, options: Options) -> Env:
        from mypy_plugin.hashability import Env

        return Env(options, self._is_stub, self._is_library)

    def _is_stub(self, module: str) -> bool:
        tree = self._modules.get(module) if self._modules is not None else None
        return tree is not None and tree.is_stub

    def _is_library(self, module: str) -> bool:
        """Whether ``module`` is typeshed's or an installed package's (kept per module: asked for every class)."""
        known = self._library_modules.get(module)
        if known is None:
            tree = self._modules.get(module) if self._modules is not None else None
            if tree is None:
                return False
            known = self._library_modules[module] = _third_party(tree.path)
        return known

    def _class_and_module(self, fullname: str) -> tuple[TypeInfo | None, MypyFile | None]:
        """The class ``fullname`` (its MRO not needed) and the module defining it.

        A module-level class is found with two dict lookups; any other name (a nested
        class) through mypy's lookup.
        """
        if self._modules is None:
            return None, None
        module, _, name = fullname.rpartition(".")
        tree = self._modules.get(module)
        if tree is not None:
            symbol = tree.names.get(name)
            node = symbol.node if symbol is not None else None
            if isinstance(node, TypeInfo) and node.fullname == fullname:
                return node, tree
        info = self._class(fullname, require_mro=False)
        return info, self._modules.get(info.module_name) if info is not None else None

    def _class(self, fullname: str, require_mro: bool = True) -> TypeInfo | None:
        if self._modules is None:
            return None
        symbol = self.lookup_fully_qualified(fullname)
        node = symbol.node if symbol is not None else None
        if isinstance(node, TypeInfo) and (node.mro or not require_mro):
            return node
        return None

    def _is_graph(self, fullname: str) -> bool:
        # mypy asks this for every name it analyses (about 200,000 times on a large
        # codebase): answered from set and dict lookups unless jitcheck's graph
        # TypeVars are loaded and the name is new.
        if fullname in self._graph_names:
            return True
        known = self._graph_classes.get(fullname)
        if known is not None:
            return known
        if self._modules is None:
            return False
        if "." not in fullname:
            # mypy's names for displays and methods ("<list>", "__init__ of C"), and local
            # functions: never a class in a module's namespace.
            self._graph_classes[fullname] = False
            return False
        if _ROLES_MODULE not in self._modules and not self.config.graph_classes:
            # No jitcheck graph in this build (mypy loads every module before analysing
            # any): no class can subclass one, now or later in this run.
            self._graph_classes[fullname] = False
            return False
        symbol = self.lookup_fully_qualified(fullname)
        node = symbol.node if symbol is not None else None
        if isinstance(node, TypeInfo) and node.mro:
            result = is_graph_class(node, self.config.graph_classes)
        elif node is not None and not isinstance(node, (TypeInfo, PlaceholderNode)):
            result = False  # a function or variable, for good
        else:
            return False  # not defined yet: asked again when it is
        self._graph_classes[fullname] = result
        return result


_NO_HOOKS: dict[str, None] = {}
_UNUSED_HOOKS = frozenset(
    name for name in dir(Plugin) if name.startswith("get_") and "_hook" in name and name not in vars(JitcheckPlugin)
)
"""The hooks of mypy's interface this plugin never gives (``get_attribute_hook``, ...)."""


def _record_facts(ctx: ClassDefContext) -> None:
    """Keep what a class's syntax says about hashing: mypy frees the syntax tree once a module is checked."""
    facts.record(ctx.cls, ctx.api.is_stub_file)


def _may_jit(decorator: Decorator) -> bool:
    """Whether a decorated function may be jitted: its decorators say so, or (read from the cache) are unknown."""
    written = decorator.original_decorators or decorator.decorators
    if not written:
        return True  # from the cache: the module's source decides
    return any("jit" in text or "pmap" in text for text in map(_decorator_text, written))


def _decorator_text(expr: Expression) -> str:
    callee = expr.callee if isinstance(expr, CallExpr) else expr
    parts = [callee] + (list(expr.args[:1]) if isinstance(expr, CallExpr) else [])
    return " ".join(p.fullname or p.name for p in parts if isinstance(p, (NameExpr, MemberExpr)))


def _type_lookup(ctx: FunctionContext | MethodContext) -> Callable[[Expression], Type | None]:
    """The types mypy stored for the call's expressions (never re-inferred: no duplicate errors)."""
    api = ctx.api
    if isinstance(api, TypeChecker):
        return api.lookup_type_or_none
    return lambda expr: None


def _third_party(path: str) -> bool:
    # Called for every module mypy loads: plain substring tests, no path parsing.
    return path.startswith(_TYPESHED) or _SITE in path or _DIST in path


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: the plugin class for this mypy version."""
    return JitcheckPlugin


__all__ = ["ERROR_CODES", "JitcheckPlugin", "plugin"]
