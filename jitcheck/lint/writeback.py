"""Writing a fixed file back without changing anything but its code.

The new text is encoded as the file was (its coding line's codec, its BOM), written
through a symbolic link to its target, and keeps the file's owner and mode. A file
linked from several names (a hardlink) is rewritten in place so every name sees the
fix; any other file is written to a temporary beside it and renamed over it. Just
before the rename the file is read again: one that changed or vanished since the run
read it is left alone, with a message. A temporary is removed when anything fails,
on SIGTERM and SIGINT too (:func:`signals_raise`; both are held back while it is made,
so none lands between its creation and the cleanup that owns it); one left by a SIGKILLed run is
swept by the next fix run in that folder (:func:`sweep`), once its writer is dead.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

from jitcheck.lint import text

_TEMPORARY = re.compile(r"^\..+\.jitcheck-(?P<pid>\d+)-[^.]+\.tmp$")


class Skipped(Exception):
    """A fixed file that was not written, and why (the run reports it and goes on)."""


def encoding_of(data: bytes) -> tuple[str, bytes]:
    """The codec a file's text is written in and the BOM it starts with (Python's reading, UTF-8 when it has none)."""
    try:
        return text.encoding_of(data)
    except (SyntaxError, LookupError):
        return "utf-8", b""


def encode_like(original: bytes, text: str) -> bytes:
    """``text`` encoded as ``original`` was; :class:`Skipped` when the codec cannot hold it."""
    encoding, bom = encoding_of(original)
    try:
        return bom + text.encode(encoding)
    except UnicodeEncodeError as error:
        raise Skipped(f"the fixed text cannot be written in the file's encoding ({encoding}): {error.reason}") from error


def _temporary(folder: Path, name: str) -> tuple[int, str]:
    return tempfile.mkstemp(prefix=f".{name}.jitcheck-{os.getpid()}-", suffix=".tmp", dir=folder)


def _on_main_thread() -> bool:
    """Whether this is the main thread, the only one Python runs signal handlers on (and may set them from)."""
    import threading

    return threading.current_thread() is threading.main_thread()


def _hold_stops() -> set[int | signal.Signals] | None:
    """Hold SIGTERM and SIGINT back (on the main thread, where Python runs its handlers); the mask to restore, or
    None where signals cannot be held (another thread, a platform without ``pthread_sigmask``)."""
    if not hasattr(signal, "pthread_sigmask") or not _on_main_thread():
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})


def _release_stops(held: set[int | signal.Signals] | None) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def write_fixed(path: Path, original: bytes, new: bytes) -> None:
    """Replace ``path``'s content ``original`` by ``new``; :class:`Skipped` (nothing written) when that is not safe."""
    try:
        target = path.resolve(strict=True)
        status = target.stat()
        current = target.read_bytes()
    except FileNotFoundError as error:
        raise Skipped("it was deleted during the run, so it was not re-created") from error
    except OSError as error:
        raise Skipped(f"it cannot be read again before writing: {error.strerror or error}") from error
    if current != original:
        raise Skipped("it changed since jitcheck read it, so the fix was not written (run jitcheck again)")
    if status.st_nlink > 1:
        # A rename would leave the other names on the old content: write in place, as editors do for hardlinks.
        with open(target, "r+b") as handle:
            handle.write(new)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        return
    held = _hold_stops()  # a stop held back while the temporary is made, so none lands before the `try` owns it
    try:
        descriptor, temporary = _temporary(target.parent, target.name)
    except BaseException:
        _release_stops(held)
        raise
    try:
        _release_stops(held)  # a stop held back arrives here, inside the `try` that removes the temporary
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(new)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, status.st_mode & 0o7777)
        if hasattr(os, "chown"):
            with contextlib.suppress(OSError):  # only a privileged user can give a file away; then keep the owner
                os.chown(temporary, status.st_uid, status.st_gid)
        try:
            again = target.read_bytes()
        except FileNotFoundError as error:
            raise Skipped("it was deleted during the run, so it was not re-created") from error
        if again != original:
            raise Skipped("it changed since jitcheck read it, so the fix was not written (run jitcheck again)")
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(folders: set[Path]) -> list[Path]:
    """Remove the temporaries a killed jitcheck left in ``folders`` (never a live run's); returns those removed."""
    removed: list[Path] = []
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            match = _TEMPORARY.match(name)
            if match is None or _alive(int(match.group("pid"))):
                continue
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
                removed.append(folder / name)
    return removed


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """While writing, SIGTERM raises SystemExit (as Ctrl-C raises KeyboardInterrupt), so temporaries are removed."""
    if not _on_main_thread():
        yield
        return

    def stop(number: int, _frame: object) -> None:
        raise SystemExit(128 + number)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


__all__ = ["Skipped", "encode_like", "encoding_of", "signals_raise", "sweep", "write_fixed"]
