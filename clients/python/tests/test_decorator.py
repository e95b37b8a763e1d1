"""``@requires_approval`` against a real gateway: the function runs only when approved, with the approved arguments,
and keeps its name, docstring and signature for frameworks that read them."""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Optional

import pytest
from conftest import Tokens, free_port, in_thread

from tollgate import AsyncTollgate, Denied, Expired, GatewayUnreachable, Tollgate, requires_approval


def test_the_signature_name_and_docstring_are_kept() -> None:
    def transfer(amount: int, to: str, *, memo: Optional[str] = None) -> str:
        """Moves money."""
        return to

    async def atransfer(amount: int, to: str, *, memo: Optional[str] = None) -> str:
        """Moves money, awaited."""
        return to

    for fn in (transfer, atransfer):
        gated = requires_approval(approvers=["web:alice"])(fn)
        assert gated.__name__ == fn.__name__ and gated.__doc__ == fn.__doc__
        assert inspect.signature(gated) == inspect.signature(fn)
        assert inspect.iscoroutinefunction(gated) == inspect.iscoroutinefunction(fn)


def test_runs_with_the_arguments_an_approver_edited(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    ran = []

    @requires_approval(tool, client=gate, approvers=["web:alice"])
    def delete_path(path: str, recursive: bool = False) -> str:
        ran.append((path, recursive))
        return "deleted %s" % path

    join = in_thread(lambda: delete_path("/tmp/old", recursive=True))
    request = tokens.pending(tool)[0]
    assert request["tool_args"] == {"path": "/tmp/old", "recursive": True}
    tokens.decide(request["id"], approved_args={"path": "/tmp/old/cache", "recursive": True})
    assert join() == "deleted /tmp/old/cache"
    assert ran == [("/tmp/old/cache", True)]


def test_a_denial_raises_and_nothing_runs(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    ran = []
    gated = requires_approval(tool, client=gate)(lambda path: ran.append(path))
    join = in_thread(lambda: gated("/"))
    tokens.decide(tokens.pending(tool)[0]["id"], "deny", reason="that is the root")
    with pytest.raises(Denied, match="that is the root") as raised:
        join()
    assert raised.value.verdict.status == "denied" and ran == []


def test_an_expiry_raises_and_nothing_runs(gate: Tollgate, tool: str) -> None:
    ran = []
    gated = requires_approval(tool, client=gate, expires_in=1)(lambda: ran.append(1))
    with pytest.raises(Expired):
        gated()
    assert ran == []


def test_args_maps_what_the_approver_sees(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    class Invoice:
        def __init__(self, number: int) -> None:
            self.number = number

    @requires_approval(tool, client=gate, args=lambda invoice, note: {"invoice": invoice.number, "note": note})
    def pay(invoice: Invoice, note: str) -> str:
        return "paid %d: %s" % (invoice.number, note)

    join = in_thread(lambda: pay(Invoice(7), note="rent"))
    request = tokens.pending(tool)[0]
    assert request["tool_args"] == {"invoice": 7, "note": "rent"}
    tokens.decide(request["id"])
    assert join() == "paid 7: rent"


def test_an_edit_the_function_cannot_take_fails_closed(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    ran = []
    gated = requires_approval(tool, client=gate)(lambda path: ran.append(path))
    join = in_thread(lambda: gated("/tmp/a"))
    tokens.decide(tokens.pending(tool)[0]["id"], approved_args={"path": "/tmp/a", "force": True})
    with pytest.raises(Exception, match="'force', which the function does not take"):
        join()
    assert ran == []


def test_a_gateway_that_is_down_fails_closed(tool: str) -> None:
    ran = []
    down = "http://127.0.0.1:%d" % free_port()
    gated = requires_approval(tool, client=Tollgate(down, "t", retry_for=0.5))(lambda: ran.append(1))
    agated = requires_approval(tool, client=AsyncTollgate(down, "t", retry_for=0.5))(_async_append(ran))
    with pytest.raises(GatewayUnreachable):
        gated()
    with pytest.raises(GatewayUnreachable):
        asyncio.run(agated())
    assert ran == []


def _async_append(ran: list):
    async def append() -> None:
        ran.append(1)

    return append


def test_an_async_function_is_gated_on_the_event_loop(gateway, tokens: Tokens, tool: str) -> None:
    async def main() -> str:
        gate = AsyncTollgate(gateway.url, tokens.agent)

        @requires_approval(tool, client=gate)
        async def deploy(env: str) -> str:
            return "deployed %s" % env

        task = asyncio.ensure_future(deploy("staging"))
        loop = asyncio.get_running_loop()
        request = (await loop.run_in_executor(None, tokens.pending, tool))[0]  # the test's own lookup, off the loop
        await loop.run_in_executor(None, lambda: tokens.decide(request["id"], approved_args={"env": "prod"}))
        return await asyncio.wait_for(task, 30)

    started = time.monotonic()
    assert asyncio.run(main()) == "deployed prod"
    assert time.monotonic() - started < 30
