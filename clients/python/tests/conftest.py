"""A real gateway for the tests: ``node bin/tollgate.js serve`` from this checkout, on a temp SQLite file and a port
of its own, with tokens made by the CLI (``tollgate token create``) and decisions made over the API by an approver
token, as a person at the inbox would. Nothing is mocked: the client talks HTTP to the gateway the README runs.

``TOLLGATE_NODE`` names the node to run it with (the vitest wrapper passes its own, so each Node CI tests runs
these too); default ``node``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))

NODE = os.environ.get("TOLLGATE_NODE", "node")
ADMIN = "py-admin-secret"
START_TIMEOUT_S = 90


class Gateway:
    """One ``tollgate serve`` child process; :meth:`restart` starts it again on the same port and database."""

    def __init__(self, db: Path, port: int = 0) -> None:
        self.db, self.port = db, port
        self.process: Optional[subprocess.Popen] = None
        self.url = ""
        self.output: list[str] = []
        self.start()

    def start(self) -> None:
        env = dict(os.environ, TOLLGATE_API_TOKENS=ADMIN, LOG_LEVEL="warn", TOLLGATE_CLI="1",
                   # 100 concurrent waiters and their decisions in one minute: past the default per-token budgets.
                   TOLLGATE_RATE_LIMIT="0", TOLLGATE_RATE_LIMIT_DECISIONS="0")
        self.process = subprocess.Popen(
            [NODE, str(ROOT / "bin" / "tollgate.js"), "serve", "--port", str(self.port), "--db", str(self.db)],
            cwd=str(ROOT), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        found: dict[str, str] = {}
        ready = threading.Event()

        def read(stream: Any) -> None:
            for line in stream:
                self.output.append(line)
                match = re.search(r"listening on (http://\S+)", line)
                if match and not ready.is_set():
                    found["url"] = match.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=read, args=(self.process.stdout,), daemon=True).start()
        if not ready.wait(START_TIMEOUT_S) or "url" not in found:
            self.stop()
            raise RuntimeError("the gateway did not start:\n" + "".join(self.output))
        self.url = found["url"].rstrip("/")
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self, sig: int = signal.SIGKILL) -> None:
        """Stops the gateway and starts it again on the same port and database."""
        self.stop(sig)
        self.start()

    def cli(self, *args: str) -> str:
        """Runs ``tollgate <args>`` against this gateway as the admin; returns its stdout."""
        env = dict(os.environ, TOLLGATE_URL=self.url, TOLLGATE_TOKEN=ADMIN)
        done = subprocess.run([NODE, str(ROOT / "bin" / "tollgate.js"), *args], cwd=str(ROOT), env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def api(self, method: str, path: str, body: Any = None, token: str = ADMIN) -> tuple[int, Any]:
        """One API call as ``token``: (status, parsed body)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": "Bearer " + token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)


class Tokens:
    """The scoped tokens the tests use: an agent's (create, read, cancel) and an approver's (decide as web:alice)."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        made: dict[str, str] = {}

        def make(name: str, *scopes: str) -> None:
            made[name] = gateway.cli("token", "create", name, *scopes)

        # The two CLI starts run side by side: each costs seconds of CPU through tsx.
        threads = [
            threading.Thread(target=make, args=("py-agent", "--scope", "request:create", "--scope", "request:read",
                                                 "--scope", "request:cancel")),
            threading.Thread(target=make, args=("py-approver", "--scope", "request:decide", "--as", "web:alice")),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.agent, self.approver = made["py-agent"], made["py-approver"]

    def decide(self, request_id: str, decision: str = "approve", **extra: Any) -> dict[str, Any]:
        """Decides as web:alice through the API, as her inbox would."""
        status, body = self.gateway.api("POST", "/v1/requests/%s/decision" % request_id,
                                         dict(extra, decision=decision), token=self.approver)
        assert status == 200, body
        return body

    def pending(self, tool: str, timeout: float = 30.0) -> list[dict[str, Any]]:
        """The pending requests of ``tool``, once there is one (waits for another thread or process to file it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, page = self.gateway.api("GET", "/v1/requests?status=pending&tool_name=%s" % tool)
            assert status == 200, page
            if page["items"]:
                return page["items"]
            time.sleep(0.05)
        raise AssertionError("no pending request for %s" % tool)

    def requests_of(self, tool: str) -> list[dict[str, Any]]:
        status, page = self.gateway.api("GET", "/v1/requests?tool_name=%s&limit=100" % tool)
        assert status == 200, page
        return page["items"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def gateway() -> Any:
    with tempfile.TemporaryDirectory(prefix="tollgate-py-") as tmp:
        gw = Gateway(Path(tmp) / "tollgate.db")
        try:
            yield gw
        finally:
            gw.stop()


@pytest.fixture(scope="session")
def tokens(gateway: Gateway) -> Tokens:
    return Tokens(gateway)


@pytest.fixture()
def tool(request: Any) -> str:
    """A tool name of the test's own, so tests never see each other's requests."""
    return re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:60] + "_%d" % (time.monotonic_ns() % 10**6)


@pytest.fixture()
def gate(gateway: Gateway, tokens: Tokens) -> Any:
    from tollgate import Tollgate

    return Tollgate(gateway.url, tokens.agent)


def in_thread(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Runs ``fn`` in a thread; the returned function joins it and returns its result (or raises its error)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as error:  # noqa: BLE001 (handed to the test)
            box["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def join(timeout: float = 60.0) -> Any:
        thread.join(timeout)
        assert not thread.is_alive(), "still waiting"
        if "error" in box:
            raise box["error"]
        return box["value"]

    return join


# --- the report `npm test` reads (test/integration/python/python-package.test.ts) ---------------------------------

_REPORT = os.environ.get("TOLLGATE_PYTEST_REPORT")


def pytest_runtest_logreport(report: Any) -> None:
    """With TOLLGATE_PYTEST_REPORT set, appends each test's outcome as a JSON line: vitest turns each into a test of
    its own, so `npm test` and .ci/run count the Python tests one by one."""
    if not _REPORT or (report.when != "call" and report.outcome == "passed"):
        return
    entry = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
             "duration": report.duration, "detail": report.longreprtext if report.failed else ""}
    with open(_REPORT, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
