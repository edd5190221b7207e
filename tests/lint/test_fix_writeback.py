"""``--fix`` writes only the fix: encoding, BOM, links, owner and mode kept; changed or vanished files left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jitcheck.lint.cli import main
from jitcheck.lint.writeback import Skipped, encode_like, sweep, write_fixed

BAD = "import jax\n\n\ndef run(x):\n    return jax.jit(lambda v: v * 2)(x)\n\n\nfor i in range(3):\n    run(i)\n"


def fix(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main([*argv, "--fix", "--no-cache"])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_latin1_and_bom_files_keep_their_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n" + BAD.encode())
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfNAME = 'caf\xc3\xa9'\n" + BAD.encode())
    status, out, _ = fix(capsys, str(tmp_path))
    assert status == 0 and "(2 fixed, 0 remaining)" in out
    data = latin.read_bytes()
    assert b"'caf\xe9'" in data and b"def _run_lambda" in data  # still latin-1, and fixed
    assert "café" in data.decode("latin-1")
    data = bom.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\xef\xbb\xbf") == 1 and b"def _run_lambda" in data


def test_symlinks_are_written_through_and_hardlinks_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "real.py"
    target.write_text(BAD)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    other = tmp_path / "hard_a.py"
    other.write_text(BAD)
    second = tmp_path / "hard_b.py"
    os.link(other, second)
    target.chmod(0o640)
    status, _, _ = fix(capsys, str(link), str(second))
    assert status == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "def _run_lambda" in target.read_text()
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    assert os.path.samefile(other, second) and "def _run_lambda" in other.read_text()


def test_owner_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "owned.py"
    path.write_text("x = 1\n")
    if os.geteuid() == 0:
        os.chown(path, 12345, 23456)
    before = path.stat()
    write_fixed(path, b"x = 1\n", b"x = 2\n")
    after = path.stat()
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid) and path.read_bytes() == b"x = 2\n"


def test_changed_or_vanished_files_are_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 2\n")
    with pytest.raises(Skipped, match="changed since jitcheck read it"):
        write_fixed(path, b"x = 1\n", b"x = 3\n")
    assert path.read_text() == "x = 2\n"
    path.unlink()
    with pytest.raises(Skipped, match="deleted during the run"):
        write_fixed(path, b"x = 1\n", b"x = 3\n")
    assert not path.exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no temporary left
    with pytest.raises(Skipped, match="encoding"):
        encode_like(b"# coding: latin-1\nx = 1\n", "x = '\u20ac'\n")


def test_sweep_removes_only_dead_runs_temporaries(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".a.py.jitcheck-{dead.stdout.strip()}-xyz.tmp"
    live = tmp_path / f".b.py.jitcheck-{os.getpid()}-abc.tmp"
    stale.write_text("half")
    live.write_text("mine")
    assert sweep({tmp_path}) == [stale]
    assert live.exists() and not stale.exists()


FIXABLE = "import jax\n\n\ndef run{n}(x):\n    return jax.jit(lambda v: v * {n})(x)\n\n\nfor i in range(3):\n    run{n}(i)\n"
FIXED = "import jax\n\n\ndef _run{n}_lambda(v):\n    return v * {n}\n\n\ndef run{n}(x):\n    return jax.jit(_run{n}_lambda)(x)\n\n\nfor i in range(3):\n    run{n}(i)\n"


def _tagged(tag: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if tag.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the workers")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_killed_during_fix_leaves_whole_files_and_no_workers(tmp_path: Path, how: signal.Signals,
                                                              subprocess_env: dict[str, str]) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    originals = {}
    for n in range(24):
        originals[n] = FIXABLE.format(n=n)
        (tree / f"m{n}.py").write_text(originals[n])
    tag = f"JITCHECK_KILL_TEST_{os.getpid()}_{how.value}"
    env = {**subprocess_env, tag: "1"}
    process = subprocess.Popen([sys.executable, "-m", "jitcheck.lint.cli", str(tree), "--fix", "--no-cache", "-j", "2"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120  # a hang guard, not a timing assertion
    changed = False
    while not changed and process.poll() is None and time.monotonic() < deadline:
        changed = any((tree / f"m{n}.py").read_text() != originals[n] for n in range(24))
    workers = [pid for pid in _tagged(tag) if pid != process.pid]
    process.send_signal(how)
    process.wait()
    assert changed and workers  # killed mid-run, with workers busy
    deadline = time.monotonic() + 30  # the workers follow their parent out
    while _tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _tagged(tag) == []
    for n in range(24):  # every file is whole: the original or its fixed form
        text = (tree / f"m{n}.py").read_text()
        assert text in (originals[n], FIXED.format(n=n)), n
    left = [p.name for p in tree.iterdir() if p.name.endswith(".tmp")]
    if how == signal.SIGTERM:
        assert left == []
    # The next run sweeps what a SIGKILL left and fixes the rest.
    done = subprocess.run([sys.executable, "-m", "jitcheck.lint.cli", str(tree), "--fix", "--no-cache"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [p.name for p in tree.iterdir() if p.name.endswith(".tmp")] == []
    assert all("lambda v" not in (tree / f"m{n}.py").read_text() for n in range(24))
