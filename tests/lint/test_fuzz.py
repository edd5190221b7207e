"""Fuzzing a whole run: generated modules and mutated real-looking files, checked and fixed in worker processes.

Each example is one folder: a few hypothesmith modules (arbitrary Python from the
grammar) and the example project's files, mutated (bytes dropped, brackets piled up,
lines duplicated or cut, bad UTF-8, null bytes, tabs, the whitespace Python reads otherwise
than ``str.splitlines`` (form feeds, U+2028, U+0085, lone ``\r``), and the file re-encoded
under a ``# coding:`` line). The run must never fail: no internal error, every file
reported or clean, every fixed file still compiles with every string constant unchanged, a
file that did not compile is never rewritten, and a second ``--fix`` changes nothing.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitcheck.lint.config import Config
from jitcheck.lint.runner import Options, run

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted((ROOT / "fixtures" / "example_project" / "example_buggy").glob("*.py"))


ENCODINGS = [("utf-8", b"\xef\xbb\xbf", "é ☃"), ("latin-1", b"", "Ã© ÿ"), ("cp1252", b"", "Ã© € “q”"),
             ("koi8-r", b"", "Привет"), ("shift_jis", b"", "日本語"), ("gbk", b"", "中文")]
"""(codec, BOM, a string it holds): the encodings a file is rewritten in, its coding line on line 1 or 2."""

WHITESPACE = [b"\x0c", "\u2028".encode(), "\x85".encode(), b"\r", b"\n\x0c    ", b"\x0c"]
"""Characters str.splitlines breaks at and Python does not (or not alone), put anywhere (in strings and comments too)."""


def reencode(data: bytes, rng: random.Random) -> bytes:
    """The file under a ``# coding:`` line (or a BOM) in another codec, with a string that codec holds."""
    codec, bom, text = rng.choice(ENCODINGS)
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    header = f"# -*- coding: {codec} -*-\n" if not bom else ""
    if rng.random() < 0.5:
        header = "#!/usr/bin/env python\n" + header
    try:
        return bom + (header + f"S = {text!r}  # {text}\n" + source).encode(codec)
    except UnicodeEncodeError:
        return data


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random edits of the kinds that break parsers and fixers."""
    if rng.random() < 0.3:
        data = reencode(data, rng)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        kind = rng.randrange(9)
        if kind == 0:
            data = data[:at] + data[at + rng.randint(1, 40):]
        elif kind == 1:
            depth = rng.choice([5, 150, 400])
            data = data[:at] + b"(" * depth + b"1" + b")" * depth + data[at:]
        elif kind == 2:
            lines = data.splitlines(keepends=True)
            if lines:
                i = rng.randrange(len(lines))
                lines.insert(i, lines[i])
            data = b"".join(lines)
        elif kind == 3:
            data = data[:at]
        elif kind == 4:
            data = data[:at] + rng.choice([b"\xff\xfe", b"\x00", b"\t", b"\r", b"\\\n", b"'''", b"lambda", b":"]) + data[at:]
        elif kind == 5:
            data = data[:at] + b" + ".join([b"x"] * rng.choice([10, 300])) + data[at:]
        elif kind == 6:
            data = data.replace(b"    ", b"\t", 1)
        elif kind == 7:
            data = data[:at] + rng.choice(WHITESPACE) + data[at:]
        else:
            data = data[:at] + b"\nfor _i in range(3):\n    jax.jit(lambda v: v)(_i)\n" + data[at:]
    return data


def strings(data: bytes) -> list[str]:
    """Every string constant of a module, as Python reads its bytes."""
    return [node.value for node in ast.walk(ast.parse(data)) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def compiles(data: bytes) -> bool:
    try:
        compile(data, "f.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(hypothesmith.from_grammar(), min_size=2, max_size=4), st.randoms(use_true_random=False))
def test_runs_over_generated_and_mutated_files_never_fail(tmp_path_factory: pytest.TempPathFactory, generated: list[str],
                                                          rng: random.Random) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    originals: dict[str, bytes] = {}
    for number, source in enumerate(generated):
        originals[f"gen{number}.py"] = source.encode("utf-8", errors="surrogatepass")
    for path in rng.sample(REAL, 5):
        originals[f"mut_{path.name}"] = mutate(path.read_bytes(), rng)
    for name, data in originals.items():
        (folder / name).write_bytes(data)
    config = Config(root=folder, cache_dir=None)
    report = run([folder], config, Options(fix="unsafe", jobs=2, use_cache=False), folder)
    assert report.internal_errors == 0
    for finding in report.findings:
        assert "internal error" not in finding.message and "worker process" not in finding.message, finding
    for name, data in originals.items():
        now = (folder / name).read_bytes()
        if now != data:
            assert compiles(data), f"{name} did not compile, yet it was rewritten"
            assert compiles(now), f"the fix of {name} does not compile"
            assert sorted(strings(now)) == sorted(strings(data)), f"the fix of {name} changed a string"
    fixed_once = {name: (folder / name).read_bytes() for name in originals}
    again = run([folder], config, Options(fix="unsafe", jobs=2, use_cache=False), folder)
    assert again.fixed == 0 and again.internal_errors == 0
    assert {name: (folder / name).read_bytes() for name in originals} == fixed_once
