"""The analysis thread hands each judgement back to the event loop that waits for it, and an exit mid-judgement
stays clean (no traceback on standard error, which `jitcheck server`'s exit status tests also read)."""

from __future__ import annotations

import asyncio
import threading

from jitcheck.server.analyst import Analyst


def test_a_result_comes_back_on_the_loop_and_an_error_is_raised_there() -> None:
    analyst = Analyst()

    async def main() -> tuple[int, str]:
        value = await analyst.call(lambda: 6 * 7)
        try:
            await analyst.call(lambda: 1 // 0)
        except ZeroDivisionError as error:
            return value, type(error).__name__
        return value, "nothing raised"

    assert asyncio.run(main()) == (42, "ZeroDivisionError")


def test_a_judgement_that_ends_after_its_loop_closed_is_dropped_without_a_traceback() -> None:
    # The server's loop closes on `exit` while the thread still judges a long file: the result has no one to go to.
    # Before, the thread died with "RuntimeError: Event loop is closed", printed as a traceback on standard error.
    analyst = Analyst()
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    raised: list[BaseException] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: raised.append(args.exc_value) if args.exc_value is not None else None

    def judgement() -> int:
        started.set()
        release.wait(30)
        return 1

    async def submit() -> None:
        asyncio.get_running_loop().create_task(analyst.call(judgement))
        await asyncio.sleep(0)

    try:
        loop = asyncio.new_event_loop()
        loop.run_until_complete(submit())
        assert started.wait(30)
        loop.close()
        release.set()
        # The next piece of work runs only once the thread has handed the first one back (or died trying).
        after = asyncio.new_event_loop()
        try:
            assert after.run_until_complete(asyncio.wait_for(analyst.call(finished.set), 30)) is None
        finally:
            after.close()
    finally:
        threading.excepthook = previous
    assert finished.is_set()
    assert raised == []
