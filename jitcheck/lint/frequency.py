"""How often code runs: the exemptions of the static pass, by reason rather than by name.

A wrapper built in a function body is rebuilt on every call of that function, and
one built in a loop on every iteration. What makes code run once is a reason the
pass can see: it runs only while an outer function is traced (a jitted body); it
is a constructor (once per object) or under a cache (once per argument); or it is
a function that runs once (a test or ``main``, called by the runner; a helper whose
one call site runs once) and is not API that users call again and again. A loop
inside any of them still runs its body per iteration.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.metadata import MetadataWrapper

from jitcheck.lint import names
from jitcheck.lint.callers import Elsewhere, Site, public_caller, repeated_elsewhere
from jitcheck.lint.collect import CallSite, ClassInfo, Context
from jitcheck.lint.positions import Spans, ranges_of
from jitcheck.lint.resolver import Resolver, param_names, returned_values

_MAIN_GUARD = re.compile(r"""__name__\s*==\s*['"]__main__['"]""")


class Frequency(Resolver):
    """Judges whether code where a wrapper is built runs more than once."""

    path: str
    _metadata: MetadataWrapper | None = None
    spans: Spans | None = None
    """Every node's range by its ``id``, once a line was asked for (then the reported nodes' positions are read from
    it too)."""

    def line_of(self, node: cst.CSTNode) -> int:
        """The 1-based line ``node`` starts on (0 when unknown); asked only when a finding is being made or a name
        is defined twice at module level. Every node's range is found at the first question, by a write-out of the
        module that keeps no text (:func:`~jitcheck.lint.positions.ranges_of`: about the cost of writing it out
        up to one node with its positions, as each question once was); the findings' positions are read from
        the same ranges, without writing the module out again."""
        if self.spans is None:
            if self._metadata is None:
                return 0
            self.spans = ranges_of(self._metadata.module)
        span = self.spans.get(id(self.c.stand_ins.get(id(node), node)))  # a thread's run: where the thread is made
        return span[0] if span is not None else 0

    def thread_run(self, node: cst.CSTNode) -> bool:
        """True for the call made up to stand for a thread's run (``Thread(target=f, ...)``), not written in the code."""
        return id(node) in self.c.stand_ins

    def lines_of(self, node: cst.CSTNode) -> tuple[int, int]:
        """The first and last lines of ``node`` (``(0, 0)`` when unknown), from the ranges :meth:`line_of` reads."""
        if not self.line_of(node):
            return 0, 0
        span = self.spans.get(id(self.c.stand_ins.get(id(node), node))) if self.spans is not None else None
        return (span[0], span[2]) if span is not None else (0, 0)

    def is_library_module(self) -> bool:
        """A module of the library itself (not a test, an example, a script or a benchmark)."""
        cached = getattr(self, "_library", None)
        if cached is None:
            parts = [p.lower() for p in re.split(r"[\\/]", self.path or "")]
            name = parts[-1] if parts else ""
            cached = not (set(parts[:-1]) & names.NOT_LIBRARY or name.startswith("test_") or name.endswith("_test.py")
                          or name == "conftest.py" or _MAIN_GUARD.search(self._source()))
            self._library = cached
        return bool(cached)

    source_text: str | None = None
    """The text the module was parsed from (libcst writes it back as it was), when the caller has it: the module's
    code is not written out again to read its ``__main__`` guard."""

    def _source(self) -> str:
        text = self.source_text
        if text is None:
            text = self.source_text = self.module.code
        return text

    def is_api(self, function: cst.FunctionDef, context: Context) -> bool:
        """Public API users call again and again: a public function or method of a library module."""
        if function.name.value.startswith("_") or not self.is_library_module():
            return False
        defined = self.c.defs.get(function)
        if defined is None:
            return False
        if defined.function is None:
            return True  # a module-level function (or a method of a module-level class)
        return False

    def callers(self, function: cst.FunctionDef, context: Context) -> list[CallSite]:
        """The call sites of ``function`` that run it eagerly (see :meth:`all_callers`): a call made only while
        an outer function is traced (in a function handed to ``vmap``, ``lax.while_loop``, a jit) is inlined
        into that trace, and a jit inside ``function`` compiles nothing there."""
        return [site for site in self.all_callers(function, context) if not self.under_trace(site)]

    def under_trace(self, site: CallSite) -> bool:
        """True when the call ``site`` runs only while an outer function is traced."""
        caller = site.context.function
        if isinstance(caller, cst.Lambda):
            # `jax.jit(jax.grad(lambda r: helper(r).sum()))`: a lambda handed to a jit or a transformation as it is
            # made runs only while that traces it.
            call = self.lambda_handed_to(caller)
            return call is not None and self.traces(call.func)
        if not isinstance(caller, cst.FunctionDef):
            return False
        cached: dict[int, bool] = self.__dict__.setdefault("_under_trace", {})
        if id(caller) not in cached:
            cached[id(caller)] = False  # a call cycle is not a trace
            cached[id(caller)] = self.traced(caller, site.context)
        return cached[id(caller)]

    def lambda_handed_to(self, lam: cst.Lambda) -> cst.Call | None:
        """The call a lambda is an argument of, where it is made (``jax.grad(lambda r: ...)``), or None."""
        handed: dict[int, cst.Call] | None = self.__dict__.get("_lambdas_handed")
        if handed is None:
            handed = {id(arg.value): call for arg, call in self.c.handed_to.items() if isinstance(arg.value, cst.Lambda)}
            self.__dict__["_lambdas_handed"] = handed
        return handed.get(id(lam))

    def all_callers(self, function: cst.FunctionDef, context: Context) -> list[CallSite]:
        """The call sites of ``function`` this file shows: by name, or ``self.name`` for a method (also in
        the methods of its base classes defined here, whose ``self.name`` reaches this override)."""
        sites = self.in_order(function, list(self.calls_of(function)))
        if context.method_of is not None:
            for cls in self.class_and_bases(context.method_of):
                sites += self.c.self_calls.get((cls, function.name.value), [])
            sites += self.instance_calls(function, context.method_of)
        return sites

    def instance_calls(self, function: cst.FunctionDef, cls: cst.ClassDef) -> list[CallSite]:
        """For a method of a class defined in a function (which the project index cannot name), the calls
        ``obj.name(...)`` of this file on an object of that class or of a subclass defined here
        (``problem = Local(...)``, then ``problem.name(x)`` in a loop). A module-level class's are the index's."""
        if self.c.class_names.get(cls.name.value) is cls:
            return []
        name = function.name.value
        sites: list[CallSite] = []
        for func, site in self.c.call_of_func.items():
            if not isinstance(func, cst.Attribute) or func.attr.value != name or site.node.func is not func:
                continue
            if isinstance(func.value, cst.Name) and func.value.value == site.context.self_name:
                continue  # `self.name(...)`: the self calls above
            tag, classes = self.receiver(func.value, site.context)
            if tag == "instances" and any(isinstance(ref, ClassInfo) and cls in self.class_and_bases(ref.node)
                                          for ref in classes):
                sites.append(site)
        return self.in_source_order(sites)

    def in_order(self, function: cst.FunctionDef, sites: list[CallSite]) -> list[CallSite]:
        """The ``sites`` that reach ``function`` when its name is defined again at module level (a notebook's
        cells each defining `helper`): module-level code runs in order, so a call there reaches the last
        definition above it. Calls inside functions, made later, are kept."""
        defined = self.c.defs.get(function)
        if defined is None or defined.function is not None or not sites:
            return sites
        name = function.name.value
        others = [d for d, where in self.c.defs.items() if d is not function and isinstance(d, cst.FunctionDef)
                  and d.name.value == name and where.function is None
                  and self.method_owner(d) is None]
        if not others or self.method_owner(function) is not None:
            return sites
        start = self.line_of(function)
        earlier = [line for line in map(self.line_of, others) if 0 < line < start]
        later = [line for line in map(self.line_of, others) if line > start]
        if not start or not (earlier or later):
            return sites
        high = min(later, default=0)
        return [site for site in sites if site.context.function is not None
                or (start < self.line_of(site.node) and (not high or self.line_of(site.node) < high))]

    def indexed_class(self, context: Context) -> str | None:
        """The qualified name the index gives the class whose method ``context`` is in (a module-level class of
        this file), or None (a function, a class defined in a function)."""
        cls = context.method_of
        if cls is None or self.c.class_names.get(cls.name.value) is not cls:
            return None
        return f"{self.module_name}.{cls.name.value}"

    def subclass_calls(self, function: cst.FunctionDef, context: Context) -> int:
        """How many ``self.name(...)`` calls the subclasses of a method's class make, in any file of the run
        (from the index; a subclass that overrides the method reaches its own): more call sites of the method."""
        owner = self.indexed_class(context)
        return self.index.subclass_self_calls(owner, function.name.value) if owner is not None else 0

    def base_calls(self, context: Context, name: str) -> int:
        """``self.name(...)`` calls the bases of a method's class make (a framework calling the hook it overrides:
        how often it runs is that caller's, not a convention's)."""
        owner = self.indexed_class(context)
        return self.index.base_self_calls(owner, name) if owner is not None else 0

    def called_again(self, function: cst.FunctionDef, context: Context, sites: list[CallSite], across: bool = True) -> bool:
        """True when ``function``, called at ``sites`` (its :meth:`callers`), runs more than once: called in
        a loop, or at two sites or more that can both run (not the arms of one ``if``/``elif``), its
        subclasses' ``self.name(...)`` calls in the run counted, or in a loop of another module of the run."""
        return any(site.context.in_loop for site in sites) or \
            len(self.runs_apart(sites)) + self.subclass_calls(function, context) >= 2 or \
            self.registered(function, context) is not None or \
            (across and (self.called_in_other_loops(function) or self.elsewhere(function, context) is not None))

    def runs_apart(self, sites: list[CallSite]) -> list[CallSite]:
        """The call sites that can run apart (:func:`runs_of`), where sites in different functions count as one run
        when those functions are alternatives: the run calls each of them, and only in different arms of one
        ``if`` of one caller (``if config.train: train_and_eval() else: eval_only()``), outside any loop. One run
        of that caller runs one of them; the sites of the function with the most are kept."""
        kept = runs_of(sites)
        groups: dict[int, list[CallSite]] = {}
        for site in kept:
            groups.setdefault(id(site.context.function), []).append(site)
        if len(groups) < 2:
            return kept
        calls: list[list[Site]] = []
        for group in groups.values():
            context = group[0].context
            function = context.function
            qualified = self.qualified(function, context) if isinstance(function, cst.FunctionDef) else None
            made = self.index.call_sites().get(qualified, []) if qualified is not None else []
            if not made or any(call.loop_kind is not None for call in made):
                return kept  # run by nothing here (public: a user may run both), or again and again
            calls.append(made)
        for number, mine in enumerate(calls):
            if not all(one.exclusive(other) for theirs in calls[number + 1:] for one in mine for other in theirs):
                return kept
        return max(groups.values(), key=len)

    def registered(self, function: cst.FunctionDef, context: Context) -> cst.Call | None:
        """The first of :meth:`registrations`, or None."""
        found = self.registrations(function, context)
        return found[0] if found else None

    def registrations(self, function: cst.FunctionDef, context: Context) -> list[cst.Call]:
        """The calls in this file that register ``function`` as an event handler (``reg_key_handler(f)``,
        ``mpl_connect("key_press_event", self.on_key)``, ``partial(f, env)`` handed to one). An event loop runs a
        handler once per event: again and again, with what the registration bound each time."""
        name = function.name.value
        is_method = context.method_of is not None and self.method_owner(function) is not None
        found: list[cst.Call] = []
        for target, _, call in self.registered_handlers():
            if isinstance(target, cst.Name) and target.value == name and not is_method \
                    and getattr(self.single_referent(target), "node", None) is function:
                found.append(call)
            elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.attr.value == name \
                    and is_method and target.value.value == context.self_name:
                found.append(call)
        return found

    def elsewhere(self, function: cst.FunctionDef, context: Context) -> Elsewhere | None:
        """What the run's call records (:mod:`~jitcheck.lint.callers`) show of a module-level function or a
        method of a module-level class called again and again, from any module: None when they show nothing. For a
        factory whose product other modules use where they make it, only such calls count."""
        product = self.judged_as_factory(function) and bool(self.product_elsewhere(function, context))
        cache: dict[tuple[int, bool], Elsewhere | None] = self.__dict__.setdefault("_elsewhere", {})
        if (id(function), product) not in cache:
            found: Elsewhere | None = None
            defined = self.c.defs.get(function)
            cls = context.method_of
            if cls is None:  # a `@staticmethod` has no receiver, but is its class's: `self.jacobian(f, x)` reaches it
                owner_info = self.method_owner(function)
                cls = owner_info.node if owner_info is not None else None
            if defined is not None and defined.function is None and (
                    cls is None or self.c.class_names.get(cls.name.value) is cls):
                owner = f"{self.module_name}.{cls.name.value}" if cls is not None else self.module_name
                # A factory whose product other modules use where they make it: only those calls build it again.
                found = repeated_elsewhere(self.index, f"{owner}.{function.name.value}", product=product)
            cache[(id(function), product)] = found
        return cache[(id(function), product)]

    def judged_as_factory(self, function: cst.FunctionDef) -> bool:
        """True when a wrapper ``function`` builds has been judged as its product (:meth:`product_repeated`): its
        repetition is that of the calls that use the product where they make it, not of every call."""
        return id(function) in self.__dict__.get("_factories", ())

    def qualified(self, function: cst.FunctionDef, context: Context) -> str | None:
        """The qualified name of a module-level function or a method of a module-level class (None otherwise)."""
        defined = self.c.defs.get(function)
        cls = context.method_of
        if defined is None or defined.function is not None or (cls is not None and self.c.class_names.get(cls.name.value) is not cls):
            return None
        owner = f"{self.module_name}.{cls.name.value}" if cls is not None else self.module_name
        return f"{owner}.{function.name.value}"

    def product_elsewhere(self, function: cst.FunctionDef, context: Context) -> list[Site]:
        """The calls other modules of the run make of the factory ``function`` (module level, or a method of a
        module-level class) that use its product where they make it (the index's mark, :func:`~jitcheck.lint.
        callers._Recorder.settle`): each of them builds a new product, with an empty cache, every time it runs."""
        cache: dict[int, list[Site]] = self.__dict__.setdefault("_product_elsewhere", {})
        if id(function) not in cache:
            qualified = self.qualified(function, context)
            facts = self.index.function(qualified) if qualified is not None else None
            if qualified is None or facts is not None and facts.get("transform"):
                # (a transformation jits what its callers hand it, `forward_laplacian(fn)`: judged at their calls, JC703)
                cache[id(function)] = []
            else:
                cache[id(function)] = [site for site in self.index.call_sites().get(qualified, ())
                                       if site.module != self.module_name and site.text("~used")]
        return cache[id(function)]

    def called_in_other_loops(self, function: cst.FunctionDef) -> bool:
        """A module-level function another module of the run calls in a loop (from the index)."""
        defined = self.c.defs.get(function)
        if defined is None or defined.function is not None or self.c.class_names.get(function.name.value) is not None:
            return False
        if self.method_owner(function) is not None:
            return False  # a method: called through its objects, not by this name
        return self.index.called_in_loops(f"{self.module_name}.{function.name.value}")

    def class_and_bases(self, cls: cst.ClassDef) -> list[cst.ClassDef]:
        """``cls`` and its base classes defined in this file, transitively."""
        found = [cls]
        for current in found:
            if len(found) > 16:
                break
            for base in current.bases:
                info = self.local_class(base.value)
                if info is not None and info.node not in found:
                    found.append(info.node)
        return found

    def runs_once(self, context: Context, depth: int = 0) -> bool:
        """True when the code of ``context`` (not in a loop there) runs once per program or test."""
        function = context.function
        if context.in_loop or not isinstance(function, cst.FunctionDef) or depth > 6:
            return False
        defined = self.c.defs.get(function)
        if defined is None:
            return False
        name = function.name.value
        sites = self.callers(function, context)
        if self.called_again(function, context, sites):
            return False  # called again and again, whatever its name
        if name in names.ONCE_FUNCTIONS or name.startswith("test"):
            return True  # an entry point or a test: the program or the test runner calls it once
        if self.is_api(function, defined if defined.method_of is None else context):
            return False
        sites = self.runs_apart(sites)
        if len(sites) == 1:
            caller = sites[0].context
            return caller.function is None or self.exempt(caller, depth + 1)
        return False

    def traces(self, func: cst.BaseExpression) -> bool:
        """True when calling ``func`` traces the functions handed to it: a jit wrapper, a transformation, a
        ``lax`` control-flow primitive, or a solver of a library that jits its objective."""
        qualified = self.qnames(func)
        return any(q in self.jit_wrappers or q in names.TRANSFORMATIONS or q in names.TRACING_CALLS
                   or q.startswith(names.TRACING_LIBRARIES) for q in qualified)

    def traced(self, function: cst.FunctionDef, context: Context, depth: int = 0) -> bool:
        """True when ``function`` (``context`` is a context inside it) runs only while an outer function is traced: it is decorated with a jit or a
        transformation, or every use this file shows hands it to one (``lax.scan(body, ...)``,
        ``jax.jit(step)``, ``optimistix.minimise(loss, ...)``) or calls it from a function that is itself only
        traced. A jit inside it is inlined into the outer trace and compiles nothing of its own."""
        if depth > 4:
            return False
        for decorator in function.decorators:
            expr = decorator.decorator
            if self.traces(expr.func if isinstance(expr, cst.Call) else expr):
                return True
        calls = self.all_callers(function, context)
        called = {id(site.node) for site in calls}
        handed = [site for site in self.in_order(function, self.uses_of(function)) if id(site.node) not in called]
        if not calls and not handed:
            return False
        if any(not self.traces(site.node.func) for site in handed):
            return False
        for site in calls:
            caller = site.context.function
            if not isinstance(caller, cst.FunctionDef):
                return False
            if not self.traced(caller, site.context, depth + 1):
                return False
        return True

    def jit_off(self, function: cst.FunctionDef, context: Context, depth: int = 0) -> bool:
        """True when ``function`` runs only with jit disabled: every call and handler registration of it this file
        shows is made in a ``with jax.disable_jit():`` block, or from a function that itself runs only so (an
        interactive viewer's key handlers, registered and run in the block). A jit there runs op by op and
        compiles nothing."""
        if not self.c.jit_off_calls or depth > 4:
            return False
        sites = self.all_callers(function, context)
        registrations = self.registrations(function, context)
        if not sites and not registrations:
            return False
        for site in sites:
            caller = site.context.function
            if id(site.node) not in self.c.jit_off_calls and not (
                    isinstance(caller, cst.FunctionDef) and self.jit_off(caller, site.context, depth + 1)):
                return False
        return all(id(call) in self.c.jit_off_calls for call in registrations)

    def exempt(self, context: Context, depth: int = 0) -> bool:
        """Code that runs once, by reason: under an outer trace, with jit disabled, in a constructor, under a
        cache, or run once."""
        function = context.function
        if not isinstance(function, cst.FunctionDef):
            return False
        if self.traced(function, context):
            return True  # runs only while an outer function is traced: a jit here is inlined
        if self.jit_off(function, context):
            return True  # runs only with jit disabled: a jit here compiles nothing
        cached = False
        for decorator in function.decorators:
            expr = decorator.decorator
            if self.jit_decorator(expr) is not None:
                return True  # runs only while the outer function is traced
            target = expr.func if isinstance(expr, cst.Call) else expr
            if self.qnames(target) & names.CACHING_DECORATORS or names.cache_named(_last_name(target)):
                cached = True
        if context.in_loop:
            return False
        if cached or context.memoised or (context.method_of is not None and function.name.value in names.CONSTRUCTOR_METHODS):
            return True  # once per object, or once per argument or key (a cache decorator, a hand-written cache)
        return self.runs_once(context, depth)

    def used_here(self, wrapper_call: cst.BaseExpression, parent: cst.CSTNode | None, wrapper: names.Wrapper,
                  context: Context) -> bool:
        """True when the jitted wrapper built here is used where it is built (so each build compiles).

        A wrapper returned or stored (a factory, a constructor) is the caller's to
        keep; one called right away, handed to a call, or bound to a local name that
        this function (or a closure of it) calls, is traced and compiled anew each
        time this code runs.
        """
        if isinstance(parent, cst.Call) and parent.func is wrapper_call:
            return True
        if isinstance(parent, cst.NamedExpr) and parent.value is wrapper_call:
            # `(f := jax.jit(g))(x)`: used where it stands as any expression is, and through the name it binds.
            holder = self.c.walrus_holders.get(parent)
            if isinstance(holder, cst.Call) and holder.func is parent or \
                    self.used_here(parent, holder, wrapper, context):
                return True
            target = parent.target
            return isinstance(target, cst.Name) and self.called_per_build(target, context)
        if isinstance(parent, cst.Attribute) and parent.value is wrapper_call:
            return parent.attr.value in wrapper.tracing_methods
        if isinstance(parent, cst.Arg):
            outer = self.c.handed_to.get(parent)
            if outer is not None and self.qnames(outer.func) & names.NO_COMPILE_CALLS:
                return False  # only traced (make_jaxpr, eval_shape): it compiles nothing
            return not self.runs_once(context) and context.function is not None
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            bound = [t for t in targets if isinstance(t, cst.Name)]
            if not bound:
                return False
            return self.called_per_build(bound[0], self.c.assigned[bound[0]][1] if bound[0] in self.c.assigned else None)
        if isinstance(parent, cst.Return) and isinstance(context.function, cst.FunctionDef) and not context.in_loop:
            # `return jax.jit(step)`: the factory's product, a new wrapper per call of the factory, rebuilt for the same
            # computation only where its callers use it where they make it, again and again. A jit of a parameter
            # (`def maybe_jit(fn): return jit(fn)`) is an alias of jit, judged where it is called.
            wrapped = wrapper_call.args[0].value if isinstance(wrapper_call, cst.Call) and wrapper_call.args else None
            if isinstance(wrapped, cst.Name) and wrapped.value in param_names(context.function):
                return False
            return self.product_repeated(context.function, context)
        return False

    def within(self, function: object, outer: object) -> bool:
        """True when ``function`` is ``outer`` or defined (at any depth) inside it."""
        current = function
        for _ in range(32):
            if current is outer:
                return True
            if not isinstance(current, (cst.FunctionDef, cst.Lambda)):
                return False
            defined = self.c.defs.get(current)
            if defined is None:
                return False
            current = defined.function
        return False

    def called_per_build(self, target: cst.Name | cst.FunctionDef, built: Context | None) -> bool:
        """True when what ``target`` binds is called each time the code that builds it runs.

        Calls in the building function or in closures of it count. When the build is
        outside a loop and the calls are in one (a driver that builds once and then
        trains), the build is amortised over that loop, unless the building function
        runs more than once: called twice, or in a loop, here, or a public method (an
        object's ``fit``/``run`` is called again to continue or refit). A public
        module-level function is not enough there: a driver such as ``train()`` is
        called once per run, and its one compile serves every step of its loop.
        """
        if built is None:
            return False
        # A call made only while a closure is traced is inlined there; so is a wrapper handed to a transformation that
        # is jitted where it is made (`jax.jit(jax.jacfwd(f))`: only the outer wrapper compiles).
        calls = [site for site in self.uses_of(target) if self.within(site.context.function, built.function)
                 and not self.under_trace(site) and not self.jitted_transform(site)]
        function = built.function
        if isinstance(function, cst.FunctionDef) and not built.in_loop:
            stored = [site for site in calls if site.context.function is function and self.returned_object(site.node, function)]
            returned = target in self.returned_closures(function) if isinstance(target, cst.FunctionDef) else \
                self.returns_binding(function, target)
            if stored or returned:
                calls = [site for site in calls if site not in stored]
                if not calls:
                    # The factory's product (`return Model(init, apply)`, `return step`): built once per call of
                    # the factory, so rebuilt only where a caller uses the product where it makes it, again and again.
                    return self.product_repeated(function, built)
        if not calls:
            return False
        direct = [site for site in calls if site.context.function is built.function]
        if not built.in_loop and (len(direct) < len(calls) or any(site.context.in_loop for site in calls)):
            if built.function is None or built.memoised or self.runs_once(built):
                return False
            if isinstance(built.function, cst.FunctionDef) and any(
                    self.within(site.context.function, closure)
                    for closure in self.returned_closures(built.function) for site in calls):
                # A factory (it returns a closure that uses the wrapper): the wrapper lives on in it, built once per use of the
                # factory; a rebuild per call only when the factory itself is called again and again here,
                # at call sites that use its product where they make it (a product kept is built once).
                return self.product_repeated(built.function, built)
            # A public driver: reported, on the guess that users call it again (preview). A wrapper used only by
            # closures of the building function lives on in what it returns or stores (`NeighborFns(allocate, update)`):
            # callers elsewhere that call it again may keep each product, which their records do not show.
            if not direct and isinstance(built.function, cst.FunctionDef) and self.outlived(calls, built.function):
                if self.elsewhere(built.function, built) is not None:
                    return self.repeated(built, functions_are_api=False, across=False)
                if self.held_by_product(calls, built.function):
                    # `return Problem(f, df_diagonal=lambda t, x: jnp.diag(df(t, x)))`: the wrapper lives on in the
                    # factory's product, built once per product; again only where callers use it where they make it.
                    return self.product_repeated(built.function, built)
            return self.repeated(built)
        return True

    def outlived(self, calls: list[CallSite], function: cst.FunctionDef) -> bool:
        """True when a closure of ``function`` holding one of ``calls`` may outlive a call of ``function``: returned,
        stored, put in a container or handed to a constructor. A closure only called there, or handed to a call
        (`minimize(objective, x0)`), is done with when ``function`` returns: its wrapper is built again by each call."""
        for site in calls:
            holder = self.holder_in(site, function)
            if not isinstance(holder, cst.FunctionDef) or holder is function or holder in self.returned_closures(function):
                return True
            for assignment in self.assignments_of(holder):
                for access in getattr(assignment, "references", ()):
                    handed = self.c.passed.get(access.node)
                    if access.node in self.c.call_of_func or handed is not None and not _constructor(handed.node):
                        continue
                    return True
        return False

    def holder_in(self, site: CallSite, function: cst.FunctionDef) -> object:
        """The ``def`` or lambda defined directly in ``function`` whose body makes the call ``site``; for a call in no
        closure of ``function`` (in its own body, or outside it), whatever the climb past it ends at (its enclosing
        function, or None), never a closure of ``function``."""
        holder = site.context.function
        for _ in range(32):
            defined = self.c.defs.get(holder) if holder is not None else None
            if defined is None or defined.function is function:
                break
            holder = defined.function
        return holder

    def jitted_transform(self, site: CallSite) -> bool:
        """True when ``site`` is a transformation (``jax.jacfwd(f)``) whose product is handed straight to a jit wrapper
        (``jax.jit(jax.jacfwd(f))``): what it is handed runs only while that wrapper traces it, inlined there (jax:
        a jitted ``f`` compiles nothing of its own, the outer wrapper once per build)."""
        own = self.c.call_of_func.get(site.node.func)  # the transformation's call, with what holds it
        if own is None or not isinstance(own.parent, cst.Arg) or not self.qnames(site.node.func) & names.TRANSFORMATIONS.keys():
            return False
        outer = self.c.handed_to.get(own.parent)
        return outer is not None and self.wrapper_for(outer.func) is not None

    def held_by_product(self, calls: list[CallSite], function: cst.FunctionDef) -> bool:
        """True when each of ``calls`` is made in a closure of ``function`` that is its product: a closure it returns,
        or one it hands to the object it returns (``return Problem(f, jac=lambda t, x: df(t, x))``)."""
        returned = self.returned_closures(function)
        for site in calls:
            holder = self.holder_in(site, function)
            if not isinstance(holder, (cst.FunctionDef, cst.Lambda)):
                return False
            defined = self.c.defs.get(holder)
            if defined is None or defined.function is not function:
                return False
            if holder in returned:
                continue
            if isinstance(holder, cst.Lambda):
                handed = self.lambda_handed_to(holder)
                if handed is None or not self.returned_object(handed, function):
                    return False
                continue
            handed_to = [self.c.passed.get(access.node) for assignment in self.assignments_of(holder)
                         for access in getattr(assignment, "references", ())]
            if not handed_to or any(use is None or not self.returned_object(use.node, function) for use in handed_to):
                return False
        return True

    def product_repeated(self, function: cst.FunctionDef, built: Context) -> bool:
        """True when the factory ``function``'s callers here use its product where they make it (:meth:`product_used`)
        in a loop, at one site whose function runs again, or at two sites that can both run where each does not
        amortise its build over a loop of its own (:meth:`amortised`)."""
        self.__dict__.setdefault("_factories", set()).add(id(function))
        foreign = self.product_elsewhere(function, built)
        if foreign and (self.elsewhere(function, built) is not None or any(public_caller(self.index, site) for site in foreign)):
            # Another module uses the product where it makes it, in a loop, in code shown to run again, or in public
            # API (a guess, judged at low confidence where the evidence is made).
            return True
        sites = self.product_sites(function, built)
        if any(site.context.in_loop for site in sites):
            return True
        if len(sites) == 1:
            return self.repeated(sites[0].context)
        unamortised = [site for site in sites if not self.amortised(site)]
        if len(unamortised) == 1 and self.repeated(unamortised[0].context):
            # `verlet_step(...)` calls `make_step(...)(n, v)` at once, beside a driver that builds the step once and
            # loops over it: the driver's build is amortised, the other one compiles on every call of its function.
            return True
        # Two drivers that each build the product once and use it over a loop of their own (`pso`, `mcmc`) compile
        # it once per run each, unless a driver is shown to run again (a guess that it does is not evidence here).
        return any(self.driver_again(site.context) for site in sites) or \
            len(self.runs_apart([site for site in sites if not self.amortised(site)])) >= 2

    def amortising_drivers(self, function: cst.FunctionDef, context: Context) -> list[CallSite]:
        """The call sites of the factory ``function`` that use its product, when every one of them is a driver that
        amortises its one build over a loop of its own or an object that keeps it (:meth:`amortised`); empty
        otherwise. Such a product is rebuilt only when a driver runs again."""
        sites = self.product_sites(function, context) if self.makes_product(function) else []
        return sites if sites and all(self.amortised(site) for site in sites) else []

    def amortised_sites(self, function: cst.FunctionDef, context: Context) -> list[CallSite]:
        """The call sites of the factory ``function`` that build its product once and use it over a loop of their
        own, or hand it to an object that keeps it (:meth:`amortised`): none of them builds it again."""
        if not self.makes_product(function):
            return []
        return [site for site in self.product_sites(function, context) if self.amortised(site)]

    def makes_product(self, function: cst.FunctionDef) -> bool:
        """True when ``function`` returns a function it defines, or an object it builds (``return Model(init, apply)``)."""
        return self.returns_closure(function) or any(isinstance(v, cst.Call) and _constructor(v)
                                                     for v in returned_values(function))

    def product_sites(self, function: cst.FunctionDef, context: Context) -> list[CallSite]:
        """The call sites of the factory ``function`` here that use its product where they make it (:meth:`product_used`)."""
        return [site for site in self.callers(function, context) if self.product_used(site)]

    def driver_again(self, context: Context) -> bool:
        """True when the function of ``context`` is shown to run more than once: called in a loop or at two sites
        that can both run, here or in another module of the run (not assumed from its being public)."""
        function = context.function
        return isinstance(function, cst.FunctionDef) and self.called_again(function, context, self.callers(function, context))

    def amortised(self, site: CallSite) -> bool:
        """True when the factory call ``site``, outside any loop, binds its product to a name that its function
        calls only inside a loop, or hands only to the constructors of objects that keep it (`PSO(logL, ...)`): one
        build serves every pass of that loop, or the object's whole life (a driver's build)."""
        parent = site.parent
        if site.context.in_loop or not isinstance(parent, (cst.Assign, cst.AnnAssign)):
            return False
        targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
        if len(targets) != 1 or not isinstance(targets[0], cst.Name):
            return False
        uses = self.product_uses(targets[0])
        return bool(uses) and all(use.context.function is site.context.function and (
            use.context.in_loop or _constructor(use.node) and use.node.func is not targets[0]) for use in uses)

    def returned_object(self, call: cst.Call, function: cst.FunctionDef) -> bool:
        """True when ``call`` builds an object that ``function`` returns (``return Model(init, apply)``, directly or in
        a returned tuple): a class, by the convention that class names are capitalised. What it is handed is kept in
        that object, the function's product, rather than called where it is made."""
        if not _constructor(call):
            return False
        for value in returned_values(function):
            items = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
            if any(item is call for item in items):
                return True
        return False

    def returns_binding(self, function: cst.FunctionDef, target: cst.Name) -> bool:
        """True when ``function`` returns what the assignment to ``target`` binds (``step = jax.jit(f); return step``),
        alone or as an item of a tuple (``return step, indices``)."""
        values: list[cst.BaseExpression] = []
        for value in returned_values(function):
            values += [element.value for element in value.elements] if isinstance(value, cst.Tuple) else [value]
        return any(isinstance(value, cst.Name) and value.value == target.value and
                   any(getattr(ref, "node", None) is target for ref in self.referents(value))
                   for value in values)

    def method_factory_kind(self, func: cst.BaseExpression, context: Context) -> str | None:
        """What a call of ``self.m`` returns when ``m``, a method of the class of ``self`` (this file's), returns a
        function it defines on every path (``def _make_rhs(self): def rhs(y): ...; return rhs``): a new one on each
        call. (A subclass's override is not looked for.)"""
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name) or context.self_name is None \
                or func.value.value != context.self_name or context.method_of is None:
            return None
        held = self.index.cls(f"{self.module_name}.{context.method_of.name.value}")
        # (the method's body may be cut from what libcst parsed: its facts come from the index, made from the whole file)
        kind = held[1].get("factories", {}).get(func.attr.value) if held is not None else None
        return kind if isinstance(kind, str) else None

    def returns_closure(self, function: cst.FunctionDef) -> bool:
        """True when ``function`` returns a function it defines: a factory (see :meth:`returned_closures`)."""
        return bool(self.returned_closures(function))

    def returned_closures(self, function: cst.FunctionDef) -> list[cst.FunctionDef | cst.Lambda]:
        """The functions ``function`` defines and returns: a nested ``def`` or a lambda, also through a name
        bound to one (``f = lambda ...; return f``) or a branch of ``a if c else b``."""
        values = returned_values(function)
        for value in values:
            if isinstance(value, cst.IfExp) and len(values) < 64:
                values += [value.body, value.orelse]
        found: list[cst.FunctionDef | cst.Lambda] = []
        for value in values:
            if isinstance(value, cst.Lambda):
                found.append(value)
            if not isinstance(value, cst.Name):
                continue
            for ref in self.referents(value):
                node = getattr(ref, "node", None)
                if isinstance(node, cst.FunctionDef) and node in self.c.defs and self.c.defs[node].function is function:
                    found.append(node)
                if node in self.c.assigned:
                    bound, context = self.c.assigned[node]
                    if isinstance(bound, cst.Lambda) and context.function is function:
                        found.append(bound)
        return found

    def product_uses(self, target: cst.Name) -> list[CallSite]:
        """The uses of the factory product bound to ``target``: its calls, the calls it is handed to, and the calls of
        its attributes (``problem = build()`` then ``problem.f(x)``: the functions the product keeps)."""
        methods: dict[int, CallSite] | None = self.__dict__.get("_attribute_calls")
        if methods is None:
            methods = {id(func.value): site for func, site in self.c.call_of_func.items()
                       if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)}
            self.__dict__["_attribute_calls"] = methods
        found = [methods[id(access.node)] for assignment in self.assignments_of(target)
                 for access in getattr(assignment, "references", ()) if id(access.node) in methods]
        return self.in_source_order([*self.uses_of(target), *found])

    def product_used(self, site: CallSite, depth: int = 0) -> bool:
        """True when the call ``site`` of a factory uses the product where it makes it: calls it at once,
        hands it to a call, or binds it to a name that the calling function itself calls or hands on.

        A product the caller keeps is built once for all its uses: stored in an attribute or an item
        (``self._fns[k] = make()``), put in a container (``{k: make(v) for ...}``), or bound to a
        name only a closure of the caller reads (a factory of factories). A product returned is
        judged at the call sites of the function that returns it.
        """
        parent = site.parent
        outer = site.context.function
        if isinstance(parent, (cst.Call, cst.Arg)):
            return True  # called at once, or an argument of another call (`minimize(make(), ...)`)
        if isinstance(parent, cst.Return):
            if not isinstance(outer, cst.FunctionDef) or depth > 4:
                return True
            return any(self.product_used(s, depth + 1) for s in self.callers(outer, site.context))
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            # `fn, indices = make(...)`: a factory returning its product with what goes with it
            items: list[cst.BaseExpression] = [e.value for t in targets if isinstance(t, cst.Tuple) for e in t.elements]
            names_bound = [t for t in (items or targets) if isinstance(t, cst.Name)]
            if len(names_bound) < len(items or targets):
                return False  # stored in an attribute or an item (`fn = cache[key] = make()` too)
            uses = [use for target in names_bound for use in self.product_uses(target)]
            if any(use.context.function is outer for use in uses):
                return True
            if uses and isinstance(outer, cst.FunctionDef) and depth <= 4 and self.returns_closure(outer):
                # Read only by closures of a factory of factories: kept in its product, judged where that is made.
                return any(self.product_used(s, depth + 1) for s in self.callers(outer, site.context))
            return bool(uses)
        if isinstance(parent, (cst.Element, cst.DictElement, cst.ListComp, cst.SetComp, cst.DictComp)):
            return False  # kept in a container
        return not isinstance(parent, cst.Expr)  # a product thrown away is not used; anything else may be

    def repeated(self, context: Context, depth: int = 0, functions_are_api: bool = True, across: bool = True) -> bool:
        """The function of ``context`` visibly runs more than once: called twice or in a loop, public API
        (a public method; a public module-level function too unless ``functions_are_api`` is False),
        or called once from code that itself runs more than once."""
        function = context.function
        if not isinstance(function, cst.FunctionDef) or depth > 6:
            return False
        sites = self.callers(function, context)
        if self.called_again(function, context, sites, across):
            return True
        defined = self.c.defs.get(function)
        name = function.name.value
        if name in names.ONCE_FUNCTIONS or name.startswith("test"):
            return False
        if defined is not None and (functions_are_api or context.method_of is not None) and self.is_api(function, defined):
            return True
        sites = self.runs_apart(sites)
        return len(sites) == 1 and self.repeated(sites[0].context, depth + 1, functions_are_api, across)


def runs_of(sites: list[CallSite]) -> list[CallSite]:
    """The call sites that can run apart: a site in one arm of an ``if``/``elif`` chain whose other arm
    holds a site already counted is the same run of the caller (``if a: f(x) elif b: f(y)`` calls ``f`` once)."""
    kept: list[CallSite] = []
    for site in sites:
        if not any(site.exclusive(other) for other in kept):
            kept.append(site)
    return kept


def _last_name(expr: cst.BaseExpression) -> str:
    """The last name of a dotted expression (``compile_cache`` of ``utils.compile_cache``), or ''."""
    return expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else ""


def reads_inputs(site: CallSite) -> bool:
    """True when the arguments of the call ``site`` read a parameter of the function the call is in."""
    function = site.context.function
    if not isinstance(function, cst.FunctionDef):
        return False
    inputs = param_names(function)
    pending: list[cst.CSTNode] = [arg.value for arg in site.node.args]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Name) and node.value in inputs:
            return True
        pending.extend(node.children)
    return False


def _constructor(call: cst.Call) -> bool:
    """True when ``call`` builds an object of a class, by the convention that class names are capitalised
    (``Model(init, apply)``, ``optim.PSO(f)``; not a constant's name in capitals)."""
    return names.class_named(_last_name(call.func))


__all__ = ["Frequency", "reads_inputs", "runs_of"]
