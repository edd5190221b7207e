"""Every finding carries its evidence (why it runs again, why each run is the same computation, what is unproven)
and a confidence: the default selection reports only what the code shows; a guess is a ``--preview`` finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jitcheck.lint.check import check_source
from jitcheck.lint.cli import main

from .support import HEADER, check, shown

IN_A_LOOP = """\
import jax


def run(xs):
    for x in xs:
        jax.jit(lambda v: v + 1)(x)
"""

CALLED_AT_TWO_SITES = """\
import jax


def _helper(x):
    return jax.jit(lambda v: v + 1)(x)


def first(x):
    return _helper(x) + _helper(x + 1)
"""

PUBLIC_GUESS = """\
import jax


def run(x):
    return jax.jit(lambda v: v + 1)(x)
"""


def evidence_of(source: str) -> list[tuple[str, dict[str, object]]]:
    return [(f.confidence, f.evidence.to_json()) for f in check_source(source, "m.py")]


def test_a_loop_is_the_evidence_and_the_message_names_it() -> None:
    ((confidence, evidence),) = evidence_of(IN_A_LOOP)
    assert confidence == "high"
    assert evidence["runs_again"] == [{"kind": "loop", "text": "it runs on every iteration of the `for` loop at line 5",
                                       "line": 5}]
    assert [r["kind"] for r in evidence["same_computation"]] == ["same-code"]  # type: ignore[index]
    assert evidence["unproven"] == []
    (finding,) = check_source(IN_A_LOOP, "m.py")
    assert "on every iteration of the `for` loop:" in finding.message


def test_call_sites_are_the_evidence() -> None:
    ((confidence, evidence),) = evidence_of(CALLED_AT_TWO_SITES)
    assert confidence == "high"
    assert [(r["kind"], r["line"]) for r in evidence["runs_again"]] == [("call-site", 9), ("call-site", 9)]  # type: ignore[union-attr]
    (finding,) = check_source(CALLED_AT_TWO_SITES, "m.py")
    assert "loop" not in finding.message and "on every call of `_helper`, called at 2 sites that can both run" in finding.message


def test_a_public_function_assumed_to_be_called_often_is_a_low_confidence_guess() -> None:
    ((confidence, evidence),) = evidence_of(PUBLIC_GUESS)
    assert confidence == "low"
    assert [r["kind"] for r in evidence["runs_again"]] == ["public-api"]  # type: ignore[union-attr]
    assert evidence["unproven"] == ["that `run` is called more than once: its callers are not in this file"]


def test_a_public_function_with_one_public_caller_here_rests_on_that_caller_and_says_so() -> None:
    # `build` is public, but this file calls it: the message must not say its callers are not in this file.
    source = PUBLIC_GUESS.replace("def run(x):", "def build(x):") + """

class Model:
    def predict(self, x):
        return build(x)
"""
    ((confidence, evidence),) = evidence_of(source)
    assert confidence == "low"
    assert [r["kind"] for r in evidence["runs_again"]] == ["called-from", "public-api"]  # type: ignore[union-attr]
    assert evidence["unproven"] == ["that `predict` is called more than once: its callers are not in this file"]
    (finding,) = check_source(source, "m.py")
    assert "on every call of `build`, called by code assumed to run again" in finding.message
    assert "callers are not in this file" not in finding.message


def test_an_unknown_receivers_attribute_is_a_guess_only_when_named_as_a_function_field() -> None:
    # Re-wrapped on every pass, a method traces again even on the same object (jax 0.10.2), and an attribute
    # jitted on an object is a method far more often than a function held in a field: reported by default.
    body = """\
        def loop(xs, env):
            for x in xs:
                jax.jit(env.step)(x)
        """
    assert check(body) == [(3, "JC107")]
    assert shown(body) == [(3, "JC107")]
    # `opt.update`, `net.apply`, `state.apply_fn`: the names records give function fields stay a guess.
    for field in ("update", "apply", "apply_fn"):
        guessed = body.replace("env.step", f"opt.{field}").replace("env)", "opt)")
        assert check(guessed) == [(3, "JC107")] and shown(guessed) == []


def test_a_function_nothing_calls_is_a_guess() -> None:
    body = """\
        def _never_called(x):
            return jax.jit(lambda v: v)(x)
        """
    assert check(body) == [(2, "JC104")] and shown(body) == []


def test_an_unhashable_static_value_is_reported_without_a_repetition() -> None:
    source = HEADER + "step = jax.jit(scale, static_argnums=1)\nstep(1.0, [1, 2])\n"
    (finding,) = check_source(source, "m.py")
    assert finding.code == "JC202" and finding.confidence == "high"
    assert [r.kind for r in finding.evidence.again] == ["hashed"]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main([*argv, "--no-cache"])
    return status, capsys.readouterr().out


def test_preview_reports_the_guesses_on_the_command_line_and_in_pyproject(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "guess.py").write_text(PUBLIC_GUESS)
    (tmp_path / "shown.py").write_text(IN_A_LOOP)
    status, out = run_cli(capsys, str(tmp_path), "--output-format", "json")
    rows = json.loads(out)
    assert status == 1 and [Path(r["filename"]).name for r in rows] == ["shown.py"]
    assert rows[0]["confidence"] == "high" and rows[0]["evidence"]["runs_again"][0]["line"] == 5
    status, out = run_cli(capsys, str(tmp_path), "--output-format", "json", "--preview")
    rows = json.loads(out)
    assert sorted((Path(r["filename"]).name, r["confidence"]) for r in rows) == [("guess.py", "low"), ("shown.py", "high")]
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\npreview = true\n")
    status, out = run_cli(capsys, str(tmp_path), "--output-format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert sorted((r["level"], r["properties"]["confidence"]) for r in results) == [("error", "high"), ("note", "low")]
    status, out = run_cli(capsys, str(tmp_path), "--output-format", "github")
    assert sorted(line.split()[0] for line in out.splitlines()) == ["::error", "::notice"]
    status, out = run_cli(capsys, str(tmp_path), "--no-preview", "-q")
    assert "guess.py" not in out and "shown.py" in out
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\npreview = 1\n")
    capsys.readouterr()
    assert main([str(tmp_path), "--no-cache"]) == 2
    assert "preview must be true or false, got 1" in capsys.readouterr().err


def test_a_guess_is_not_fixed_without_preview(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "guess.py"
    path.write_text(PUBLIC_GUESS)
    run_cli(capsys, str(path), "--fix")
    assert path.read_text() == PUBLIC_GUESS
    run_cli(capsys, str(path), "--fix", "--preview")
    assert "def _run_lambda" in path.read_text()


def test_the_editor_shows_a_guess_as_a_hint() -> None:
    from lsprotocol import types

    from jitcheck.server.diagnostics import diagnostic

    for source, severity in ((PUBLIC_GUESS, types.DiagnosticSeverity.Hint), (IN_A_LOOP, types.DiagnosticSeverity.Warning)):
        (finding,) = check_source(source, "m.py")
        assert diagnostic(finding, source.splitlines(), "utf-16", None).severity == severity


def test_the_cache_keeps_the_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "shown.py").write_text(IN_A_LOOP)
    argv = [str(tmp_path), "--output-format", "json", "--cache-dir", str(tmp_path / "cache")]
    capsys.readouterr()
    main(argv)
    cold = json.loads(capsys.readouterr().out)
    main(argv)
    warm = json.loads(capsys.readouterr().out)
    assert warm == cold and cold[0]["evidence"]["runs_again"]


def test_the_message_keeps_no_line_numbers_the_evidence_has_them() -> None:
    # Lines live in the evidence: a message stays the same when code above it moves (the editor judges parts).
    moved = "\n\n\n" + IN_A_LOOP
    (before,) = check_source(IN_A_LOOP, "m.py")
    (after,) = check_source(moved, "m.py")
    assert before.message == after.message
    assert (before.evidence.again[0].line, after.evidence.again[0].line) == (5, 8)


def test_a_public_driver_that_builds_once_and_loops_is_only_a_preview_guess() -> None:
    # The compile is amortised over the loop: only a user calling `fit` again would compile again (a guess).
    body = """\
        def fit(params, batches, lr):
            step = jax.jit(lambda p, b: p - lr * b)
            for b in batches:
                params = step(params, b)
            return params
        """
    assert check(body) == [(2, "JC104")]
    assert shown(body) == []


MANY_CALL_SITES = """\
import jax


def _helper(x):
    return jax.jit(lambda v: v + 1)(x)


def first(x):
    a = _helper(x)
    b = _helper(a)
    c = _helper(b)
    d = _helper(c)
    e = _helper(d)
    return _helper(e)
"""


def test_call_sites_are_listed_in_source_order() -> None:
    # libcst keeps a name's references in a set: the evidence (and the message's "calls at lines ...") must not
    # follow its order, which depends on where in memory the nodes were made.
    ((_, evidence),) = evidence_of(MANY_CALL_SITES)
    assert [r["line"] for r in evidence["runs_again"]] == [9, 10, 11, 12, 13, 14]  # type: ignore[index]
