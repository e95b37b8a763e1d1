"""An approval that arrives after the gateway restarted: the waiting clients (sync and async) ride out a SIGKILL of
the gateway mid long-poll and collect the verdict given to the new process (same port, same database)."""

from __future__ import annotations

import asyncio

from conftest import Gateway, Tokens, in_thread

from tollgate import AsyncTollgate, Tollgate


def test_waiters_ride_out_a_restart_and_collect_the_verdict(gateway: Gateway, tokens: Tokens, tool: str) -> None:
    # The session's gateway itself restarts (one start fewer than a gateway of its own): its tokens live in its
    # database, so the tests after this one find them again.
    gate = Tollgate(gateway.url, tokens.agent)
    filed = gate.check(tool, {"n": 1})
    sync_wait = in_thread(lambda: gate.wait(filed.id))
    async_wait = in_thread(lambda: asyncio.run(AsyncTollgate(gateway.url, tokens.agent).wait(filed.id)))
    gateway.restart()  # SIGKILL: both waiters' connections drop mid long-poll
    assert gate.get(filed.id).pending
    tokens.decide(filed.id)
    for join in (sync_wait, async_wait):
        verdict = join(90)
        assert (verdict.id, verdict.status, verdict.allowed) == (filed.id, "approved", True)
