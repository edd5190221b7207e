"""The LSP latency benchmark's client says why a server did not answer: its standard error is kept and shown."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_server_latency import ServerError, Session  # noqa: E402


def _session(tmp_path: Path, body: str, timeout: float) -> Session:
    script = tmp_path / "server.py"
    script.write_text(body)
    return Session("fake", [sys.executable, str(script)], None, tmp_path, timeout)


def _failure(session: Session, steps: Callable[[], Awaitable[None]]) -> str:
    """The message of the ServerError that ``steps`` raise, the fake server killed whatever happens."""

    async def go() -> None:
        try:
            await steps()
        finally:
            assert session.process is not None
            session.process.kill()
            await session.process.wait()

    with pytest.raises(ServerError) as raised:
        asyncio.run(go())
    return str(raised.value)


def test_a_server_that_never_answers_initialize_shows_its_standard_error(tmp_path: Path) -> None:
    session = _session(tmp_path, "import sys, time\nprint('stuck: waiting for a lock', file=sys.stderr, flush=True)\n"
                                 "time.sleep(60)\n", timeout=2)
    message = _failure(session, session.start)
    assert "no answer to `initialize` in 2 s" in message
    assert "stuck: waiting for a lock" in message


def test_a_server_that_exits_fails_at_once_with_its_traceback(tmp_path: Path) -> None:
    # Unnoticed, the end would read as the step's timeout ("no answer ... in 120 s"), not as the exit.
    session = _session(tmp_path, "raise ValueError('I/O operation on closed file')\n", timeout=120)
    with pytest.raises(ServerError) as raised:
        asyncio.run(session.start())
    message = str(raised.value)
    assert "exited with status 1" in message and "no answer" not in message
    assert "ValueError: I/O operation on closed file" in message


def test_the_open_waits_no_longer_than_the_timeout_for_diagnostics(tmp_path: Path) -> None:
    # a server that answers initialize and then publishes nothing, writing why to its standard error
    body = '''import json, sys, time
def read():
    length = 0
    while (line := sys.stdin.buffer.readline()) not in (b"\\r\\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))
message = read()
body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {}}}).encode()
sys.stdout.buffer.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
sys.stdout.buffer.flush()
print("analysis thread: deadlocked", file=sys.stderr, flush=True)
time.sleep(60)
'''
    session = _session(tmp_path, body, timeout=2)
    path = tmp_path / "module.py"
    path.write_text("x = 1\n")

    async def steps() -> None:
        await session.start()
        await session.open(path)

    message = _failure(session, steps)
    assert "no answer to version 1's diagnostics in 2 s" in message
    assert "analysis thread: deadlocked" in message
