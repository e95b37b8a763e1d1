"""docs/python.md's decorator and asyncio examples run as written against a real gateway (an approver decides as
they wait); the LangGraph and OpenAI Agents ones need frameworks not installed here."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT, Gateway, Tokens, in_thread

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "python.md").read_text("utf-8"), re.S)


def run_block(gateway: Gateway, tokens: Tokens, code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TOLLGATE_URL=gateway.url, TOLLGATE_TOKEN=tokens.agent,
               PYTHONPATH=str(ROOT / "clients" / "python" / "src"))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_the_decorator_example(gateway: Gateway, tokens: Tokens) -> None:
    block = next(b for b in BLOCKS if "def delete_path" in b)
    done = in_thread(lambda: run_block(gateway, tokens, block))
    request = tokens.pending("delete_path")[0]
    assert request["tool_args"] == {"path": "/tmp/old-build", "recursive": True}
    tokens.decide(request["id"], approved_args={"path": "/tmp/old-build/cache", "recursive": True})
    result = done()
    assert (result.returncode, result.stdout) == (0, "deleted /tmp/old-build/cache\n"), result.stderr


def test_the_asyncio_example(gateway: Gateway, tokens: Tokens) -> None:
    block = next(b for b in BLOCKS if "async def refund" in b)
    done = in_thread(lambda: run_block(gateway, tokens, block))
    for request in _pending(tokens, "refund", 2):
        tokens.decide(request["id"], "deny" if request["tool_args"]["order"] == "A-2" else "approve")
    result = done()
    assert result.returncode == 0, result.stderr
    assert sorted(line.split()[1] for line in result.stdout.splitlines()) == ["approved", "denied"]


def _pending(tokens: Tokens, tool: str, count: int) -> list:
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = tokens.pending(tool)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError("fewer than %d pending" % count)
