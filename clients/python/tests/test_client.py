"""The blocking client against a real gateway: approve, deny, edits, expiry, idempotent re-runs, cancel, the verdict
stream, problem+json errors, retries (and none on 4xx) and a gateway that is down."""

from __future__ import annotations

import http.server
import threading
import time

import pytest
from conftest import Tokens, free_port, in_thread

from tollgate import Denied, Expired, GatewayUnreachable, StillPending, Tollgate, TollgateError


def test_approved_verdict_carries_what_the_caller_needs(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    join = in_thread(lambda: gate.request(tool, {"env": "prod"}, approvers=["web:alice"], prompt="Deploy?"))
    request = tokens.pending(tool)[0]
    assert request["approvers"] == ["web:alice"] and request["prompt"] == "Deploy?"
    tokens.decide(request["id"], reason="go")
    verdict = join()
    assert (verdict.status, verdict.allowed, verdict.reason) == ("approved", True, "go")
    assert verdict.id == request["id"] and verdict.args == {"env": "prod"} and not verdict.edited
    assert verdict.responded_by and "alice" in verdict.responded_by
    assert verdict.token and verdict.token.count(".") == 2
    assert verdict.inbox_url == "%s/ui/requests/%s" % (gate.url, verdict.id)


def test_denied_verdict_is_returned_and_raises_on_demand(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    join = in_thread(lambda: gate.request(tool, {"path": "/"}))
    tokens.decide(tokens.pending(tool)[0]["id"], "deny", reason="that is the root")
    verdict = join()
    assert (verdict.status, verdict.allowed) == ("denied", False)
    with pytest.raises(Denied, match="that is the root") as raised:
        verdict.raise_for_status()
    assert raised.value.verdict is verdict


def test_edited_arguments_become_the_args_to_run(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    join = in_thread(lambda: gate.request(tool, {"path": "/tmp/old"}))
    tokens.decide(tokens.pending(tool)[0]["id"], approved_args={"path": "/tmp/old/cache"})
    verdict = join()
    assert verdict.edited and verdict.args == {"path": "/tmp/old/cache"}
    assert verdict.requested_args == {"path": "/tmp/old"}


def test_a_request_nobody_decides_expires(gate: Tollgate, tool: str) -> None:
    started = time.monotonic()
    verdict = gate.request(tool, {"n": 1}, expires_in=1)
    assert (verdict.status, verdict.allowed) == ("expired", False)
    assert time.monotonic() - started < 15
    with pytest.raises(Expired):
        verdict.raise_for_status()


def test_a_bounded_wait_returns_the_request_still_pending(gate: Tollgate, tool: str) -> None:
    verdict = gate.request(tool, {}, wait=0.5)
    assert verdict.pending
    with pytest.raises(StillPending):
        verdict.raise_for_status()
    assert gate.cancel(verdict.id, "test over").status == "cancelled"


def test_rerunning_a_call_collects_the_one_verdict(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    # A framework that suspends (check) and re-runs the node on resume: one request, one verdict, whatever the count.
    first = gate.check(tool, {"invoice": 42}, run_id="thread-7")
    assert first.pending
    again = Tollgate(gate.url, tokens.agent).check(tool, {"invoice": 42}, run_id="thread-7")  # another client
    assert again.id == first.id and again.pending
    tokens.decide(first.id)
    resumed = gate.check(tool, {"invoice": 42}, run_id="thread-7")
    assert resumed.id == first.id and resumed.allowed
    assert len(tokens.requests_of(tool)) == 1
    # Another run, or other arguments, are another call.
    other_run = gate.check(tool, {"invoice": 42}, run_id="thread-8")
    other_args = gate.check(tool, {"invoice": 43}, run_id="thread-7")
    assert len({first.id, other_run.id, other_args.id}) == 3
    # The verdict was used: the same call asked again from this process asks a human again.
    asked_again = gate.check(tool, {"invoice": 42}, run_id="thread-7")
    assert asked_again.pending and asked_again.id != first.id
    for verdict in (other_run, other_args, asked_again):
        gate.cancel(verdict.id)


def test_a_restarted_process_collects_the_verdict_of_its_run(gateway, tokens: Tokens, tool: str) -> None:
    # Two processes of one run (a LangGraph thread resumed elsewhere): the second collects the first's verdict.
    import subprocess
    import sys

    from conftest import ROOT

    script = ("import sys; from tollgate import Tollgate; v = Tollgate().check(sys.argv[1], {'x': 1}, run_id='r-1');"
              "print(v.id, v.status)")
    env = {"TOLLGATE_URL": gateway.url, "TOLLGATE_TOKEN": tokens.agent,
           "PYTHONPATH": str(ROOT / "clients" / "python" / "src")}
    run = lambda: subprocess.run([sys.executable, "-c", script, tool], env=env, capture_output=True, text=True,
                                 check=True).stdout.split()
    request_id, status = run()
    assert status == "pending"
    tokens.decide(request_id)
    assert run() == [request_id, "approved"]


def test_get_and_cancel(gate: Tollgate, tool: str) -> None:
    filed = gate.check(tool, {"a": 1})
    assert gate.get(filed.id).pending
    cancelled = gate.cancel(filed.id, "no longer needed")
    assert (cancelled.status, cancelled.allowed) == ("cancelled", False)
    with pytest.raises(TollgateError) as raised:
        gate.cancel(filed.id)
    assert raised.value.status == 409


def test_the_verdict_stream_yields_each_verdict_as_it_comes(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    filed = [gate.check(tool, {"i": i}) for i in range(3)]
    tokens.decide(filed[1].id, "deny", reason="no")
    stream = gate.verdicts([f.id for f in filed], timeout=30)
    first = next(stream)
    assert (first.id, first.status) == (filed[1].id, "denied")
    tokens.decide(filed[2].id)
    tokens.decide(filed[0].id, approved_args={"i": 100})
    rest = {v.id: v for v in stream}
    assert rest[filed[2].id].allowed and rest[filed[0].id].args == {"i": 100}


def test_bad_input_surfaces_the_problem_and_its_field(gate: Tollgate, tool: str) -> None:
    with pytest.raises(TollgateError) as raised:
        gate.request(tool, {}, approvers=["not an approver"])
    error = raised.value
    assert error.status == 400 and error.code == "tollgate_validation_error"
    assert error.field == "approvers[0]" and str(error).startswith("approvers[0]: ")
    with pytest.raises(TollgateError, match="no request with id") as missing:
        gate.get("00000000-0000-0000-0000-000000000000")
    assert missing.value.status == 404
    with pytest.raises(TollgateError) as unauthorized:
        Tollgate(gate.url, "wrong-token").check(tool, {})
    assert unauthorized.value.status == 401 and not unauthorized.value.retryable


def test_arguments_that_are_not_json_are_refused_before_sending(gate: Tollgate, tool: str) -> None:
    with pytest.raises(TollgateError, match="not JSON"):
        gate.check(tool, {"when": object()})


def test_a_gateway_that_is_down_raises_after_its_retries(tool: str) -> None:
    gate = Tollgate("http://127.0.0.1:%d" % free_port(), "t", retry_for=1.0)
    started = time.monotonic()
    with pytest.raises(GatewayUnreachable, match="cannot reach the gateway"):
        gate.request(tool, {})
    # Retried with backoff (at least 0.125 + 0.25 s of sleeps fit in retry_for=1), then gave up, not much later.
    assert 0.37 < time.monotonic() - started < 10


class _Flaky(http.server.BaseHTTPRequestHandler):
    """Answers 503 twice then a 400 problem: what a proxy in front of a restarting gateway does."""

    hits = 0

    def do_POST(self) -> None:  # noqa: N802
        type(self).hits += 1
        self.rfile.read(int(self.headers["Content-Length"]))
        status = 503 if type(self).hits <= 2 else 400
        body = b'{"type":"https://tollgate.dev/problems/x","title":"t","status":%d,"detail":"try %d",' \
               b'"errors":[{"path":"tool_name","message":"bad"}]}' % (status, type(self).hits)
        self.send_response(status)
        self.send_header("Content-Type", "application/problem+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_5xx_is_retried_and_4xx_is_not() -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        gate = Tollgate("http://127.0.0.1:%d" % server.server_port, "t")
        with pytest.raises(TollgateError) as raised:
            gate.request("tool", {})
        assert _Flaky.hits == 3  # two 503s retried, the 400 not
        assert (raised.value.status, raised.value.message, raised.value.field) == (400, "try 3", "tool_name")
    finally:
        server.shutdown()


def test_two_identical_calls_waiting_at_once_use_one_approval_each(gate: Tollgate, tokens: Tokens, tool: str) -> None:
    # Both land on one request (one card); its approval runs one of them, the other asks a human again.
    first = in_thread(lambda: gate.request(tool, {"pay": 5}, run_id="twice"))
    second = in_thread(lambda: gate.request(tool, {"pay": 5}, run_id="twice"))
    one = tokens.pending(tool)
    assert len(one) == 1
    tokens.decide(one[0]["id"])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the one left over files anew
        again = [r for r in tokens.pending(tool) if r["id"] != one[0]["id"]]
        if again:
            break
    tokens.decide(again[0]["id"])
    assert sorted(v.id for v in (first(), second())) == sorted([one[0]["id"], again[0]["id"]])
    assert len(tokens.requests_of(tool)) == 2
