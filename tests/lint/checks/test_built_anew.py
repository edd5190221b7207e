"""What a builder makes afresh on each pass of a loop over steps (``M = build_preconditioner(J)``, ``fns =
create_solver(params)``) is not data baked into one program: it may have another structure on each pass (another
size, another sparsity), so the jit closing over it may be another program each time, and passing it as an
argument would not compile it once. The pass no longer claims the same computation there: the finding rests on a
guess (``--preview``). State carried from pass to pass (``b = solve(b)``), and an instance of a class made from
the items of one array, stay data."""

from __future__ import annotations

from .support import check, compiles_of, shown

_NEWTON = """\
    def build_preconditioner(b, it):
        return jnp.ones(it + 2) * b.sum()

    def make_solve(M):
        @jax.jit
        def solve(b):
            return b * M.sum() + M.shape[0]
        return solve

    def newton(b, steps):
        for it in range(steps):
            M = build_preconditioner(b, it)
            solve = make_solve(M)
            b = solve(b)
        return b
    """

_HANDED = """\
    def build_preconditioner(b, it):
        return jnp.ones(it + 2) * b.sum()

    @jax.jit
    def solve(b, M):
        return b * M.sum() + M.shape[0]

    def newton(b, steps):
        for it in range(steps):
            M = build_preconditioner(b, it)
            b = solve(b, M)
        return b
    """


def test_a_closure_over_an_object_built_anew_in_the_callers_loop_is_not_claimed_the_same_program() -> None:
    assert check(_NEWTON) == [(5, "JC105")]  # still found, under --preview
    assert shown(_NEWTON) == []  # not by default: the same program is not shown
    assert compiles_of(_NEWTON, "newton(jnp.ones(3), 3)", "solve") == 3
    # The advice "pass it as an argument" would not compile it once: each pass's object has another size.
    assert compiles_of(_HANDED, "newton(jnp.ones(3), 3)", "solve") == 3


_STEPS = """\
    def make_grid(it):
        return jnp.linspace(0.0, 1.0, it + 2)

    def sweep(x, steps):
        out = []
        for it in range(steps):
            grid = make_grid(it)
            out.append(jax.jit(lambda v: (v * grid.sum()).sum())(x))
        return out
    """


def test_a_lambda_over_an_object_built_anew_in_its_own_loop_is_not_claimed_the_same_program() -> None:
    assert check(_STEPS) == [(8, "JC104")]
    assert shown(_STEPS) == []
    assert compiles_of(_STEPS, "sweep(jnp.ones(3), 3)", "<lambda>") == 3
    handed = _STEPS.replace("out.append(jax.jit(lambda v: (v * grid.sum()).sum())(x))",
                            "out.append(total(x, grid))").replace("def sweep", "@jax.jit\n    def total(v, g):\n"
                                                                  "        return (v * g.sum()).sum()\n\n    def sweep")
    assert "total(x, grid)" in handed
    assert compiles_of(handed, "sweep(jnp.ones(3), 3)", "total") == 3  # each pass's grid has another size


def test_state_carried_from_pass_to_pass_is_still_data() -> None:
    # `b = step(b)` reads what it rebinds: the same structure each pass, only its values change.
    carried = """\
    def step(b):
        return b * 0.5

    def run(b, steps):
        for it in range(steps):
            b = step(b)
            jax.jit(lambda v: v + b)(b)
        return b
    """
    assert shown(carried) == [(7, "JC104")]
    assert compiles_of(carried, "run(jnp.ones(3), 3)", "<lambda>") == 3


def test_an_instance_made_from_the_items_of_one_array_is_still_data() -> None:
    # `Affine(scale=scales[i])` on each pass: one class, items of one shape: the same program with other values.
    items = """\
    class Affine:
        def __init__(self, scale):
            self.scale = scale

        def forward(self, x):
            return x * self.scale

    def check(x):
        scales = jnp.arange(3.0)
        for i in range(3):
            bij = Affine(scale=scales[i])
            jax.jit(bij.forward)(x)
    """
    assert shown(items) == [(12, "JC101")]
    assert compiles_of(items, "check(jnp.ones(3))", "forward") == 3
