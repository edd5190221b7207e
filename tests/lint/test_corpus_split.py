"""The corpus's split into a development part and a sealed half (benchmarks/corpus/split.py):
the fixed hash rule, the libraries real_world.py lists on each side, the two labels files kept
apart, and ``--sealed`` choosing only the sealed half. Nothing is downloaded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import real_world
finally:
    sys.path.remove(str(ROOT / "benchmarks"))
from benchmarks.corpus import scoring, split  # noqa: E402

SEALED_BY_THE_RULE = {
    "jax-dataclasses", "jaxlie", "jaxoplanet", "coordinax", "jaxgcrl", "jaxatari", "laplax", "jax-galsim",
    "easydel", "genjax", "google-metrax", "ludax", "inox", "linox", "coreax", "geometric-kernels", "jax-fdm",
    "apebench", "jaxdecomp", "klujax", "jax-finufft",
}
"""The sealed half of issue 23's list as the rule gave it when the split was made (21 of 44)."""


def test_the_rule_puts_each_listed_library_on_the_side_it_was_split_to() -> None:
    assert len(split.ISSUE_23_LIBRARIES) == len(set(split.ISSUE_23_LIBRARIES)) == 44
    assert {name for name in split.ISSUE_23_LIBRARIES if split.sealed_by_the_rule(name)} == SEALED_BY_THE_RULE
    assert split.is_sealed("JaxLie") and not split.is_sealed("Dynamiqs")  # the name is read in lower case


def test_a_library_moved_to_development_stays_sealed_by_the_hash_but_is_no_longer_sealed() -> None:
    by_reading = {"jax-md", "jax-galsim", "dm-haiku", "distrax", "vbjax", "rockpool", "folx", "jaxtronomy", "jsmfsb",
                  "healjax"}
    by_mistake = {"jax-scalify", "jaxgw", "jaxnuts", "jaxqualin", "mujax", "rema-jax", "tbats-jax"}  # round 16's hash slip
    by_the_third_rule = {name for name, reason in split.MOVED_TO_DEVELOPMENT.items() if "third fixed rule" in reason}
    by_the_second_rule = set(split.MOVED_TO_DEVELOPMENT) - by_reading - by_mistake - by_the_third_rule
    assert by_reading | by_mistake <= set(split.MOVED_TO_DEVELOPMENT) and len(by_the_second_rule) == 22
    assert all(split.moved_by_the_second_rule(name) for name in by_the_second_rule)
    # the third rule (6 December 2026) moved every library sealed then that it picks, and only those
    assert len(by_the_third_rule) == 42 and all(split.moved_by_the_third_rule(name) for name in by_the_third_rule)
    assert not any(split.moved_by_the_third_rule(name) for name, _ in real_world.SEALED)
    # the rule moved every sealed library it picks: none is left of the sealed half it was applied to
    # (once, on 4 December 2026; libraries sealed since, round 8's top-up, are not subject to it)
    later = {"aws-fortuna", "kinetix-env", "deepxde", "pennylane", "pyhf",  # round 8
             "jaxonnxruntime", "pyscfad", "veros", "evox", "jax2onnx", "bijx", "chemtrain", "xarray-jax",  # round 9
             "mlip", "jaxkuramoto", "mpi4jax", "jaxtorch",  # round 10
             "nifty8",  # round 11
             "amjax", "booz-xform-jax", "cbfjax", "dire-jax", "fracjax", "grater-jax", "jax-bandflux", "jax-pt",
             "jax2d", "jaxion", "jaxnrsur", "jaxnu", "jaxqtl", "jaxstar",  # round 12
             "bamojax", "cryojax-eo", "graphem-jax", "jaxagents", "jaxmore", "jaxrenderer", "jaxsr",  # round 13
             "imax", "signax",  # round 26
             "diffmah", "exoplanet-core",  # round 27
             "brainscale", "timesfm", "alphafold", "candl-like", "jqmc",  # round 28
             "meent", "phiml", "desc-opt", "dlux", "google-tunix", "qwix"}  # round 29
    assert later <= {name for name, _ in real_world.SEALED} | by_the_third_rule
    assert not any(split.moved_by_the_second_rule(name) for name, _ in real_world.SEALED if name not in later)
    assert all(split.MOVED_TO_DEVELOPMENT.values())  # each move says why
    for name in split.MOVED_TO_DEVELOPMENT:
        assert split.sealed_by_the_rule(name) and not split.is_sealed(name)
        assert not split.is_sealed(name.upper())
    assert split.is_sealed("jaxlie")  # a library that did not move is still sealed


def test_real_world_lists_each_new_library_on_its_side_and_the_default_run_never_includes_a_sealed_one() -> None:
    sealed = {name for name, _ in real_world.SEALED}
    assert sealed and all(split.is_sealed(name) for name in sealed)
    assert not any(split.is_sealed(name) for name, _ in real_world.NEW_DEVELOPMENT + real_world.FRESH_DEVELOPMENT)
    assert set(real_world.FRESH_DEVELOPMENT) <= set(real_world.ALL)
    assert sealed.isdisjoint(name for name, _ in real_world.ALL)
    assert set(real_world.NEW_DEVELOPMENT) <= set(real_world.ALL)
    moved = {name for name, _ in real_world.MOVED_FROM_SEALED}
    assert moved == set(split.MOVED_TO_DEVELOPMENT)
    assert set(real_world.MOVED_FROM_SEALED) <= set(real_world.ALL) and moved.isdisjoint(sealed)
    old = {name for name, _ in real_world.LIBRARIES + real_world.CORPUS}
    assert old.isdisjoint(name for name, _ in real_world.SEALED + real_world.NEW_DEVELOPMENT)


def test_sealed_labels_are_all_for_sealed_libraries_at_their_pinned_versions_and_none_is_in_labels_tsv() -> None:
    sealed_labels = scoring.load_labels(real_world.SEALED_LABELS)
    development_labels = scoring.load_labels(real_world.LABELS)
    pinned = dict(real_world.SEALED)
    assert sealed_labels
    assert all(split.is_sealed(label.library) and pinned.get(label.library) == label.version for label in sealed_labels)
    assert {label.library for label in development_labels}.isdisjoint(pinned)
    assert not any(split.is_sealed(label.library) for label in development_labels
                   if label.library in {name for name, _ in real_world.NEW_DEVELOPMENT})
    moved = dict(real_world.MOVED_FROM_SEALED)
    moved_labels = [label for label in development_labels if label.library in moved]
    # their blind labels came with them (geometric-kernels, genjax and apebench had none: no jit site that could be a bug)
    assert {label.library for label in moved_labels} == set(moved) - {"geometric-kernels", "genjax", "apebench"}
    assert all(moved[label.library] == label.version for label in moved_labels)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--libraries", "jaxlie"], "not in the development part: jaxlie"),
        (["--sealed", "--libraries", "flax"], "not in the sealed half: flax"),
        (["--sealed", "--libraries", "jax-md"], "not in the sealed half: jax-md"),
    ],
)
def test_each_half_refuses_the_other_halfs_libraries_before_downloading(
    tmp_path: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert real_world.main([*argv, "--keep", str(tmp_path / "keep")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "keep").exists()


def test_sealed_labels_are_refused_by_the_development_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert real_world.main(["--labels", str(real_world.SEALED_LABELS), "--keep", str(tmp_path / "keep")]) == 2
    assert "labels for libraries not in the development part" in capsys.readouterr().err
    assert not (tmp_path / "keep").exists()
