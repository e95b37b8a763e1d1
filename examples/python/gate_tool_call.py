#!/usr/bin/env python3
"""Gate a tool call on a human's approval through tollgate's HTTP API, using only the standard library.

    export TOLLGATE_URL=http://127.0.0.1:8787 TOLLGATE_TOKEN=...
    python3 gate_tool_call.py delete_path '{"path": "/tmp/old-build"}'

The script files a confirmation request, long-polls ``GET /v1/requests/:id?wait=55`` until a human decides
(reconnecting with backoff if the gateway restarts), and runs the tool only when the request is approved, with the
arguments the approver may have edited.

Exit codes: 0 approved and run; 1 denied, expired or cancelled; 2 bad input; 3 gateway unreachable or refusing.
Copy ``request_approval`` / ``wait_for_verdict`` / ``require_approval`` into your agent; the rest is the demo.
This file is the no-install path; with pip, the ``tollgate`` package (clients/python, docs/python.md) does this and
more: ``@requires_approval``, asyncio, idempotent re-runs, verdict checks.
"""

import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
import uuid

POLL_SECONDS = 55  # the gateway holds a long-poll at most this long; stay under 60 s proxy limits


class TollgateError(Exception):
    """The gateway refused a call (status >= 400, with its problem+json) or could not be reached (status 0)."""

    def __init__(self, message, status=0, problem=None):
        super().__init__(message)
        self.status = status
        self.problem = problem or {}


class NotApproved(Exception):
    """The request ended without an approval; ``request`` is the final request."""

    def __init__(self, request):
        super().__init__(f"{request['status']}: {request.get('reason') or 'no reason given'}")
        self.request = request


def _api(method, path, body=None, timeout=30):
    url = os.environ.get("TOLLGATE_URL", "http://127.0.0.1:8787").rstrip("/") + path
    token = os.environ.get("TOLLGATE_TOKEN")
    if not token:
        raise TollgateError("set TOLLGATE_TOKEN to an API token of the gateway")
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as err:
        try:
            problem = json.load(err)
        except ValueError:
            problem = {"detail": err.reason}
        raise TollgateError(problem.get("detail", str(err)), err.code, problem) from None
    except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
        raise TollgateError(f"cannot reach the gateway at {url}: {err}") from None


def _retryable(err):
    return err.status == 0 or err.status in (429, 502, 503, 504)


def request_approval(tool_name, tool_args, idempotency_key=None, **fields):
    """Files a request (``POST /v1/requests``); ``fields`` are any other API fields (timeout_s, approvers, ...).

    With an idempotency key the call is safe to retry, and asking again later returns the same request.
    """
    body = {"tool_name": tool_name, "tool_args": tool_args, **fields}
    if idempotency_key:
        body["idempotency_key"] = idempotency_key
    return _api("POST", "/v1/requests", body)


def wait_for_verdict(request_id, max_wait_s=None):
    """Long-polls until the request leaves ``pending``; rides out restarts and network errors with backoff.

    Returns the request as last seen (maybe still pending) when ``max_wait_s`` runs out.
    """
    deadline = None if max_wait_s is None else time.monotonic() + max_wait_s
    delay, last = 0.25, None
    while True:
        left = POLL_SECONDS if deadline is None else max(0.0, deadline - time.monotonic())
        wait = round(min(POLL_SECONDS, left), 1)
        try:
            last = _api("GET", f"/v1/requests/{request_id}?wait={wait}", timeout=wait + 15)
            delay = 0.25
            if last["status"] != "pending" or wait == 0:
                return last
        except TollgateError as err:
            if not _retryable(err):
                raise
            pause = delay * random.uniform(0.5, 1.0)
            if deadline is not None and time.monotonic() + pause >= deadline:
                if last is not None:
                    return last
                raise
            time.sleep(pause)
            delay = min(delay * 2, 5.0)


def decide_url(request_id):
    """The request's page in the web inbox, where an approver can decide it (chat cards carry the same buttons)."""
    base = os.environ.get("TOLLGATE_URL", "http://127.0.0.1:8787").rstrip("/")
    return f"{base}/ui/requests/{request_id}"


def say_waiting(request):
    """Tells whoever runs the agent what it waits for and where to decide it (on stderr: stdout stays the tool's)."""
    if request["status"] == "pending":
        approvers = ", ".join(request.get("approvers") or []) or "anyone who sees the card"
        print(
            f"waiting for a decision on request {request['id']} ({request['tool_name']}; approvers: {approvers}; "
            f"expires {request['expires_at']}): decide it at {decide_url(request['id'])}",
            file=sys.stderr,
            flush=True,
        )


def require_approval(tool_name, tool_args, idempotency_key=None, max_wait_s=None, on_filed=say_waiting, **fields):
    """Asks and waits; returns the arguments to run with (the approver's edits, if any) or raises NotApproved.

    ``on_filed(request)`` runs once the request is filed, before waiting (by default it prints where to decide it).
    """
    request = request_approval(tool_name, tool_args, idempotency_key, **fields)
    if on_filed:
        on_filed(request)
    final = wait_for_verdict(request["id"], max_wait_s)
    if final.get("allowed") is not True:
        raise NotApproved(final)
    return final.get("approved_args") or tool_args


# --- the demo ------------------------------------------------------------------------------------------------


def delete_path(path):
    """The sensitive tool being gated (the demo only pretends)."""
    print(f"deleted {path}")


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print("usage: gate_tool_call.py TOOL_NAME 'JSON_ARGS' [IDEMPOTENCY_KEY [EXPIRES_S]]", file=sys.stderr)
        return 2
    tool_name = argv[0]
    try:
        tool_args = json.loads(argv[1])
    except ValueError as err:
        print(f"tool arguments are not JSON: {err}", file=sys.stderr)
        return 2
    key = argv[2] if len(argv) > 2 else f"python-example:{uuid.uuid4()}"
    fields = {"timeout_s": int(argv[3])} if len(argv) > 3 else {}
    try:
        args = require_approval(tool_name, tool_args, idempotency_key=key, agent_id="python-example", **fields)
    except NotApproved as no:
        print(f"not run: {no}")
        return 1
    except TollgateError as err:
        print(f"tollgate: {err}", file=sys.stderr)
        return 2 if 400 <= err.status < 500 and err.status not in (401, 403, 429) else 3
    print(f"approved: running {tool_name} with {json.dumps(args, sort_keys=True)}")
    if tool_name == "delete_path":
        delete_path(args.get("path"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
