"""``python -m tollgate ask`` against a real gateway: exit 0 when approved, 1 when denied, 2 for bad usage."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT, Gateway, Tokens, in_thread


def ask(gateway: Gateway, tokens: Tokens, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TOLLGATE_URL=gateway.url, TOLLGATE_TOKEN=tokens.agent,
               PYTHONPATH=str(ROOT / "clients" / "python" / "src"))
    return subprocess.run([sys.executable, "-m", "tollgate", "ask", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def test_ask_exits_0_when_approved_and_1_when_denied(gateway: Gateway, tokens: Tokens, tool: str) -> None:
    approved = in_thread(lambda: ask(gateway, tokens, "Deploy", "to", "prod?", "--tool", tool, "--args",
                                     '{"env": "prod"}'))
    request = tokens.pending(tool)[0]
    assert (request["prompt"], request["tool_args"]) == ("Deploy to prod?", {"env": "prod"})
    tokens.decide(request["id"], reason="ship it")
    done = approved()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("approved by ") and done.stdout.endswith(": ship it\n")
    assert "decide it at %s/ui/requests/%s" % (gateway.url, request["id"]) in done.stderr

    denied = in_thread(lambda: ask(gateway, tokens, "Again?", "--tool", tool, "--quiet"))
    tokens.decide(tokens.pending(tool)[0]["id"], "deny")
    done = denied()
    assert (done.returncode, done.stderr) == (1, "")


def test_ask_exits_2_on_bad_usage(gateway: Gateway, tokens: Tokens) -> None:
    assert ask(gateway, tokens, "x", "--args", "[1]").returncode == 2
    assert ask(gateway, tokens).returncode == 2
