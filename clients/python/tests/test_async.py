"""``AsyncTollgate`` against a real gateway: a hundred calls wait on one event loop, none holding up another, with
no thread per wait; and the async verdict stream."""

from __future__ import annotations

import asyncio
import threading
import time

from conftest import Tokens

from tollgate import AsyncTollgate


def test_a_hundred_waiters_share_one_loop_without_blocking_it(gateway, tokens: Tokens, tool: str) -> None:
    async def main() -> None:
        gate = AsyncTollgate(gateway.url, tokens.agent)
        loop = asyncio.get_running_loop()
        gaps: list[float] = []
        stop = asyncio.Event()

        async def ticker() -> None:  # measures how long the loop ever went without running it
            last = time.monotonic()
            while not stop.is_set():
                await asyncio.sleep(0.01)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        tick = asyncio.ensure_future(ticker())
        threads_before = threading.active_count()
        waiters = [asyncio.ensure_future(gate.request(tool, {"n": n})) for n in range(100)]
        pending = await loop.run_in_executor(None, _all_pending, tokens, tool, 100)
        threads_while_waiting = threading.active_count()
        assert not any(w.done() for w in waiters)
        # Decide in the reverse order of filing, the odd ones denied: each waiter must get its own verdict.
        by_n = {r["tool_args"]["n"]: r["id"] for r in pending}
        for n in reversed(range(100)):
            await loop.run_in_executor(None, lambda n=n: tokens.decide(by_n[n], "deny" if n % 2 else "approve"))
        verdicts = await asyncio.wait_for(asyncio.gather(*waiters), 60)
        stop.set()
        await tick
        assert [v.requested_args["n"] for v in verdicts] == list(range(100))
        assert [v.allowed for v in verdicts] == [n % 2 == 0 for n in range(100)]
        assert [v.id for v in verdicts] == [by_n[n] for n in range(100)]
        # No thread per waiter (the executor used above for the test's own lookups has a few at most).
        assert threads_while_waiting - threads_before < 10
        # The loop kept running while the hundred waited: no stall near a long-poll's length.
        assert max(gaps) < 2.0, max(gaps)

    asyncio.run(main())


def _all_pending(tokens: Tokens, tool: str, count: int) -> list:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, page = tokens.gateway.api("GET", "/v1/requests?status=pending&tool_name=%s&limit=500" % tool)
        if len(page["items"]) >= count:
            return page["items"]
        time.sleep(0.1)
    raise AssertionError("only %d pending" % len(page["items"]))


def test_the_async_verdict_stream_and_check(gateway, tokens: Tokens, tool: str) -> None:
    async def main() -> None:
        gate = AsyncTollgate(gateway.url, tokens.agent)
        filed = [await gate.check(tool, {"i": i}) for i in range(2)]
        assert all(f.pending for f in filed)
        loop = asyncio.get_running_loop()
        got = []
        stream = gate.verdicts([f.id for f in filed], timeout=30)
        await loop.run_in_executor(None, lambda: tokens.decide(filed[0].id))
        async for verdict in stream:
            got.append((verdict.id, verdict.status))
            if len(got) == 1:
                await loop.run_in_executor(None, lambda: tokens.decide(filed[1].id, "deny"))
        assert got == [(filed[0].id, "approved"), (filed[1].id, "denied")]
        assert (await gate.get(filed[0].id)).allowed
        assert (await gate.wait(filed[1].id, timeout=1)).status == "denied"

    asyncio.run(main())
