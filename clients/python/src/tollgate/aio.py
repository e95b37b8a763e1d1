"""The asyncio client, :class:`AsyncTollgate`: the same methods as :class:`~tollgate.Tollgate`, awaited.

Every wait is an await on the event loop (asyncio streams, see ``_aio_http``): a hundred calls waiting for humans
cost a hundred sockets, no threads, and none holds up another.
"""

from __future__ import annotations

import asyncio
import json
import math
import ssl
import time
from typing import Any, AsyncIterator, Iterable, Mapping, Optional, Sequence

from . import _core
from ._aio_http import Exchange
from ._core import Call, Settings, Sleep, WaitArg
from ._sse import SseParser
from .errors import TollgateError
from .verdict import Verdict

__all__ = ["AsyncTollgate"]

_NO_ANSWER = (OSError, EOFError, ValueError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError)


class AsyncTollgate:
    """A client of the tollgate HTTP API for asyncio code; see :class:`~tollgate.Tollgate` for each method.

    >>> gate = AsyncTollgate()  # doctest: +SKIP
    >>> verdict = await gate.request("deploy", {"env": "prod"})  # doctest: +SKIP
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        run_id: Optional[str] = None,
        retry_for: float = 30.0,
        poll_seconds: float = _core.POLL_SECONDS,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        self._settings = Settings(url, token, run_id, retry_for, poll_seconds)
        self._ssl = ssl_context

    @property
    def url(self) -> str:
        """The gateway's base URL, without a trailing slash."""
        return self._settings.url

    async def request(
        self,
        tool: str,
        args: Optional[Mapping[str, Any]] = None,
        *,
        approvers: Optional[Sequence[str]] = None,
        prompt: Optional[str] = None,
        expires_in: Optional[float] = None,
        idempotency_key: Optional[str] = None,
        agent_id: Optional[str] = None,
        context: Optional[Mapping[str, Any]] = None,
        run_id: Optional[str] = None,
        wait: WaitArg = True,
        **fields: Any,
    ) -> Verdict:
        """Asks for approval and waits for the verdict (see :meth:`tollgate.Tollgate.request`)."""
        body = _core.request_body(tool, args or {}, approvers, prompt, expires_in, agent_id, context, fields)
        return await self._verdict(_core.request_flow(self._settings, body, idempotency_key, run_id, wait))

    async def check(self, tool: str, args: Optional[Mapping[str, Any]] = None, **options: Any) -> Verdict:
        """:meth:`request` with ``wait=False``: returns at once, pending or decided."""
        options["wait"] = False
        return await self.request(tool, args, **options)

    async def get(self, request_id: str) -> Verdict:
        """The request as it is now."""
        call = Call("GET", _core.request_path(request_id))
        return await self._verdict(_core.send(call, time.monotonic() + self._settings.retry_for))

    async def wait(self, request_id: str, timeout: Optional[float] = None) -> Verdict:
        """Waits for the verdict over the long-poll (see :meth:`tollgate.Tollgate.wait`)."""
        return await self._verdict(_core.wait_flow(self._settings, request_id, timeout))

    async def cancel(self, request_id: str, reason: Optional[str] = None) -> Verdict:
        """Cancels a pending request."""
        call = Call("POST", _core.request_path(request_id, "/cancel"), {"reason": reason} if reason else {})
        return await self._verdict(_core.send(call, time.monotonic() + self._settings.retry_for))

    async def verdicts(self, request_ids: Iterable[str], timeout: Optional[float] = None) -> AsyncIterator[Verdict]:
        """Yields each verdict as it becomes final, over one verdict stream (see :meth:`tollgate.Tollgate.verdicts`)."""
        owed = list(dict.fromkeys(request_ids))
        deadline = math.inf if timeout is None else time.monotonic() + timeout
        backoff = _core.Backoff()
        while owed and time.monotonic() < deadline:
            batch = owed[: _core.IDS_PER_STREAM]
            try:
                async for request in self._stream(batch, deadline):
                    if request.get("id") in owed:
                        owed.remove(request["id"])
                        backoff.reset()
                        yield _core.to_verdict(self._settings, request)
                if not any(i in owed for i in batch):
                    continue
            except TollgateError as error:
                if not error.retryable:
                    raise
            await asyncio.sleep(max(0.0, min(backoff.next(), deadline - time.monotonic())))

    async def _stream(self, ids: list[str], deadline: float) -> AsyncIterator[dict[str, Any]]:
        data = _core.encode_body({"ids": ids})
        try:
            exchange = await asyncio.wait_for(
                Exchange.open(self._settings, "POST", "/v1/requests/verdicts", data, "text/event-stream", self._ssl),
                _core.CALL_TIMEOUT_S,
            )
        except _NO_ANSWER as error:
            raise _core.unreachable(self._settings, error) from None
        try:
            if exchange.status != 200:
                _core.interpret(exchange.status, exchange.reason, await exchange.body())
            parser = SseParser()
            chunks = exchange.chunks().__aiter__()
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                try:
                    chunk = await asyncio.wait_for(chunks.__anext__(), min(left, _core.STREAM_STALL_S))
                except StopAsyncIteration:
                    return
                except asyncio.TimeoutError:
                    if time.monotonic() >= deadline:
                        return
                    raise _core.unreachable(self._settings, ConnectionError("the verdict stream stalled")) from None
                except _NO_ANSWER as error:
                    raise _core.unreachable(self._settings, error) from None
                for event, text in parser.feed(chunk):
                    if event == "verdict":
                        yield json.loads(text)
        finally:
            exchange.close()

    async def _attempt(self, call: Call) -> Any:
        data = _core.encode_body(call.body)

        async def exchange_once() -> tuple[int, str, bytes]:
            exchange = await Exchange.open(self._settings, call.method, call.path, data, "application/json", self._ssl)
            try:
                return exchange.status, exchange.reason, await exchange.body()
            finally:
                exchange.close()

        try:
            status, reason, raw = await asyncio.wait_for(exchange_once(), call.timeout)
        except _NO_ANSWER as error:
            raise _core.unreachable(self._settings, error) from None
        return _core.interpret(status, reason, raw)

    async def _verdict(self, flow: _core.Flow) -> Verdict:
        return _core.to_verdict(self._settings, await _run_async(flow, self._attempt))


async def _run_async(flow: _core.Flow, attempt: Any) -> Any:
    """Drives a flow with awaits: the asyncio twin of ``_core.run_sync``."""
    try:
        step = next(flow)
        while True:
            if isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
                step = flow.send(None)
                continue
            try:
                result = await attempt(step)
            except TollgateError as error:
                step = flow.throw(error)
            else:
                step = flow.send(result)
    except StopIteration as stop:
        return stop.value
