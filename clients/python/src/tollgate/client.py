"""The blocking client, :class:`Tollgate`, on the standard library's ``http.client``."""

from __future__ import annotations

import http.client
import json
import math
import ssl
import time
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence

from . import _core
from ._core import Call, Settings, WaitArg
from ._sse import SseParser
from .errors import TollgateError
from .verdict import Verdict

__all__ = ["Tollgate"]


class Tollgate:
    """A client of the tollgate HTTP API that blocks while it waits.

    ``url`` and ``token`` default to ``TOLLGATE_URL`` (else ``http://127.0.0.1:8787``) and ``TOLLGATE_TOKEN``.
    ``run_id`` names the run the calls belong to (default ``TOLLGATE_RUN_ID``, else one per process): the same tool
    with the same arguments in the same run re-attaches to the same request. ``retry_for`` is how long a call keeps
    trying a gateway that does not answer (or answers 5xx) before it raises.

    >>> gate = Tollgate()  # doctest: +SKIP
    >>> verdict = gate.request("deploy", {"env": "prod"}, approvers=["web:alice"])  # doctest: +SKIP
    >>> if verdict.allowed: deploy(**verdict.args)  # doctest: +SKIP
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

    def request(
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
        """Asks for approval of ``tool`` with ``args`` (``POST /v1/requests``) and waits for the verdict.

        ``wait=True`` waits until someone decides or the request expires; a number waits at most that many seconds
        (the verdict may then still be pending); ``False`` returns at once. ``expires_in`` (seconds) is when the
        request expires; other API fields (``channels``, ``metadata``, ``required_approvals``, ``on_timeout``…) pass
        through ``fields``. Never raises for a denial: look at ``allowed``, or call ``raise_for_status()``.
        """
        body = _core.request_body(tool, args or {}, approvers, prompt, expires_in, agent_id, context, fields)
        return self._verdict(_core.request_flow(self._settings, body, idempotency_key, run_id, wait))

    def check(self, tool: str, args: Optional[Mapping[str, Any]] = None, **options: Any) -> Verdict:
        """:meth:`request` with ``wait=False``: files the call (or finds it again) and returns at once, pending or
        decided. For frameworks that suspend a run rather than block in it."""
        options["wait"] = False
        return self.request(tool, args, **options)

    def get(self, request_id: str) -> Verdict:
        """The request as it is now."""
        call = Call("GET", _core.request_path(request_id))
        return self._verdict(_core.send(call, time.monotonic() + self._settings.retry_for))

    def wait(self, request_id: str, timeout: Optional[float] = None) -> Verdict:
        """Waits for the request's verdict over the API's long-poll, reconnecting through gateway restarts; with
        ``timeout`` (seconds), returns it as last seen (maybe still pending) once that time is up."""
        return self._verdict(_core.wait_flow(self._settings, request_id, timeout))

    def cancel(self, request_id: str, reason: Optional[str] = None) -> Verdict:
        """Cancels a pending request (a decided one answers 409, raised as :class:`TollgateError`)."""
        body = {"reason": reason} if reason else {}
        call = Call("POST", _core.request_path(request_id, "/cancel"), body)
        return self._verdict(_core.send(call, time.monotonic() + self._settings.retry_for))

    def verdicts(self, request_ids: Iterable[str], timeout: Optional[float] = None) -> Iterator[Verdict]:
        """Yields each request's verdict as it becomes final, over one verdict stream (``POST /v1/requests/verdicts``)
        instead of a long-poll each. A dropped stream is opened again for the ids still owed. With ``timeout``
        (seconds), stops then, leaving out the ones still pending."""
        owed = list(dict.fromkeys(request_ids))
        deadline = math.inf if timeout is None else time.monotonic() + timeout
        backoff = _core.Backoff()
        while owed and time.monotonic() < deadline:
            batch = owed[: _core.IDS_PER_STREAM]
            try:
                for request in self._stream(batch, deadline):
                    if request.get("id") in owed:
                        owed.remove(request["id"])
                        backoff.reset()
                        yield _core.to_verdict(self._settings, request)
                if not any(i in owed for i in batch):
                    continue
            except TollgateError as error:
                if not error.retryable:
                    raise
            time.sleep(max(0.0, min(backoff.next(), deadline - time.monotonic())))

    def _stream(self, ids: list[str], deadline: float) -> Iterator[dict[str, Any]]:
        """One verdict stream: its ``verdict`` events' requests, until it ends, stalls or the deadline passes."""
        conn = self._connection(_core.STREAM_STALL_S)
        try:
            data = _core.encode_body({"ids": ids})
            headers = self._settings.headers(data, accept="text/event-stream")
            try:
                conn.request("POST", self._settings.base_path + "/v1/requests/verdicts", body=data, headers=headers)
                response = conn.getresponse()
            except (OSError, http.client.HTTPException) as error:
                raise _core.unreachable(self._settings, error) from None
            if response.status != 200:
                _core.interpret(response.status, response.reason, response.read())
            parser = SseParser()
            while time.monotonic() < deadline:
                try:
                    chunk = response.read1(65536)
                except (OSError, http.client.HTTPException) as error:
                    raise _core.unreachable(self._settings, error) from None
                if not chunk:
                    return
                for event, text in parser.feed(chunk):
                    if event == "verdict":
                        yield json.loads(text)
        finally:
            conn.close()

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        s = self._settings
        if s.scheme == "https":
            return http.client.HTTPSConnection(s.host, s.port, timeout=timeout, context=self._ssl)
        return http.client.HTTPConnection(s.host, s.port, timeout=timeout)

    def _attempt(self, call: Call) -> Any:
        """One HTTP exchange on a fresh connection (a long-poll holds its own for up to a minute anyway)."""
        data = _core.encode_body(call.body)
        conn = self._connection(call.timeout)
        try:
            conn.request(call.method, self._settings.base_path + call.path, body=data,
                         headers=self._settings.headers(data))
            response = conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            raise _core.unreachable(self._settings, error) from None
        finally:
            conn.close()
        return _core.interpret(response.status, response.reason, raw)

    def _verdict(self, flow: _core.Flow) -> Verdict:
        return _core.to_verdict(self._settings, _core.run_sync(flow, self._attempt))
