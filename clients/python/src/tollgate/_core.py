"""What the sync and the async client share, written once: settings, the API's bodies, how an answer becomes a
result or an error, and the call flows (retry, long-poll, file-or-attach) as generators of steps.

A flow yields :class:`Call` (one HTTP attempt: the driver sends back the parsed JSON, or throws the
:class:`TollgateError` the attempt raised) and :class:`Sleep` (the driver sleeps, with ``time.sleep`` or
``asyncio.sleep``). So the retry and waiting rules exist once, and the async client never blocks its loop.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Generator, Mapping, Optional, Sequence, Union
from urllib.parse import quote, urlsplit

from ._version import __version__
from ._ledger import LEDGER, PROCESS_RUN_ID, call_base
from .errors import GatewayUnreachable, TollgateError
from .verdict import Verdict

#: The longest a long-poll asks the gateway to hold (its maximum, under common 60 s proxy limits).
POLL_SECONDS = 55.0
#: Added to a long-poll's hold for the socket's own timeout: a socket never gives up before the gateway answers.
POLL_MARGIN_S = 15.0
#: Time limit of one ordinary call.
CALL_TIMEOUT_S = 30.0
#: A verdict stream silent this long is dead (the gateway sends a heartbeat every 15 s).
STREAM_STALL_S = 45.0
#: Ids one verdict stream carries (the gateway takes up to 5,000).
IDS_PER_STREAM = 5000


@dataclass(frozen=True)
class Call:
    """One HTTP attempt: ``method`` ``path`` (under the gateway's URL) with a JSON ``body``, within ``timeout`` s."""

    method: str
    path: str
    body: Any = None
    timeout: float = CALL_TIMEOUT_S


@dataclass(frozen=True)
class Sleep:
    """Pause the flow for ``seconds``."""

    seconds: float


Flow = Generator[Union[Call, Sleep], Any, Any]


class Settings:
    """Where the gateway is and how patient to be; both clients hold one."""

    def __init__(
        self,
        url: Optional[str],
        token: Optional[str],
        run_id: Optional[str],
        retry_for: float,
        poll_seconds: float,
    ) -> None:
        self.url = (url or os.environ.get("TOLLGATE_URL") or "http://127.0.0.1:8787").rstrip("/")
        token = token if token is not None else os.environ.get("TOLLGATE_TOKEN")
        if not token:
            raise TollgateError("no API token: pass token= or set TOLLGATE_TOKEN to a token of the gateway")
        self.token = token
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TollgateError("the gateway URL must be http(s)://host[:port], got %r" % self.url)
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.base_path = parts.path.rstrip("/")
        self.run_id = run_id or os.environ.get("TOLLGATE_RUN_ID") or PROCESS_RUN_ID
        self.retry_for = retry_for
        self.poll_seconds = min(max(poll_seconds, 1.0), POLL_SECONDS)

    def headers(self, body: Optional[bytes], accept: str = "application/json") -> dict[str, str]:
        """The headers of every call."""
        headers = {
            "Authorization": "Bearer %s" % self.token,
            "Accept": accept,
            "User-Agent": "tollgate-python/%s" % __version__,
        }
        if body is not None:
            headers["Content-Type"] = "application/json"
        return headers


def encode_body(body: Any) -> Optional[bytes]:
    """The JSON bytes of a body (NaN and infinities refused: the gateway's JSON has none)."""
    if body is None:
        return None
    try:
        return json.dumps(body, allow_nan=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise TollgateError("the arguments are not JSON: %s" % error) from None


def interpret(status: int, reason: str, raw: bytes) -> Any:
    """The parsed body of a 2xx answer; a :class:`TollgateError` carrying the problem+json of any other."""
    if 200 <= status < 300:
        return json.loads(raw) if raw else None
    problem: dict[str, Any]
    try:
        parsed = json.loads(raw)
        problem = parsed if isinstance(parsed, dict) and isinstance(parsed.get("detail"), str) else {}
    except ValueError:
        problem = {}
    if not problem:
        text = raw[:300].decode("utf-8", "replace").strip()
        problem = {"type": "about:blank", "title": reason, "status": status, "detail": text or "HTTP %d" % status}
    raise TollgateError(problem["detail"], status, problem)


def unreachable(settings: Settings, error: BaseException) -> GatewayUnreachable:
    """The error for an attempt that got no answer."""
    what = str(error) or type(error).__name__
    return GatewayUnreachable("cannot reach the gateway at %s: %s" % (settings.url, what))


class Backoff:
    """Delays that double from 0.25 s to 5 s, each between half and all of its ceiling (jitter), reset on success."""

    def __init__(self, initial: float = 0.25, ceiling: float = 5.0) -> None:
        self.initial, self.ceiling, self.attempts = initial, ceiling, 0

    def next(self) -> float:
        top: float = min(self.ceiling, self.initial * 2.0**self.attempts)
        self.attempts += 1
        return top / 2 + random.random() * top / 2

    def reset(self) -> None:
        self.attempts = 0


def send(call: Call, retry_until: Optional[float]) -> Flow:
    """One call, tried again with backoff on no answer, 5xx and 429 until ``retry_until`` (monotonic); never on
    another 4xx. Without ``retry_until``, tried once."""
    backoff = Backoff()
    while True:
        try:
            return (yield call)
        except TollgateError as error:
            if retry_until is None or not error.retryable:
                raise
            delay = backoff.next()
            if time.monotonic() + delay > retry_until:
                raise
            yield Sleep(delay)


def request_path(request_id: str, suffix: str = "") -> str:
    """``/v1/requests/<id><suffix>``, the id escaped."""
    return "/v1/requests/%s%s" % (quote(request_id, safe=""), suffix)


def wait_flow(settings: Settings, request_id: str, timeout: Optional[float]) -> Flow:
    """Long-polls ``GET /v1/requests/:id?wait=55`` until the request is final, riding out restarts and network errors
    with backoff; with ``timeout`` (seconds), returns the request as last seen once that time is up."""
    deadline = math.inf if timeout is None else time.monotonic() + max(0.0, timeout)
    backoff = Backoff()
    last: Optional[dict[str, Any]] = None
    while True:
        remaining = deadline - time.monotonic()
        hold = max(0.0, math.floor(min(settings.poll_seconds, remaining) * 10) / 10)
        started = time.monotonic()
        try:
            last = yield Call("GET", request_path(request_id, "?wait=%g" % hold), timeout=hold + POLL_MARGIN_S)
        except TollgateError as error:
            if not error.retryable:
                raise
            delay = backoff.next()
            if time.monotonic() + delay >= deadline:
                if last is not None:
                    return last
                raise
            yield Sleep(delay)
            continue
        assert last is not None
        if last["status"] != "pending" or hold == 0 or time.monotonic() >= deadline:
            return last
        # A gateway shutting down answers long-polls at once with the row as it is: do not spin on it.
        if time.monotonic() - started < hold / 2:
            yield Sleep(min(backoff.next(), max(0.0, deadline - time.monotonic())))
        else:
            backoff.reset()


def request_body(
    tool: str,
    args: Mapping[str, Any],
    approvers: Optional[Sequence[str]],
    prompt: Optional[str],
    expires_in: Optional[float],
    agent_id: Optional[str],
    context: Optional[Mapping[str, Any]],
    fields: Mapping[str, Any],
) -> dict[str, Any]:
    """The ``POST /v1/requests`` body."""
    if not isinstance(args, Mapping):
        raise TollgateError("the arguments must be a mapping of names to JSON values, not %s" % type(args).__name__)
    body: dict[str, Any] = {"tool_name": tool, "tool_args": dict(args)}
    if approvers is not None:
        body["approvers"] = list(approvers)
    if prompt is not None:
        body["prompt"] = prompt
    if expires_in is not None:
        seconds = expires_in.total_seconds() if hasattr(expires_in, "total_seconds") else expires_in  # timedelta
        body["timeout_s"] = max(1, math.ceil(seconds))
    if agent_id is not None:
        body["agent_id"] = agent_id
    if context is not None:
        body["context"] = dict(context)
    body.update(fields)
    return body


WaitArg = Union[bool, float, int]


def request_flow(
    settings: Settings,
    body: dict[str, Any],
    idempotency_key: Optional[str],
    run_id: Optional[str],
    wait: WaitArg,
) -> Flow:
    """Files (or re-attaches to) a request and, unless ``wait`` is False, waits for its verdict.

    Without an ``idempotency_key`` one is derived from the call (tool, argument hash, run id) and a generation that
    moves on once this process used the verdict: the same call asked again while its request is pending, or after a
    verdict nobody here used — by a framework re-running a node on resume, say — lands on that request.
    """
    started = time.monotonic()
    limit: Optional[float] = None if wait is True else (0.0 if wait is False else float(wait))
    base = None if idempotency_key else call_base(body["tool_name"], body["tool_args"], run_id or settings.run_id)
    while True:
        generation = 0
        if base is not None:
            generation = LEDGER.generation(base)
            idempotency_key = "py:%s:%d" % (base, generation)
        call = Call("POST", "/v1/requests", dict(body, idempotency_key=idempotency_key))
        filed = yield from send(call, time.monotonic() + settings.retry_for)
        if base is not None and LEDGER.used(filed["id"]):
            LEDGER.move_on(base, generation)
            continue
        final = filed
        if filed["status"] == "pending" and limit != 0:
            left = None if limit is None else max(0.0, limit - (time.monotonic() - started))
            final = yield from wait_flow(settings, filed["id"], left)
        if final["status"] == "pending" or base is None:
            return final
        if LEDGER.claim(final["id"], base, generation):
            return final
        # Two identical calls of this process waited on one request: the first used it, this one asks again.


def run_sync(flow: Flow, attempt: Callable[[Call], Any]) -> Any:
    """Drives a flow with blocking I/O."""
    try:
        step = next(flow)
        while True:
            if isinstance(step, Sleep):
                time.sleep(step.seconds)
                step = flow.send(None)
                continue
            try:
                result = attempt(step)
            except TollgateError as error:
                step = flow.throw(error)
            else:
                step = flow.send(result)
    except StopIteration as stop:
        return stop.value


def to_verdict(settings: Settings, request: Mapping[str, Any]) -> Verdict:
    """The API's request as a :class:`Verdict` (its inbox link under this gateway's URL)."""
    return Verdict.from_api(request, settings.url)
