"""Code that runs only with jit disabled (``with jax.disable_jit():``) runs every jitted function op by op: a jit
rebuilt there compiles nothing, however often it runs. An interactive viewer that registers its key handlers and
runs its event loop in such a block is the case met in real code."""

from __future__ import annotations

from .support import compiles_of, shown

_VIEWER = """\
    class Window:
        def __init__(self):
            self.handlers = []

        def reg_key_handler(self, handler):
            self.handlers.append(handler)

        def show(self, keys):
            for key in keys:
                for handler in self.handlers:
                    handler(key)

    def step(x):
        return jax.jit(lambda v: v + 1.0)(x)

    def key_handler(x, key):
        if key == "left":
            return step(x)
        return x

    def view(x, keys):
        window = Window()
        with jax.disable_jit():
            window.reg_key_handler(partial(key_handler, x))
            window.show(keys)
    """


def test_handlers_registered_and_run_with_jit_disabled_compile_nothing() -> None:
    assert shown(_VIEWER) == []
    assert compiles_of(_VIEWER, 'view(jnp.ones(2), ["left", "left", "up"])', "<lambda>") == 0
    # The same viewer with jit on: every key press compiles the same step again, and it is found.
    on = _VIEWER.replace("        with jax.disable_jit():\n            window.reg", "        if True:\n            window.reg")
    assert on != _VIEWER
    assert shown(on) == [(14, "JC104")]
    assert compiles_of(on, 'view(jnp.ones(2), ["left", "left", "left"])', "<lambda>") == 3
    # `disable_jit(False)` leaves jit on.
    kept = _VIEWER.replace("jax.disable_jit()", "jax.disable_jit(False)")
    assert shown(kept) == [(14, "JC104")]


def test_a_loop_calling_with_jit_disabled_compiles_nothing() -> None:
    body = """\
        def square(x):
            return jax.jit(lambda v: v * v)(x)

        def debug_run(xs):
            with jax.disable_jit():
                for x in xs:
                    square(x)
        """
    assert shown(body) == []
    assert compiles_of(body, "debug_run([jnp.ones(2)] * 3)", "<lambda>") == 0
    on = body.replace("with jax.disable_jit():", "if xs:")
    assert shown(on) == [(2, "JC104")]
    assert compiles_of(on, "debug_run([jnp.ones(2)] * 3)", "<lambda>") == 3
