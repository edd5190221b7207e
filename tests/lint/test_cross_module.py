"""Issue 23's missed bugs and "same callable re-wrapped" look-alikes, each a small package run by jax.

Every case is made-up code written into ``tmp_path`` as a package: the static pass checks the
whole folder (so names resolve across its modules through the project index), then the package
is imported and its ``use.run()`` is called under ``jax.monitoring``. A finding must be where jax
compiled the same computation again (or where a static argument cannot be hashed), and nowhere
else: the reported sites are asserted, and so is jax's compile count.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import jax
import jax.monitoring
import numpy as np
import pytest

from jitcheck.lint import config as config_module
from jitcheck.lint.runner import Options, run
from tests.lint.checks.support import CELL, CELL_AUX, CELL_CHILDREN, PAYLOAD, PAYLOAD_TREE

COMPILE = "/jax/core/compile/backend_compile_duration"

Case = tuple[dict[str, str], list[tuple[str, int, str]], int, int]
"""(files of the package ``pkg``, expected findings as (file, line, code), jax compiles of ``use.run()``,
the distinct computations among them)."""

_PARTS = """\
    import jax
    import jax.numpy as jnp
    class Part:
        def attach(self, owner):
            self.owner = owner
    class PlainPart(Part):
        def solve(self, x):
            @jax.jit
            def objective(v):
                return v - self.owner.target * 0.5
            return objective(x)
"""
"""A part and the subclass whose ``solve`` rebuilds a nested jit on every call (ends at column 0: parts follow)."""

_QUIET_PART = """\
    halve = jax.jit(lambda x: x / 2.0)
    class QuietPart(Part):
        def solve(self, x):
            return halve(x)
    """

_RUNNER = """\
    from typing import Optional
    from pkg.parts import Part, {made}
    class Runner:
        def __init__(self, target, part: Optional[Part] = None):
            self.target = target
            if part is None:
                part = {made}()
            self.part: Part = part
            self.part.attach(self)
        def step(self, x):
            return self.part.solve(x)
        def run(self, x, steps):
            for _ in range(steps):
                x = self.step(x)
            return x
    """
"""A runner whose constructor makes a ``{made}`` when given no part (the class it declares is the base)."""

_RUN_RUNNER = """\
    import numpy as np
    from pkg.runner import Runner
    def run():
        Runner(np.ones(3, np.float32)).run(np.ones(3, np.float32), 3)
    """

_EVENTS = """\
    class Window:
        \"\"\"A stand-in for a GUI window: handlers run once per event, in the event loop of `show`.\"\"\"
        def __init__(self):
            self.handlers = []
        def reg_key_handler(self, handler):
            self.handlers.append(handler)
        def show(self):
            for key in ("left", "right", "left"):
                for handler in self.handlers:
                    handler(key)
    """

_DIAG = textwrap.dedent("""\
    class Scale:
        def __init__(self, s):
            self.s = s
        def inverse(self, y):
            return y / self.s
    class Diag:
        def __init__(self, d):
            self._part = Scale(d)
            self.inverse = self._part.inverse
    """)
_DIAG_LOOP = textwrap.dedent("""\
    def run():
        for i in range(3):
            bij = Diag(np.full(3, i + 1.0, np.float32))
            jax.jit(bij.inverse)(np.ones(3, np.float32))
    """)


_SOLVER = textwrap.dedent("""\
    import functools
    import jax
    def make_coupling(h):
        def coupling(q):
            return q * h
        return coupling
    @functools.partial(jax.jit, static_argnames=("coupling",))
    def solve(x, coupling):
        return coupling(x) + 1.0
    """)


def _simulating(*body: str) -> str:
    """A module whose ``simulate`` hands ``solve`` a coupling made per call, and whose ``run`` runs ``body``."""
    return textwrap.dedent("""\
        import numpy as np
        from pkg.solver import make_coupling, solve
        def simulate(h, x):
            return solve(x, coupling=make_coupling(h))
        def run():
            x = np.ones(3, np.float32)
        """) + "".join(f"    {line}\n" for line in body)


_FILTERED = textwrap.dedent("""\
    import equinox as eqx
    @eqx.filter_jit
    def masked_apply(m, fn, y):
        return fn(y) * m
    """)
_FILTERED_LOOP = textwrap.dedent("""\
    def run():
        for _ in range(3):
            masked_apply(np.float32(1.0), lambda x: x * 2, np.ones(3, np.float32))
    """)


_MODELS = textwrap.dedent("""\
    def double(x):
        return x * 2.0
    class Model:
        def __init__(self, s):
            self.s = s
        def apply(self, x):
            return x * self.s
    class Plain:
        def __init__(self):
            self.apply = double
    def make(s):
        return Model(s)
    def make_plain():
        return Plain()
    """)
_MADE_LOOP = textwrap.dedent("""\
    def run():
        for _ in range(3):
            m = make(2.0)
            jax.jit(m.apply)(np.ones(3, np.float32))
    """)


_BUILT = textwrap.dedent("""\
    import dataclasses
    import jax
    import numpy as np
    @dataclasses.dataclass(eq=False)
    class Model:
        s: float
        def apply(self, x):
            return x * self.s
        @classmethod
        def create(cls, s):
            return cls(s)
        def clone(self):
            return Model(self.s)
    def double(x):
        return x * 2.0
    class Plain:
        def __init__(self):
            self.apply = double
        @classmethod
        def create(cls):
            return cls()
    """)


_OPTIONS = textwrap.dedent("""\
    class Options:
        def __init__(self, scale):
            self.scale = scale
    class Hashed:
        def __init__(self, scale):
            self.scale = scale
        def __eq__(self, other):
            return isinstance(other, Hashed) and other.scale == self.scale
        def __hash__(self):
            return hash(self.scale)
    """)
_OPTIONS_LOOP = textwrap.dedent("""\
    import functools
    import jax
    import numpy as np
    @functools.partial(jax.jit, static_argnums=(1,))
    def scaled(x, options):
        return x * options.scale
    def run():
        for _ in range(3):
            scaled(np.ones(3, np.float32), {made})
    """)


_WINDOW_ENV = textwrap.dedent("""\
    import jax
    import numpy as np
    from pkg.events import Window
    class Env:
        def step_env(self, x):
            return x * 2.0
    """)
_JITTING_HELPER = textwrap.dedent("""\
    import jax
    def helper(x):
        return jax.jit(lambda v: v * 2.0)(x)
    """)


_LOCAL_PROBLEM = textwrap.dedent("""\
    import jax
    import numpy as np
    def run():
        class Problem:
            def __init__(self, dim):
                self.dim = dim
            def target(self, grads):
                def det(g):
                    return g * self.dim
                return jax.jit(jax.vmap(det))(grads)
        problem = Problem(2.0)
        for i in range(3):
            {set}
            problem.target(np.ones((4, 2), np.float32))
    """)


def _static_apply(run: str) -> str:
    """A module whose `update` jits a static `apply_fn`, with ``run`` (indented as the cases are) after it."""
    return textwrap.dedent("""\
        import functools
        import jax
        import numpy as np
        class Model:
            def apply(self, x):
                return x * 2.0
        @functools.partial(jax.jit, static_argnums=(0,))
        def update(apply_fn, x):
            return apply_fn(x)
        """) + textwrap.dedent(run)

_FIT = """\
    import jax
    import jax.numpy as jnp
    import numpy as np
    def fit(scale, flux):
        @jax.jit
        def step(p):
            return p * scale + jnp.sum(flux)
        out = np.zeros((), np.float32)
        for _ in range(2):
            out = step(out)
        return out
    """
"""A fit that jits a closure over the data it is handed, on every call (its decorator on line 5)."""



def _calibrating(*body: str) -> str:
    """A ``use.py`` whose ``run`` loops three times over ``it`` (0, 1, 2) running ``body`` on an array of 5 items."""
    lines = "".join(f"                    {line}\n" for line in body)
    return f"""\
            import numpy as np
            from pkg.fit import fit
            def run():
                flux_all = np.arange(5.0, dtype=np.float32)
                for it in range(3):
{lines}            """


_FORWARDING = textwrap.dedent("""\
    import functools
    import jax
    @functools.partial(jax.jit, static_argnums=(0,))
    def _trajectory(func, y0):
        return y0 + 0.1 * func(y0)
    def integrate(func, y0):
        return _trajectory(func, y0)
    def solve(rhs, y0, *, scale):
        return integrate(rhs, y0 * scale)
    """)
"""A jitted function whose callable is static, and two functions that hand their callable on to it unchanged
(``solve`` through ``integrate``): not jitted themselves, but each call's callable is that jit's cache key."""


def _forwarding(*body: str) -> str:
    """A ``use.py`` importing the forwarders, whose ``run`` runs ``body`` on an array ``y`` of 3 items."""
    return textwrap.dedent("""\
        import numpy as np
        from pkg.integrate import integrate, solve
        def run():
            y = np.ones(3, np.float32)
        """) + "".join(f"    {line}\n" for line in body)


_MAKES_ITS_JIT = textwrap.dedent("""\
    import jax
    def _unrolled(body_fun, init_val, maxiter):
        val = init_val
        for _ in range(maxiter):
            val = body_fun(val)
        return val
    def bounded_loop(body_fun, init_val, maxiter):
        fun = jax.jit(_unrolled, static_argnums=(0, 2))
        return fun(body_fun, init_val, maxiter)
    """)
"""A function that makes its own jit of a loop, with the loop's body and length static: the body it is handed is
that jit's cache key, though the function itself is no jitted function of the module."""


def _looping(*body: str) -> str:
    """A ``use.py`` importing ``bounded_loop``, whose ``run`` runs ``body`` on an array ``y`` of 3 items."""
    return textwrap.dedent("""\
        import numpy as np
        from pkg.loops import bounded_loop
        def run():
            y = np.ones(3, np.float32)
        """) + "".join(f"    {line}\n" for line in body)


_GATHERS = textwrap.dedent("""\
    import jax
    def make_gather(mask):
        keep = [i for i, m in enumerate(mask) if m]
        def gather(v):
            return v.at[0].set(v[keep[0]])
        gather_jit = jax.jit(gather)
        return gather_jit, tuple(keep)
    """)
"""A factory that returns a new jitted function on every call, with the indices it keeps."""

_GATHER_LOOP = textwrap.dedent("""\
    import numpy as np
    from pkg.ops import make_gather
    def run():
        x = np.arange(3.0, dtype=np.float32)
        for _ in range(3):
            fn, kept = make_gather((1, 0, 1))
            x = fn(x)
    """)
"""A ``use.py`` that calls ``make_gather`` on every pass of its loop and calls its product at once."""


_DOUBLING = textwrap.dedent("""\
    import jax
    def doubled(fn):
        def wrapped(x):
            return fn(x) * 2.0
        return jax.jit(wrapped)
    """)
"""A transformation: it jits a new function around the one it is handed (as ``forward_laplacian(fn)`` does)."""

_DOUBLING_LOOP = textwrap.dedent("""\
    import numpy as np
    from pkg.ops import doubled
    def _half(v):
        return v * 0.5
    def run():
        x = np.arange(3.0, dtype=np.float32)
        for _ in range(3):
            x = doubled(_half)(x)
    """)
"""A ``use.py`` that applies ``doubled`` to the same function on every pass of its loop and calls the result at once."""

_DESCENT = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    def _loss(w, x):
        return jnp.sum((x * w) ** 2)
    def _descend(fn, w):
        for _ in range(3):
            _, g = fn(w)
            w = w - 0.1 * np.asarray(g)
        return w
    def fit(w, x):
        step = jax.jit(jax.value_and_grad(_loss))
        def objective(v):
            return step(v, x)
        return _descend(objective, w)
    """)
"""jaxlogit's ``_minimize``: a jit built on each call and used by a closure handed to a solver, which calls it again
and again during that call only. The closure dies with the call, so each call of ``fit`` builds the jit again."""

_DESCENT_LOOP = textwrap.dedent("""\
    import numpy as np
    from pkg.ops import fit
    def run():
        x = np.ones(3, np.float32)
        for _ in range(3):
            fit(np.zeros(3, np.float32), x)
    """)

_CELLS = "import jax\n" + PAYLOAD + CELL + CELL_AUX
"""A pytree class whose aux data holds its bounds and a payload of each cell's own, compared by identity."""

_CELL_WIDTHS = """\
    import jax
    import jax.numpy as jnp
    from pkg.cells import Cell

    @jax.jit
    def width(cell: Cell):
        return jnp.asarray(cell.hi - cell.lo)

    def run():
        return [width(cell) for cell in [Cell(float(i), float(i) + 1.0) for i in range(3)]]
"""

_CELL_OPS = """\
    import jax
    import jax.numpy as jnp
    from pkg.cells import Cell

    @jax.jit
    def width(cell: Cell):
        return jnp.asarray(cell.hi - cell.lo)

    def measure(cell):
        return width(cell)
"""
"""A jitted function of cells, and a function that hands its cell on to it."""


def _cell_loop(call: str) -> str:
    """A module whose ``run`` makes three cells and makes ``call`` (of ``pkg.ops``) once per cell, in a loop."""
    return f"""\
    from pkg.cells import Cell
    from pkg.ops import measure, width

    def run():
        cells = [Cell(float(i), float(i) + 1.0) for i in range(3)]
        for cell in cells:
            {call}
"""


CASES: dict[str, Case] = {
    # -- a static argument handed on through another function ----------------------------------------
    "a lambda handed on, through another module's function, to a jit's static callable, in a loop": ({
        "integrate.py": _FORWARDING,
        "use.py": _forwarding("for _ in range(3):", "    y = integrate(lambda v: -2.0 * v, y)"),
    }, [("use.py", 6, "JC104")], 3, 1),
    "a nested def handed on through two functions to a jit's static callable, in a loop": ({
        "integrate.py": _FORWARDING,
        "use.py": _forwarding("for _ in range(3):", "    def rhs(v):", "        return -2.0 * v",
                              "    out = solve(rhs, y, scale=1.0)"),
    }, [("use.py", 8, "JC105")], 3, 1),
    "the forwarded lambda made once before the loop: one compile (the fix)": ({
        "integrate.py": _FORWARDING,
        "use.py": _forwarding("rhs = lambda v: -2.0 * v", "for _ in range(3):", "    y = integrate(rhs, y)"),
    }, [], 1, 1),
    "a forwarder's traced argument changing in a loop: data, not a key": ({
        "integrate.py": _FORWARDING,
        "use.py": _forwarding("for k in range(3):", "    out = solve(_decay, y, scale=np.float32(k))",
                              "def _decay(v):", "    return -2.0 * v").replace("    def _decay", "def _decay"),
    }, [], 1, 1),
    "a lambda handed to a function that jits its loop with the callables static, in a loop": ({
        "loops.py": _MAKES_ITS_JIT,
        "use.py": _looping("for _ in range(3):", "    y = bounded_loop(lambda v: v * 0.5, y, 4)"),
    }, [("use.py", 6, "JC104")], 3, 1),
    "the same, the lambda made once before the loop: one compile (the fix)": ({
        "loops.py": _MAKES_ITS_JIT,
        "use.py": _looping("body = lambda v: v * 0.5", "for _ in range(3):", "    y = bounded_loop(body, y, 4)"),
    }, [], 1, 1),
    # -- a loop that configures the object it reads its arguments from --------------------------------
    "a loop that sets an attribute of the object whose property it passes: another system each pass": ({
        "sim.py": """\
            import jax
            import numpy as np
            def run_sim(params):
                n = params["n"]
                @jax.jit
                def sim(x):
                    return x * 2.0
                return sim(np.ones(n, np.float32))
            def run_md(params):
                return run_sim(params)
            """,
        "use.py": """\
            from pkg.sim import run_md
            class Node:
                def __init__(self):
                    self.sizes = [3, 4, 5]
                    self.data_id = 0
                @property
                def parameter(self):
                    return {"n": self.sizes[self.data_id]}
                def run(self):
                    for i in range(len(self.sizes)):
                        self.data_id = i
                        run_md(self.parameter)
            def run():
                Node().run()
            """,
    }, [], 3, 3),
    # -- another module's factory of new jitted functions ---------------------------------------------
    "another module's factory returning a new jit with its indices, unpacked and called in a loop": ({
        "ops.py": _GATHERS,
        "use.py": _GATHER_LOOP,
    }, [("ops.py", 6, "JC105")], 3, 1),  # reported at the factory's jit, where the fix is (one finding, not two)
    "another module's transformation of the function it is handed, applied in a loop: judged at the call": ({
        "ops.py": _DOUBLING,
        "use.py": _DOUBLING_LOOP,
    }, [("use.py", 8, "JC703")], 3, 1),
    "the same transformation applied once before the loop: one compile (the fix)": ({
        "ops.py": _DOUBLING,
        "use.py": _DOUBLING_LOOP.replace("    for _ in range(3):\n        x = doubled(_half)(x)\n",
                                         "    step = doubled(_half)\n    for _ in range(3):\n        x = step(x)\n"),
    }, [], 1, 1),
    "the same factory under functools.cache, called in the loop: one product per mask, one compile": ({
        "ops.py": "import functools\n" + _GATHERS.replace("def make_gather", "@functools.cache\ndef make_gather"),
        "use.py": _GATHER_LOOP,
    }, [], 1, 1),
    "the same factory called once before the loop: one compile (the fix)": ({
        "ops.py": _GATHERS,
        "use.py": _GATHER_LOOP.replace("    for _ in range(3):\n        fn, kept = make_gather((1, 0, 1))\n",
                                       "    fn, kept = make_gather((1, 0, 1))\n    for _ in range(3):\n"),
    }, [], 1, 1),
    # -- a wrapper used by a closure that dies with the call -----------------------------------------
    "a jit used by a closure handed to a solver, in a function another module calls in a loop": ({
        "ops.py": _DESCENT,
        "use.py": _DESCENT_LOOP,
    }, [("ops.py", 12, "JC701")], 3, 1),
    "the same jit built once at module level: one compile (the fix)": ({
        "ops.py": _DESCENT.replace("def fit(w, x):\n    step = jax.jit(jax.value_and_grad(_loss))\n",
                                   "step = jax.jit(jax.value_and_grad(_loss))\ndef fit(w, x):\n"),
        "use.py": _DESCENT_LOOP,
    }, [], 1, 1),
    # -- a loop that runs again only after a failure -------------------------------------------------
    "a retry loop that rebuilds its jit after an out-of-memory failure: one attempt succeeds": ({
        "use.py": """\
            import jax
            import numpy as np
            def _one(v):
                return v * 2.0
            def _attempt(fn, x, batch):
                if batch is None:
                    raise MemoryError("RESOURCE_EXHAUSTED")  # stands for the device running out of memory
                return fn(x)
            def run():
                x = np.ones((4, 3), np.float32)
                batch = None
                while True:
                    try:
                        fn = jax.jit(jax.vmap(_one))
                        return _attempt(fn, x, batch)
                    except MemoryError:
                        batch = 2 if batch is None else batch // 2
            """,
    }, [], 1, 1),
    "the same jit rebuilt on every pass of a loop that goes on after success: a compile each pass": ({
        "use.py": """\
            import jax
            import numpy as np
            def _one(v):
                return v * 2.0
            def run():
                x = np.ones((4, 3), np.float32)
                for _ in range(3):
                    try:
                        fn = jax.jit(lambda p: jax.lax.map(_one, p, batch_size=2))
                        x = np.asarray(fn(x))
                    except MemoryError:
                        break
            """,
    }, [("use.py", 9, "JC104")], 3, 1),
    # -- numbers written out one by one, each made into an object of a class ---------------------------
    "a bound method of an object a class builds from each of a literal's numbers: a configuration each": ({
        "use.py": """\
            import jax
            import jax.numpy as jnp
            import numpy as np
            class Prior:
                def __init__(self, alpha):
                    self.alpha = alpha
                def log_prob(self, x):
                    if self.alpha == -1.0:  # a branch on the value: another program
                        return -jnp.log(x)
                    return self.alpha * jnp.log(x)
            def run():
                x = np.ones(3, np.float32)
                for alpha in [-1.0, 2.0]:
                    p = Prior(alpha)
                    jax.jit(p.log_prob)(x)
            """,
    }, [], 2, 2),
    # -- a callable rebound through a conditional wrapper ------------------------------------------------
    "a nested def kept or checkpointed by a conditional, then jitted, on every call in a loop": ({
        "use.py": """\
            import jax
            import numpy as np
            def _square(v):
                return v * v
            def value(f, x, checkpoint=False):
                def flat(z):
                    return f(z).sum()
                flat = jax.checkpoint(flat) if checkpoint else flat
                flat = jax.jit(flat)
                return flat(x)
            def run():
                x = np.ones(3, np.float32)
                for _ in range(3):
                    value(_square, x)
            """,
    }, [("use.py", 9, "JC105")], 3, 1),
    # -- a loop around a loop of different computations, changing nothing they read ----------------------
    "each configuration's closure rebuilt on every pass of an outer loop that changes nothing it reads": ({
        "use.py": """\
            import jax
            import numpy as np
            def make(scale):
                def f(x):
                    return x * scale
                return f
            def run():
                x = np.ones(3, np.float32)
                for phase in range(2):
                    for name in ("a", "bb"):
                        jax.jit(make(len(name)))(x)
            """,
    }, [("use.py", 11, "JC703")], 4, 2),
    "an outer loop over dtypes changing the argument: another program on every pass": ({
        "use.py": """\
            import jax
            import numpy as np
            def make(scale):
                def f(x):
                    return x * scale
                return f
            def run():
                for dtype in (np.float32, np.int32):
                    x = np.ones(3, dtype)
                    for name in ("a", "bb"):
                        jax.jit(make(len(name)))(x)
            """,
    }, [], 4, 4),
    # -- jitted static methods of another module's class -------------------------------------------------
    "a lambda as the static argument of another module's jitted static method, in a loop": ({
        "ops.py": """\
            import functools
            import jax
            class Ops:
                @staticmethod
                @functools.partial(jax.jit, static_argnames=("fn",))
                def apply(y, fn):
                    return fn(y)
            """,
        "use.py": """\
            import numpy as np
            from pkg.ops import Ops
            def run():
                for _ in range(3):
                    Ops.apply(np.ones(3, np.float32), fn=lambda v: v + 1)
            """,
    }, [("use.py", 5, "JC104")], 3, 1),
    # -- missed bugs --------------------------------------------------------------------------------
    "a lambda static argument of a jitted function of another module, called through its module": ({
        "util.py": """\
            import functools
            from jax import jit
            @functools.partial(jit, static_argnums=(1,))
            def masked_apply(m, fn, y):
                return fn(y) * m
            """,
        "use.py": """\
            import numpy as np
            from pkg import util
            def run():
                y = np.ones(3, np.float32)
                for _ in range(3):
                    y = util.masked_apply(2.0, lambda v: v + 1, y)
            """,
    }, [("use.py", 6, "JC104")], 3, 1),
    "a lambda by position where another module's module-level jit names its parameter static": ({
        "util.py": """\
            import jax
            def _apply(y, fn):
                return fn(y)
            apply = jax.jit(_apply, static_argnames=("fn",))
            """,
        "use.py": """\
            import numpy as np
            from pkg import util
            def run():
                for _ in range(3):
                    util.apply(np.ones(3, np.float32), lambda v: v + 1)
            """,
    }, [("use.py", 5, "JC104")], 3, 1),
    "the same lambda passed twice as a static argument, in a test that runs once": ({
        "util.py": """\
            import functools
            import jax
            @functools.partial(jax.jit, static_argnames=("fn",))
            def apply(y, fn):
                return fn(y)
            """,
        "use.py": """\
            import numpy as np
            from pkg.util import apply
            def test_apply():
                a = 2.0
                apply(np.ones(3, np.float32), fn=lambda v: v * a)  # reads `a`: the same text may not be one computation
                apply(np.ones(3, np.float32), fn=lambda v: v + 1)
                apply(np.ones(3, np.float32), fn=lambda v: v + 1)
                apply(np.ones(3, np.float32), fn=lambda v: v - 1)
            run = test_apply
            """,
    }, [("use.py", 6, "JC104"), ("use.py", 7, "JC104")], 4, 3),
    "the same lambda passed twice beside another static flag: two programs, each compiled once": ({
        "util.py": """\
            import functools
            import jax
            @functools.partial(jax.jit, static_argnames=("fn", "twice"))
            def apply(y, fn, twice=False):
                return fn(fn(y)) if twice else fn(y)
            """,
        "use.py": """\
            import numpy as np
            from pkg.util import apply
            def test_apply():
                x = np.ones(3, np.float32)
                apply(x, fn=lambda v: v + 1, twice=True)
                apply(x, fn=lambda v: v + 1)
                apply(x, fn=lambda v: v * 2, twice=True)
                apply(x, fn=lambda v: v * 2, twice=True)
            run = test_apply
            """,
    }, [("use.py", 7, "JC104"), ("use.py", 8, "JC104")], 4, 3),
    "a loop over lambdas as static arguments, in a function called again and again": ({
        "use.py": """\
            import functools
            import jax
            import numpy as np
            @functools.partial(jax.jit, static_argnums=(1,))
            def apply(y, fn):
                return fn(y)
            def sweep(x):
                for fn in (lambda v: v + 1, lambda v: v * 2):  # two programs per call, built anew by each call
                    apply(x, fn)
            def once(x):
                for fn in (lambda v: v - 1, lambda v: v / 2):
                    apply(x, fn)
            def run():
                for _ in range(3):
                    sweep(np.ones(3, np.float32))
                once(np.ones(3, np.float32))
            """,
    }, [("use.py", 9, "JC104")], 8, 4),
    "a factory reached through a star import in the checking module": ({
        "m.py": """\
            def make_step(t):
                def step(x):
                    return x * t
                return step
            """,
        "use.py": """\
            import jax
            import numpy as np
            from .m import *
            def run():
                for t in (1.0, 2.0, 3.0):
                    jax.jit(make_step(t))(np.ones(3, np.float32))
            """,
    }, [("use.py", 6, "JC703")], 3, 1),
    "a factory reached through a two-level star chain": ({
        "m.py": """\
            def make_step(t):
                return lambda x: x * t
            """,
        "m1.py": "from .m import *\n",
        "m2.py": "from .m1 import *\n",
        "use.py": """\
            import jax
            import numpy as np
            from .m2 import make_step
            def run():
                for t in (1.0, 2.0, 3.0):
                    jax.jit(make_step(t))(np.ones(3, np.float32))
            """,
    }, [("use.py", 6, "JC703")], 3, 1),
    "jit reached through an alias module": ({
        "backend/__init__.py": "from . import ops\n",
        "backend/ops.py": "import jax\njit = jax.jit\n",
        "use.py": """\
            import numpy as np
            from pkg import backend
            ops = backend.ops
            def run():
                for _ in range(3):
                    @ops.jit
                    def f(y):
                        return y + 1
                    f(np.ones(3, np.float32))
            """,
    }, [("use.py", 6, "JC105")], 3, 1),
    "jit under another name in a module of the run": ({
        "backend.py": "import jax\ncompile_fn = jax.jit\n",
        "use.py": """\
            import numpy as np
            from pkg.backend import compile_fn
            def run():
                for _ in range(3):
                    compile_fn(lambda y: y * 2)(np.ones(3, np.float32))
            """,
    }, [("use.py", 5, "JC104")], 3, 1),
    "jit reached through a function of the run that returns a jit of what it is handed": ({
        "backend.py": """\
            import jax
            def compiled(fn, **options):
                return jax.jit(fn, **options)
            def traced(fn):
                step = jax.jit(fn)
                def call(*args):
                    return step(*args)
                return call
            """,
        "use.py": """\
            import numpy as np
            from pkg.backend import compiled, traced
            def double(y):
                return y * 2
            def run():
                for _ in range(3):
                    compiled(lambda y: y * 2)(np.ones(3, np.float32))
                    traced(double)(np.ones(3, np.float32))  # the same function: jax finds its compile again
            """,
    }, [("use.py", 7, "JC104")], 4, 2),
    "a wrapper bound by a walrus in a loop": ({
        "use.py": """\
            import jax
            import numpy as np
            def run():
                for _ in range(3):
                    (f := jax.jit(lambda x: x + 1))(np.ones(3, np.float32))
            """,
    }, [("use.py", 5, "JC104")], 3, 1),
    "a nested def defined in two branches, then jitted in a loop": ({
        "use.py": """\
            import jax
            import numpy as np
            def run(up=True):
                for _ in range(3):
                    if up:
                        def h(x):
                            return x + 1
                    else:
                        def h(x):
                            return x - 1
                    jax.jit(h)(np.ones(3, np.float32))
            """,
    }, [("use.py", 11, "JC105")], 3, 1),
    "a nested jit in a function another module calls in a loop": ({
        "fit.py": """\
            import jax
            def fit(data, steps):
                @jax.jit
                def step(x):
                    return x * 2
                for _ in range(steps):
                    data = step(data)
                return data
            """,
        "use.py": """\
            import numpy as np
            from pkg.fit import fit
            def run():
                return [fit(np.ones(3, np.float32), 2) for _ in range(3)]
            """,
    }, [("fit.py", 3, "JC105")], 3, 1),
    "a callable built before the loop, in a function called again and again": ({
        "use.py": """\
            import functools
            import jax
            import numpy as np
            def loss(x, s):
                return x * s
            def fit(xs):
                g = functools.partial(loss, s=2.0)
                for x in xs:
                    jax.jit(g)(x)
            def run():
                for _ in range(3):
                    fit([np.ones(3, np.float32), np.ones(3, np.float32)])
            """,
    }, [("use.py", 9, "JC102")], 3, 1),
    "a base class's method, run in a loop on an instance of a class defined in the function": ({
        "model.py": """\
            import jax
            class Model:
                def get_map(self):
                    def double(x):
                        return x * 2.0
                    return double
                def update(self, x):
                    apply = jax.jit(jax.vmap(self.get_map()))
                    return apply(x)
            """,
        "use.py": """\
            import numpy as np
            from pkg.model import Model
            def run():
                class Local(Model):
                    def describe(self):
                        return "local"
                problem = Local()
                x = np.ones((3, 2), np.float32)
                for _ in range(3):
                    x = problem.update(x)
            """,
    }, [("model.py", 8, "JC703")], 3, 1),  # `self.get_map()`, a new function per call inside the rebuilt vmap
    "a method of the class a constructor makes when given none, through an attribute declared as its base": ({
        "parts.py": _PARTS,
        "runner.py": _RUNNER.format(made="PlainPart"),
        "use.py": _RUN_RUNNER,
    }, [("parts.py", 8, "JC105")], 3, 1),
    "a subclass's override run by its base's own loop over self.step()": ({
        "loop.py": """\
            class Loop:
                def step(self, x):
                    raise NotImplementedError
                def run(self, x, steps):
                    for _ in range(steps):
                        x = self.step(x)
                    return x
            """,
        "fitter.py": """\
            import jax
            from pkg.loop import Loop
            class Fitter(Loop):
                def __init__(self, scale):
                    self.scale = scale
                def step(self, x):
                    @jax.jit
                    def update(v):
                        return v * self.scale
                    return update(x)
            """,
        "use.py": """\
            import numpy as np
            from pkg.fitter import Fitter
            def run():
                Fitter(0.5).run(np.ones(3, np.float32), 3)
            """,
    }, [("fitter.py", 7, "JC105")], 3, 1),
    "a base that calls self.step() once: the override runs once per call of the base's method": ({
        "loop.py": """\
            class Loop:
                def step(self, x):
                    raise NotImplementedError
                def run_once(self, x):
                    return self.step(x)
            """,
        "fitter.py": """\
            import jax
            from pkg.loop import Loop
            class Fitter(Loop):
                def __init__(self, scale):
                    self.scale = scale
                def step(self, x):
                    @jax.jit
                    def update(v):
                        return v * self.scale
                    return update(x)
            """,
        "use.py": """\
            import numpy as np
            from pkg.fitter import Fitter
            def run():
                Fitter(0.5).run_once(np.ones(3, np.float32))
            """,
    }, [], 1, 1),
    "a base's single self.step() reached from a loop over other objects: a different program each time": ({
        "loop.py": """\
            class Loop:
                def step(self, x):
                    raise NotImplementedError
                def run_once(self, x):
                    return self.step(x)
            """,
        "fitter.py": """\
            import jax
            from pkg.loop import Loop
            class Fitter(Loop):
                def __init__(self, scale):
                    self.scale = scale
                def step(self, x):
                    @jax.jit
                    def update(v):
                        return v * self.scale
                    return update(x)
            """,
        "use.py": """\
            import numpy as np
            from pkg.fitter import Fitter
            def run():
                x = np.ones(3, np.float32)
                for child in (Fitter(0.5), Fitter(2.0)):
                    x = child.run_once(x)
            """,
    }, [], 2, 2),
    "the default a constructor makes is another subclass: the look-alike's method never runs": ({
        "parts.py": _PARTS + _QUIET_PART,
        "runner.py": _RUNNER.format(made="QuietPart"),
        "use.py": _RUN_RUNNER,
    }, [], 1, 1),
    # -- the same callable re-wrapped: no new cache key -------------------------------------------------
    "a local class that overrides the method: the base's method never runs": ({
        "model.py": """\
            import jax
            class Model:
                def get_map(self):
                    def double(x):
                        return x * 2.0
                    return double
                def update(self, x):
                    apply = jax.jit(jax.vmap(self.get_map()))
                    return apply(x)
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg.model import Model
            halve = jax.jit(lambda x: x / 2.0)
            def run():
                class Local(Model):
                    def update(self, x):
                        return halve(x)
                problem = Local()
                x = np.ones((3, 2), np.float32)
                for _ in range(3):
                    x = problem.update(x)
            """,
    }, [], 1, 1),
    "a callable built once before the loop": ({
        "use.py": """\
            import functools
            import jax
            import numpy as np
            def loss(x, s):
                return x * s
            def run():
                g = functools.partial(loss, s=2.0)
                h = lambda x: x + 1
                for _ in range(3):
                    jax.jit(g)(np.ones(3, np.float32))
                    jax.jit(h)(np.ones(3, np.float32))
            """,
    }, [], 2, 2),
    "a bound method the constructor stores, of a part it builds, jitted on a new instance per iteration": ({
        "parts.py": _DIAG,
        "use.py": "import jax\nimport numpy as np\nfrom pkg.parts import Diag\n" + _DIAG_LOOP,
    }, [("use.py", 7, "JC101")], 3, 1),
    "a bound method the constructor stores, of a part it builds, in the module that loops": ({
        "use.py": "import jax\nimport numpy as np\n" + _DIAG + _DIAG_LOOP,
    }, [("use.py", 15, "JC101")], 3, 1),
    "a plain function the constructor stores, jitted on a new instance per iteration": ({
        "parts.py": """\
            def inverse(y):
                return y / 2.0
            class Scale:
                def __init__(self, d):
                    self.d = d
                    self.inverse = inverse
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg.parts import Scale
            def run():
                for i in range(3):
                    bij = Scale(i)
                    jax.jit(bij.inverse)(np.ones(3, np.float32))
            """,
    }, [], 1, 1),
    "a function registered as an event handler, through a partial, calls a helper that jits per call": ({
        "events.py": _EVENTS,
        "use.py": "import functools\n" + _WINDOW_ENV + textwrap.dedent("""\
            def step(env, action):
                return jax.jit(env.step_env)(np.full(3, action, np.float32))
            def key_handler(env, event):
                if event == "left":
                    step(env, 0.0)
                elif event == "right":
                    step(env, 1.0)
            def run():
                window = Window()
                window.reg_key_handler(functools.partial(key_handler, Env()))
                window.show()
            """),
    }, [("use.py", 9, "JC101")], 3, 1),
    "a method registered as an event handler, calling a method that jits per call": ({
        "events.py": _EVENTS,
        "use.py": _WINDOW_ENV + textwrap.dedent("""\
            class App:
                def __init__(self):
                    self.env = Env()
                def run(self):
                    window = Window()
                    window.reg_key_handler(self._handle_input)
                    window.show()
                def _handle_input(self, event):
                    self._step(1.0 if event == "right" else 0.0)
                def _step(self, action):
                    return jax.jit(self.env.step_env)(np.full(3, action, np.float32))
            def run():
                App().run()
            """),
    }, [("use.py", 17, "JC101")], 3, 1),
    "a function registered to run at exit runs once": ({
        "use.py": """\
            import atexit
            import jax
            import numpy as np
            class Env:
                def step_env(self, x):
                    return x * 2.0
            def report(env):
                return jax.jit(env.step_env)(np.ones(3, np.float32))
            def finish():
                report(Env())
            def run():
                atexit.register(finish)
                finish()  # what the interpreter does once at exit
            """,
    }, [], 1, 1),
    "a bound method of one receiver as a static argument in a loop is found again": ({
        "use.py": _static_apply("""\
            def run():
                model = Model()
                for _ in range(3):
                    update(model.apply, np.ones(3, np.float32))
            """),
    }, [], 1, 1),
    "a bound method of a receiver built per iteration as a static argument": ({
        "use.py": _static_apply("""\
            def run():
                for _ in range(3):
                    update(Model().apply, np.ones(3, np.float32))
            """),
    }, [("use.py", 12, "JC101")], 3, 1),
    "a lambda passed to another module's equinox.filter_jit function in a loop": ({
        "ops.py": _FILTERED,
        "use.py": "import numpy as np\nfrom pkg.ops import masked_apply\n" + _FILTERED_LOOP,
    }, [("use.py", 5, "JC104")], 3, 1),
    "a lambda passed to an equinox.filter_jit function of the same module in a loop": ({
        "use.py": "import numpy as np\n" + _FILTERED + _FILTERED_LOOP,
    }, [("use.py", 8, "JC104")], 3, 1),
    "a module-level function and arrays passed to an equinox.filter_jit function in a loop": ({
        "ops.py": """\
            import equinox as eqx
            @eqx.filter_jit
            def masked_apply(m, fn, ys):
                return [fn(y) * m for y in ys]
            def double(x):
                return x * 2
            """,
        "use.py": """\
            import numpy as np
            from pkg.ops import double, masked_apply
            def run():
                for i in range(3):
                    masked_apply(np.float32(i), double, [np.ones(3, np.float32), np.full(3, i, np.float32)])
            """,
    }, [], 1, 1),
    "a nested def passed to a filter_jit wrapper of the same module, in a function called in a loop": ({
        "use.py": """\
            import equinox as eqx
            import numpy as np
            def apply(fn, y):
                return fn(y)
            apply_jit = eqx.filter_jit(apply)
            def step(y, scale):
                def f(x):
                    return x * scale
                return apply_jit(f, y)
            def run():
                for _ in range(3):
                    step(np.ones(3, np.float32), np.float32(2.0))
            """,
    }, [("use.py", 9, "JC105")], 3, 1),
    "a bound method of what an unannotated helper of the same module builds, jitted per iteration": ({
        "use.py": "import jax\nimport numpy as np\n" + _MODELS + _MADE_LOOP,
    }, [("use.py", 20, "JC101")], 3, 1),
    "a bound method of what an unannotated helper of another module builds, jitted per iteration": ({
        "models.py": _MODELS,
        "use.py": "import jax\nimport numpy as np\nfrom pkg.models import make\n" + _MADE_LOOP,
    }, [("use.py", 7, "JC101")], 3, 1),
    "a stored plain function of what an unannotated helper builds, jitted per iteration": ({
        "models.py": _MODELS,
        "use.py": _MADE_LOOP.replace("m = make(2.0)", "m = make_plain()").replace(
            "def run", "import jax\nimport numpy as np\nfrom pkg.models import make_plain\ndef run"),
    }, [], 1, 1),
    "bound methods of objects a classmethod, a copy and a method build, jitted per iteration": ({
        "use.py": _BUILT + textwrap.dedent("""\
            def run():
                base = Model(2.0)
                for _ in range(3):
                    jax.jit(Model.create(2.0).apply)(np.ones(3, np.float32))
                    jax.jit(dataclasses.replace(base, s=2.0).apply)(np.ones(3, np.float32))
                    jax.jit(base.clone().apply)(np.ones(3, np.float32))
            """),
    }, [("use.py", 25, "JC101"), ("use.py", 26, "JC101"), ("use.py", 27, "JC101")], 9, 1),
    "a bound method of what another module's classmethod builds, jitted per iteration": ({
        "built.py": _BUILT,
        "use.py": """\
            import jax
            import numpy as np
            from pkg.built import Model
            def run():
                for _ in range(3):
                    jax.jit(Model.create(2.0).apply)(np.ones(3, np.float32))
            """,
    }, [("use.py", 6, "JC101")], 3, 1),
    "a method of what another module's classmethod builds, called in a loop, jits a nested def per call": ({
        "trainer.py": """\
            import jax
            class Trainer:
                def __init__(self, lr):
                    self.lr = lr
                def step(self, x):
                    @jax.jit
                    def update(v):
                        return v * 0.1
                    return update(x)
                @classmethod
                def create(cls):
                    return cls(0.1)
            """,
        "use.py": """\
            import numpy as np
            from pkg.trainer import Trainer
            def run():
                trainer = Trainer.create()
                for _ in range(3):
                    trainer.step(np.ones(3, np.float32))
            """,
    }, [("trainer.py", 6, "JC105")], 3, 1),
    "a stored plain function of an object a classmethod builds, jitted per iteration": ({
        "use.py": _BUILT + textwrap.dedent("""\
            def run():
                for _ in range(3):
                    jax.jit(Plain.create().apply)(np.ones(3, np.float32))
            """),
    }, [], 1, 1),
    "a plain object of another module's class built per iteration as a static argument": ({
        "options.py": _OPTIONS,
        "use.py": "from pkg.options import Options\n" + _OPTIONS_LOOP.format(made="Options(2.0)"),
    }, [("use.py", 10, "JC206")], 3, 1),
    "a value-compared object of another module's class built per iteration as a static argument": ({
        "options.py": _OPTIONS,
        "use.py": "from pkg.options import Hashed\n" + _OPTIONS_LOOP.format(made="Hashed(2.0)"),
    }, [], 1, 1),
    "a helper a function defines and calls in a loop, calling another module's function jitting per call": ({
        "lib.py": _JITTING_HELPER,
        "use.py": """\
            import numpy as np
            from pkg.lib import helper
            def run():
                def go(x):
                    return helper(x)
                for _ in range(3):
                    go(np.ones(3, np.float32))
            """,
    }, [("lib.py", 3, "JC104")], 3, 1),
    "map() over a list calls another module's function that jits per call once per item": ({
        "lib.py": _JITTING_HELPER,
        "use.py": """\
            import numpy as np
            from pkg.lib import helper
            def run():
                xs = [np.ones(3, np.float32)] * 3
                return list(map(helper, xs))
            """,
    }, [("lib.py", 3, "JC104")], 3, 1),
    "a local alias of another module's function that jits per call, called in a loop": ({
        "lib.py": _JITTING_HELPER,
        "use.py": """\
            import numpy as np
            from pkg.lib import helper
            def run():
                f = helper
                for _ in range(3):
                    f(np.ones(3, np.float32))
            """,
    }, [("lib.py", 3, "JC104")], 3, 1),
    "a method of a class defined in a function, called on its instance in a loop, jits a nested def": ({
        "use.py": _LOCAL_PROBLEM.format(
            set="problem.dt = float(i)  # set on each pass, but nothing the jit's function reads"),
    }, [("use.py", 10, "JC105")], 3, 1),
    "the same, the loop setting an attribute the method reads: a different constant each pass": ({
        "use.py": _LOCAL_PROBLEM.format(set="problem.dim = float(i)"),
    }, [], 3, 3),
    "a plain function stored in a functional namedtuple": ({
        "fns.py": """\
            import collections
            def loss(x):
                return x * 2
            Fns = collections.namedtuple("Fns", ["f", "g"])
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg.fns import Fns, loss
            def run():
                fns = Fns(loss, loss)
                for _ in range(3):
                    jax.jit(fns.f)(np.ones(3, np.float32))
            """,
    }, [], 1, 1),
    "a transform returning a NamedTuple of functions, through a T -> T helper": ({
        "nets.py": """\
            from typing import Callable, NamedTuple, TypeVar
            class Transformed(NamedTuple):
                init: Callable
                apply: Callable
            T = TypeVar("T")
            def transform(f) -> Transformed:
                def init(x):
                    return x
                def apply(params, x):
                    return f(x) * params
                return Transformed(init, apply)
            def without_rng(t: T) -> T:
                return t
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg import nets
            def forward(x):
                return x + 1
            def run():
                model = nets.without_rng(nets.transform(forward))
                for _ in range(3):
                    jax.jit(model.apply)(2.0, np.ones(3, np.float32))
            """,
    }, [], 1, 1),
    "equinox.filter_jit of pytree partials, built per iteration": ({
        "parts.py": """\
            import equinox as eqx
            def loss(x, a):
                return x * a
            def make(a):
                return eqx.Partial(loss, a)
            """,
        "use.py": """\
            import equinox as eqx
            import jax
            import numpy as np
            from pkg.parts import loss, make
            def run():
                a = np.ones(3, np.float32)
                for _ in range(3):
                    eqx.filter_jit(make(a))(np.ones(3, np.float32))
                    eqx.filter_jit(eqx.Partial(loss, a))(np.ones(3, np.float32))
                    eqx.filter_jit(jax.tree_util.Partial(loss, a))(np.ones(3, np.float32))
            """,
    }, [], 2, 2),
    "a factory's tuple of new functions, unpacked and jitted on every iteration": ({
        "util.py": """\
            def make_step(scale):
                def init(x):
                    return x
                def apply(x):
                    return x * scale
                return init, apply
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg import util
            def run():
                x = np.ones(3, np.float32)
                init, apply = util.make_step(2.0)
                for t in range(3):
                    x = jax.jit(apply)(x)  # unpacked once, before the loop: the same function each time
                for t in range(3):
                    init, apply = util.make_step(float(t))
                    x = jax.jit(apply)(x)
            """,
    }, [("use.py", 11, "JC703")], 4, 1),
    "a wrapper bound to a name and called only inside a jitted closure is inlined, not compiled": ({
        "use.py": """\
            import jax
            import numpy as np
            def make(scale):
                def apply(x):
                    return x * scale
                return apply
            def minimise(x, scale):
                apply = jax.jit(make(scale))  # only called while `body` is traced: inlined, no compile of its own
                @jax.jit
                def body(x):
                    return apply(x) + 1
                return body(x)
            def run():
                x = np.ones(3, np.float32)
                for _ in range(3):
                    x = minimise(x, 2.0)
            """,
    }, [("use.py", 9, "JC105")], 3, 1),
    "a factory's tuple unpacked: a record's function field is one function, a method a new bound method": ({
        "util.py": """\
            import dataclasses
            from typing import Callable, Tuple
            @dataclasses.dataclass(frozen=True)
            class Fns:
                update: Callable
            Record = Fns
            class Stepper:
                def step(self, x):
                    return x * 2.0
            def _update(x):
                return x + 1.0
            def make() -> Tuple[Record, Callable]:
                return Fns(_update), _update
            def make_stepper():
                return Stepper(), _update
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg import util
            def run():
                x = np.ones(3, np.float32)
                fns, energy = util.make()
                fns, energy = util.make()
                for _ in range(3):
                    x = jax.jit(fns.update)(x)  # a field: the same function each time
                stepper, energy = util.make_stepper()
                for _ in range(3):
                    x = jax.jit(stepper.step)(x)
            """,
    }, [("use.py", 12, "JC101")], 4, 2),
    "an unknown object's attribute jitted per pass: a method, unless named as a function field": ({
        "util.py": """\
            import collections
            Optimizer = collections.namedtuple("Optimizer", ["init", "update"])
            class Env:
                def step(self, x):
                    return x * 2.0
            def _update(x):
                return x + 1.0
            MADE = {"env": Env, "sgd": lambda: Optimizer(_update, _update)}
            def build(kind):
                return MADE[kind]()
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg.util import build
            def run():
                x = np.ones(3, np.float32)
                env = build("env")
                for _ in range(3):
                    x = jax.jit(env.step)(x)
                opt = build("sgd")
                for _ in range(3):
                    x = jax.jit(opt.update)(x)  # a record's field: one function (a guess, --preview only)
            """,
    }, [("use.py", 8, "JC107")], 4, 2),
    "a closure over weights a progress-bar loop updates: data, the same program each epoch": ({
        "use.py": """\
            import jax
            import numpy as np
            from tqdm import tqdm
            def validate(params, x):
                @jax.jit
                def loss(v):
                    return (v * params).sum()
                return loss(x)
            def run():
                params = np.ones(3, np.float32)
                x = np.ones(3, np.float32)
                for _ in tqdm(range(3), disable=True):
                    params = params * np.float32(0.5)
                    validate(params, x)
            """,
    }, [("use.py", 5, "JC105")], 3, 1),
    "brainstate's grad rebuilt per call: a new GradientTransform, a new brainstate jit key": ({
        "use.py": """\
            import brainstate
            import numpy as np
            def loss(x):
                return (x ** 2).sum()
            def fit(x):
                return brainstate.transform.jit(brainstate.transform.grad(loss))(x)
            def run():
                x = np.ones(3, np.float32)
                for _ in range(3):
                    fit(x)
            """,
    }, [("use.py", 6, "JC701")], 3, 1),
    # -- a loop over numbers handing on arrays: of one size (data), or selected by a mask (another size each pass) --
    "an array of one size handed on each pass of a loop over numbers, to another module's rebuilt jit": ({
        "fit.py": _FIT,
        "use.py": _calibrating("fit(2.0, flux_all * it)"),
    }, [("fit.py", 5, "JC105")], 3, 1),
    "an array selected by a mask made on each pass, handed to another module's rebuilt jit": ({
        "fit.py": _FIT,
        "use.py": _calibrating("msel = (flux_all > it) & (flux_all < 10.0)", "members = flux_all[msel]",
                               "fit(2.0, members)"),
    }, [], 3, 3),
    # -- a factory's product as another module's static argument; two calls alike among calls that differ --
    "a factory's product handed as another module's static argument, beside plain names": ({
        "solver.py": _SOLVER,
        "use.py": """\
            import numpy as np
            from pkg.solver import make_coupling, solve
            def run():
                x = np.ones(3, np.float32)
                for _ in range(3):
                    coupling = make_coupling(np.float32(2.0))
                    solve(x, coupling=coupling)
            """,
    }, [("use.py", 7, "JC703")], 3, 1),
    "a jitted def a factory returns, its product used at once in a loop of its module": ({
        "metrics.py": """\
            import jax
            import jax.numpy as jnp
            def correlation_metric(threshold):
                @jax.jit
                def metric(arr, truth):
                    return jnp.sum(jnp.where(jnp.abs(truth) > threshold, jnp.abs(arr - truth), 0.0))
                return metric
            def summary(arr, truth):
                return [correlation_metric(0.5)(arr, truth) for _ in range(3)]
            """,
        "use.py": """\
            import numpy as np
            from pkg.metrics import summary
            def run():
                arr = np.ones(3, np.float32)
                summary(arr, arr)
            """,
    }, [("metrics.py", 4, "JC105")], 3, 1),
    "a helper another module calls in a loop over one literal item: it runs once": ({
        "metrics.py": """\
            import jax
            def scaled(x, threshold):
                return jax.jit(lambda v: v * threshold)(x)
            """,
        "use.py": """\
            import numpy as np
            from pkg.metrics import scaled
            def summary(x):
                return [scaled(x, threshold) for threshold in [0.5]]
            def run():
                summary(np.ones(3, np.float32))
            """,
    }, [], 1, 1),
    "a helper called alike twice in one run, beside a call with other values": ({
        "solver.py": _SOLVER,
        "use.py": _simulating("h = np.float32(2.0)", "first = simulate(h, x)", "again = simulate(h, x)",
                              "other = simulate(np.float32(3.0), x)"),
    }, [("use.py", 4, "JC703")], 3, 2),
    "a helper called twice with a name rebound between the calls: two values, not alike": ({
        "solver.py": _SOLVER,
        "use.py": _simulating("first = simulate(np.float32(2.0), x)", "x = np.ones(4, np.float32)",
                              "again = simulate(np.float32(2.0), x)"),
    }, [], 2, 2),
    # -- a pytree whose aux data is new for every object (JC208) ---------------------------------------
    "another module's pytree keeping a new payload in its aux data, passed to a jit cell after cell": ({
        "cells.py": _CELLS,
        "use.py": _CELL_WIDTHS,
    }, [("use.py", 5, "JC208")], 3, 1),
    "another module's loop passing cell after cell to the jit": ({
        "cells.py": _CELLS, "ops.py": _CELL_OPS, "use.py": _cell_loop("width(cell)"),
    }, [("ops.py", 5, "JC208")], 3, 1),
    "another module's loop passing cell after cell to a function that hands its cell on to the jit": ({
        "cells.py": _CELLS, "ops.py": _CELL_OPS, "use.py": _cell_loop("measure(cell)"),
    }, [("ops.py", 5, "JC208")], 3, 1),
    "a loop passing one cell again and again to that function: one compile": ({
        "cells.py": _CELLS, "ops.py": _CELL_OPS, "use.py": _cell_loop("measure(cells[0])"),
    }, [], 1, 1),
    "the same, the payload and the bounds among the children: one compile (the fix)": ({
        "cells.py": "import jax\n" + PAYLOAD + PAYLOAD_TREE + CELL + CELL_CHILDREN,
        "use.py": _CELL_WIDTHS,
    }, [], 1, 1),
}

UNHASHABLE: dict[str, tuple[str, int, str]] = {
    "a loop variable over unhashable items as a static argument": ("""\
        import functools
        import jax
        import numpy as np
        @functools.partial(jax.jit, static_argnums=(1,))
        def power(y, k):
            return y * len(str(k))
        def run():
            for k in range(3):
                power(np.ones(3, np.float32), k)  # an int per iteration: a different program each time, fine
            for k in ((1,), (2, 3)):
                power(np.ones(3, np.float32), k)
            for k in ([1], [2, 3]):
                power(np.ones(3, np.float32), k)
        """, "use.py", 13, "JC202"),
}


class Compiles:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: str, duration_secs: float, **_: object) -> None:
        if event == COMPILE:
            self.count += 1


@pytest.fixture
def compiles() -> Iterator[Compiles]:
    counter = Compiles()
    jax.monitoring.register_event_duration_secs_listener(counter)
    try:
        yield counter
    finally:
        jax.monitoring.unregister_event_duration_listener(counter)


def write_package(root: Path, files: dict[str, str]) -> None:
    (root / "pyproject.toml").write_text("[tool.jitcheck]\n")
    for name, text in {"__init__.py": "", **files}.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def findings(root: Path) -> list[tuple[str, int, str]]:
    report = run([root], config_module.load(root), Options(jobs=1), root)
    return sorted((Path(f.path).relative_to("pkg").as_posix(), f.line, f.code) for f in report.findings)


@pytest.fixture
def importable(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path`` on ``sys.path``, with the ``pkg`` modules a case imported forgotten afterwards."""
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]


def run_case(root: Path, counter: Compiles) -> int:
    importlib.invalidate_caches()
    use = importlib.import_module("pkg.use")
    counter.count = 0
    use.run()
    return counter.count


@pytest.mark.parametrize("name", list(CASES))
def test_findings_where_jax_compiles_the_same_computation_again(name: str, importable: Path, compiles: Compiles) -> None:
    files, expected, compiled, programs = CASES[name]
    write_package(importable, files)
    assert findings(importable) == sorted(expected)
    assert run_case(importable, compiles) == compiled
    # A finding exactly where jax compiled one computation more than once.
    assert bool(expected) == (compiled > programs)


@pytest.mark.parametrize("name", list(UNHASHABLE))
def test_an_unhashable_static_argument_fails_in_jax_and_is_found(name: str, importable: Path, compiles: Compiles) -> None:
    source, path, line, code = UNHASHABLE[name]
    write_package(importable, {path: source})
    assert findings(importable) == [(path, line, code)]
    with pytest.raises((TypeError, ValueError), match="hash"):
        run_case(importable, compiles)


def test_a_traced_parameter_handed_to_a_class_held_jitted_function_is_found_and_jax_refuses_it(
        importable: Path, compiles: Compiles) -> None:
    """``fit = staticmethod(_fit)`` in another module's class: ``Ops.fit`` is the jitted ``_fit``, whose ``order``
    is static, and a jitted caller hands it its own traced ``order``."""
    write_package(importable, {
        "ops.py": """\
            import functools
            import jax
            import jax.numpy as jnp
            @functools.partial(jax.jit, static_argnums=(1,))
            def _fit(y, order):
                return jnp.polyval(jnp.ones(order), y)
            class Ops:
                fit = staticmethod(_fit)
            """,
        "use.py": """\
            import jax
            import numpy as np
            from pkg.ops import Ops
            @jax.jit
            def law(y, order=3):
                return Ops.fit(y, order)
            def run():
                law(np.ones(3, np.float32), order=3)
            """,
    })
    assert findings(importable) == [("use.py", 6, "JC201")]
    with pytest.raises((TypeError, ValueError), match="hash"):
        run_case(importable, compiles)


def test_a_callable_built_before_the_loop_is_reported_for_the_calls_that_rebuild_it(importable: Path) -> None:
    """The loop finds the partial again (one compile per call of ``fit``): the message names the calls, not the loop."""
    files, expected, _, _ = CASES["a callable built before the loop, in a function called again and again"]
    write_package(importable, files)
    report = run([importable], config_module.load(importable), Options(jobs=1), importable)
    assert [f.code for f in report.findings] == [code for _, _, code in expected]
    finding = report.findings[0]
    assert "on every call of `fit`" in finding.message and "iteration" not in finding.message
    assert finding.evidence.confidence == "high"
    assert [reason.kind for reason in finding.evidence.again] == ["called-in-loop"]  # `run` calls `fit` in a loop
    assert finding.evidence.again[0].line == 12


def test_a_folder_whose_name_is_no_identifier_is_no_package(tmp_path: Path, compiles: Compiles) -> None:
    """An unpacked sdist (``pkg-1.0/``) with an ``__init__.py`` at its root: Python never imports through
    ``pkg-1.0``, so the modules below it are ``pkg.util`` and ``pkg.use``, and a lambda passed from ``use``
    as the static argument of ``util``'s jitted function is found, where jax compiles it once per call."""
    from jitcheck.lint.index import module_name

    root = tmp_path / "pkg-1.0"
    root.mkdir()
    (root / "__init__.py").write_text("")
    write_package(root, {name: CASES["a lambda static argument of a jitted function of another module, called through "
                                    "its module"][0][name] for name in ("util.py", "use.py")})
    assert module_name(root / "pkg" / "util.py") == "pkg.util"
    assert module_name(root / "__init__.py") == "__init__"
    assert findings(root) == [("use.py", 6, "JC104")]
    sys.path.insert(0, str(root))
    try:
        assert run_case(root, compiles) == 3  # one computation, compiled on each of the 3 calls
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]


def test_a_module_imported_through_namespace_packages_is_named_as_imported(tmp_path: Path, compiles: Compiles) -> None:
    """Folders without ``__init__.py`` under the root (PEP 420 namespace packages): ``use.py`` imports
    ``apps.plastic.models`` by that name, so the index names the module so too, and the caller's loop
    is linked to the method that jits a new lambda on every call, where jax compiles it once per step."""
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\n")
    folder = tmp_path / "apps" / "plastic"
    folder.mkdir(parents=True)
    (folder / "models.py").write_text(textwrap.dedent("""\
        import jax
        class Model:
            def update(self, x):
                return jax.jit(jax.vmap(lambda v: v * 2.0))(x)
        """))
    (folder / "use.py").write_text(textwrap.dedent("""\
        import numpy as np
        from apps.plastic.models import Model
        def run():
            model = Model()
            x = np.ones((4, 3), np.float32)
            for _ in range(3):
                x = model.update(x)
        """))
    report = run([tmp_path], config_module.load(tmp_path), Options(jobs=1), tmp_path)
    found = [(Path(f.path).name, f.line, f.code, f.evidence.confidence) for f in report.findings]
    assert found == [("models.py", 4, "JC104", "high")]
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        use = importlib.import_module("apps.plastic.use")
        compiles.count = 0
        use.run()
        assert compiles.count == 3  # one computation, compiled on each of the 3 steps
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "apps" or m.startswith("apps.")]:
            del sys.modules[name]


_UNPACKED = {
    "__init__.py": "",
    "mesh.py": """\
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames=["force"])
        def step(x, force):
            return x + force(x)

        def relax(x, force):
            return step(x, force=force)
        """,
    "stitch.py": """\
        import functools as ft
        import numpy as np
        from pkg import mesh

        def elastic(x, c):
            return x * c

        def run():
            x = np.ones(3, np.float32)
            for _ in range(3):
                x = mesh.relax(x, force=ft.partial(elastic, c=2.0))
            return x
        """,
}


@pytest.mark.parametrize("folder", ["pkg-0.1", "pkg-main"])
def test_a_package_whose_folder_is_not_its_import_name_is_named_as_its_modules_import_it(
        folder: str, importable: Path, compiles: Compiles) -> None:
    """An sdist unpacked as ``pkg-0.1/`` (or an archive ``pkg-main/``) with the package's ``__init__.py`` at its top:
    Python cannot import through that folder, but its modules import each other as ``pkg.mesh``, so the index names
    them so, and the loop that hands a new ``partial`` on to the static argument of ``mesh.step`` is linked. jax (the
    folder imported by its real name): 3 calls, 3 compiles."""
    (importable / "pyproject.toml").write_text("[tool.jitcheck]\n")
    top = importable / folder
    top.mkdir()
    for name, text in _UNPACKED.items():
        (top / name).write_text(textwrap.dedent(text))
    report = run([importable], config_module.load(importable), Options(jobs=1), importable)
    found = [(Path(f.path).name, f.line, f.code, f.evidence.confidence) for f in report.findings]
    assert found == [("stitch.py", 11, "JC102", "high")]
    # A folder whose modules import nothing through a name cut from it keeps the names its packages give.
    (importable / folder).rename(importable / "tools-v2")
    assert run([importable], config_module.load(importable), Options(jobs=1), importable).findings == []
    shutil.copytree(importable / "tools-v2", importable / "pkg")
    compiles.count = 0
    importlib.invalidate_caches()
    importlib.import_module("pkg.stitch").run()
    assert compiles.count == 3


def test_a_factory_whose_product_public_code_elsewhere_uses_where_it_makes_it_is_a_guess_at_its_jit(
        importable: Path, compiles: Compiles) -> None:
    """tbats' ``make_objective``: another module's public ``fit`` builds the product and calls it where it makes it,
    so every call of ``fit`` compiles again. Nothing in the run calls ``fit`` twice: a guess (``--preview``),
    reported once, at the factory's jit (not again at the call). jax: 3 calls, 3 compiles; the product hoisted, 1."""
    write_package(importable, {"ops.py": _GATHERS, "api.py": """\
        from pkg.ops import make_gather
        def gather_all(x):
            fn, kept = make_gather((1, 0, 1))
            return fn(x)
        """})
    assert findings(importable) == []
    config = dataclasses.replace(config_module.load(importable), preview=True)
    report = run([importable], config, Options(jobs=1), importable)
    assert [(Path(f.path).relative_to("pkg").as_posix(), f.line, f.code, f.confidence) for f in report.findings] == \
        [("ops.py", 6, "JC105", "low")]
    (finding,) = report.findings
    assert "`gather_all`" in finding.evidence.again[0].text and "uses its product where it makes it" in finding.message
    importlib.invalidate_caches()
    api = importlib.import_module("pkg.api")
    ops = importlib.import_module("pkg.ops")
    x = np.arange(3.0, dtype=np.float32)
    hoisted, _ = ops.make_gather((1, 0, 1))
    for counted, call in ((3, lambda: api.gather_all(x)), (1, lambda: hoisted(x))):
        compiles.count = 0
        for _ in range(3):
            call()
        assert compiles.count == counted
    # The same function in an example script (no package): the script runs it, as often as it shows; no guess.
    (importable / "pkg" / "api.py").unlink()
    (importable / "examples").mkdir()
    (importable / "examples" / "gather_demo.py").write_text(textwrap.dedent("""\
        from pkg.ops import make_gather
        def gather_all(x):
            fn, kept = make_gather((1, 0, 1))
            return fn(x)
        """))
    assert run([importable], config, Options(jobs=1), importable).findings == []


def test_a_public_step_is_run_once_per_step_by_its_callers(importable: Path, compiles: Compiles) -> None:
    """A library's public ``step`` (``train_step``, ``training_step``) is called once per step of a run by code
    outside it: a wrapper rebuilt there is reported though nothing in the package calls it, where another public
    function nothing calls stays a guess. jax compiles the step's program on every step, the hoisted one once."""
    write_package(importable, {"util.py": """\
        import jax
        class Trainer:
            def step(self, x):
                return jax.jit(self._update)(x)
            def _update(self, x):
                return x * 2.0
        def train_step(params, batch):
            @jax.jit
            def loss(b):
                return (b * params).sum()
            return loss(batch)
        def summarize(batch):
            return jax.jit(lambda b: b * 2.0)(batch)
        """})
    assert findings(importable) == [("util.py", 4, "JC101"), ("util.py", 8, "JC105")]
    importlib.invalidate_caches()
    util = importlib.import_module("pkg.util")
    x = np.ones(3, np.float32)
    trainer = util.Trainer()
    hoisted = jax.jit(trainer._update)  # the help's fix: built once, kept
    for counted, call in (
        (3, lambda: trainer.step(x)),
        (3, lambda: util.train_step(x, x)),
        (1, lambda: hoisted(x)),
    ):
        compiles.count = 0
        for _ in range(3):
            call()
        assert compiles.count == counted


def test_a_public_step_jitting_an_attribute_of_unknown_type_is_reported(importable: Path, compiles: Compiles) -> None:
    """dopamine's brax wrapper: ``step`` jits ``self.env.step`` on every call, ``self.env`` being whatever the
    constructor was handed. A public step runs once per step of a run, so JC107 applies as in a loop; its help builds
    the wrapper in ``__init__``. jax: 3 compiles in 3 steps (the same environment object each time), then 1."""
    write_package(importable, {"envs.py": """\
        import jax
        class Wrapper:
            def __init__(self, env):
                self.env = env
            def step(self, x):
                return jax.jit(self.env.step)(x)
        class Hoisted:
            def __init__(self, env):
                self.env = env
                self._step = jax.jit(self.env.step)
            def step(self, x):
                return self._step(x)
        """})
    assert findings(importable) == [("envs.py", 6, "JC107")]
    importlib.invalidate_caches()
    envs = importlib.import_module("pkg.envs")

    class Env:
        def step(self, x: np.ndarray) -> np.ndarray:
            return x * 2.0

    x = np.ones(3, np.float32)
    for counted, wrapper in ((3, envs.Wrapper(Env())), (1, envs.Hoisted(Env()))):
        compiles.count = 0
        for _ in range(3):
            wrapper.step(x)
        assert compiles.count == counted


def test_a_chain_of_callers_under_a_loop_that_carries_its_state_is_one_program_each_pass(importable: Path,
                                                                                        compiles: Compiles) -> None:
    """qdax's repertoire: ``add`` jits a fresh ``vmap`` of its nested def, ``init`` calls ``add``, ``train`` calls
    ``init``, and the run's loop calls ``train`` with the state it carries, a counter and a PRNG key split on each
    pass: data of one shape, so the same program on each pass (jax: 3 compiles in 3 passes) and a finding."""
    write_package(importable, {
        "repertoire.py": """\
            import jax
            import jax.numpy as jnp
            def add(values, scale):
                def one(v):
                    return v * scale
                return jax.jit(jax.vmap(one))(values)
            def init(values, scale):
                return add(values, scale)
            def train(state, scale, step, key):
                return init(state + jax.random.uniform(key, state.shape) * step, scale)
            """,
        "loop.py": """\
            import jax
            import jax.numpy as jnp
            from pkg.repertoire import train
            def run(n):
                state = jnp.ones(3)
                key = jax.random.PRNGKey(0)
                step = 0
                while step < n:
                    key, sub = jax.random.split(key)
                    state = train(state, 2.0, step, sub)
                    step += 1
                return state
            """})
    assert findings(importable) == [("repertoire.py", 6, "JC105")]  # the nested def inside the vmap
    importlib.invalidate_caches()
    loop = importlib.import_module("pkg.loop")
    loop.run(1)  # the PRNG's and the arithmetic's own compiles, once
    compiles.count = 0
    loop.run(3)
    assert compiles.count == 3


def test_a_jit_a_function_makes_for_itself_keys_what_it_hands_on_only_where_made_on_every_path() -> None:
    """``fun = jax.jit(_impl, static_argnums=(0, 2))`` then ``fun(body_fun, ...)``: ``body_fun`` is a static argument
    of the forwarder, as of a jitted function. Made under an ``if`` (``if jit: fun = jax.jit(...)``), the jit exists
    only on the path a caller's arguments choose (``jit=False`` makes none): not followed."""
    from jitcheck.lint.index import ProjectIndex, summarize

    conditional = _MAKES_ITS_JIT.replace("def bounded_loop(body_fun, init_val, maxiter):\n    fun = jax.jit(",
                                         "def bounded_loop(body_fun, init_val, maxiter, jit=False):\n"
                                         "    fun = _unrolled\n    if jit:\n        fun = jax.jit(")
    assert "if jit:" in conditional
    index = ProjectIndex({"pkg.loops": summarize(_MAKES_ITS_JIT)}, installed=False)
    forwarded = index.static_forward("pkg.loops.bounded_loop")
    assert forwarded is not None and forwarded.position(0) == "body_fun" and forwarded.position("maxiter") == "maxiter"
    assert forwarded.position(1) is None  # `init_val` is traced
    assert forwarded.to["body_fun"] == "argument 0 of the jit `bounded_loop` makes"
    assert ProjectIndex({"pkg.loops": summarize(conditional)}, installed=False).static_forward("pkg.loops.bounded_loop") is None


def test_a_list_as_a_static_argument_of_another_modules_jitted_method_is_refused_by_jax_and_found(
        importable: Path) -> None:
    """The method's static spec comes from the index (the class's ``jit_methods``); the receiver is narrowed by an
    ``isinstance`` guard that raises, as a type checker narrows it."""
    write_package(importable, {
        "images.py": """\
            from functools import partial
            import jax

            class Image:
                @partial(jax.jit, static_argnums=(0, 2))
                def model(self, x, k=None):
                    return x * len(k)
        """,
        "use.py": """\
            from pkg.images import Image

            def run(img=None):
                img = Image() if img is None else img
                return summary(img)

            def summary(img):
                if not isinstance(img, Image):
                    raise TypeError("an Image")
                return img.model(1.0, k=[[0]])
        """,
    })
    assert findings(importable) == [("use.py", 10, "JC202")]
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        importlib.invalidate_caches()
        importlib.import_module("pkg.use").run()
