"""Whether Python compiles a module, asked statement by statement (jitcheck.server.compiling), is what compiling
it whole says (jitcheck.lint.fixes.compiles): on every fixture, on every statement removed and doubled, and on
what only the whole module can say (late futures, module-level globals, the futures' flags)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitcheck.lint.fixes import compiles
from jitcheck.server.compiling import compiles_by_statement
from jitcheck.server.statements import statements

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py"))
WHOLE_MODULE = {
    "a docstring, then futures": '"""doc."""\nfrom __future__ import annotations\nimport jax\n\ndef f(x: int) -> int:\n    return x\n',
    "a future after an import": "import jax\nfrom __future__ import annotations\n",
    "a future after a string that is no docstring": 'b"bytes"\nfrom __future__ import annotations\n',
    "a future after a docstring and a statement": '"""doc."""\nx = 1\nfrom __future__ import annotations\n',
    "an unknown future": "from __future__ import braces\n",
    "the grammar-changing future": "from __future__ import barry_as_FLUFL\nx = 1 <> 2\n",
    "global after an assignment": "x = 1\nglobal x\n",
    "global before an assignment": "global x\nx = 1\n",
    "return at module level": "import jax\n\nreturn 1\n",
    "await at module level": "import asyncio\nawait asyncio.sleep(0)\n",
    "break outside a loop": "x = 1\nbreak\n",
    "nonlocal at module level": "nonlocal x\n",
    "a yield annotation, futures on": "from __future__ import annotations\nx: (yield) = 1\n",
    "a yield annotation, futures off": "x: (yield) = 1\n",
    "duplicate parameters": "def f(a, a):\n    return a\n",
    "a plain module": "import jax\n\n\nstep = jax.jit(abs)\n",
}


@pytest.mark.parametrize("name", list(WHOLE_MODULE))
def test_what_only_the_whole_module_can_say_is_said_as_compiling_it_whole_says(name: str) -> None:
    text = WHOLE_MODULE[name]
    assert compiles_by_statement(text, statements(text)) == compiles(text)


def test_both_answers_occur() -> None:
    answers = {compiles(text) for text in WHOLE_MODULE.values()}
    assert answers == {True, False}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_fixture_and_each_statement_removed_or_doubled_compiles_as_it_does_whole(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = statements(text)
    assert compiles_by_statement(text, found) == compiles(text)
    lines = text.split("\n")
    for statement in found or ():
        for variant in ("\n".join(lines[: statement.start - 1] + lines[statement.end:]),
                        "\n".join(lines[: statement.end] + lines[statement.start - 1:])):
            assert compiles_by_statement(variant, statements(variant)) == compiles(variant), (path.name, statement.start)
