"""``python -m tollgate ask``: asks a human and waits, for scripts (``python -m tollgate ask "Deploy?" && ./deploy``).

Exit codes as ``tollgate ask``: 0 approved; 1 denied, expired, cancelled or still pending when the wait ran out;
2 usage error; 3 the gateway could not be reached or refused; 130 interrupted (the request is cancelled first).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import Optional, Sequence

from .client import Tollgate
from .errors import TollgateError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tollgate", description="Ask a human through a tollgate gateway.")
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser("ask", help="ask a question (or for a tool call) and wait for the verdict")
    ask.add_argument("question", nargs="+", help="what to ask, shown on the card")
    ask.add_argument("--tool", default="ask", help="the tool name to file (default: ask)")
    ask.add_argument("--args", default=None, help="the tool's arguments, as a JSON object")
    ask.add_argument("--approver", action="append", default=None, help="who may decide (repeat): web:alice, …")
    ask.add_argument("--timeout", type=int, default=None, help="seconds until the question expires")
    ask.add_argument("--json", action="store_true", help="print the verdict as JSON")
    ask.add_argument("--quiet", action="store_true", help="do not say on stderr what it waits for")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command line; returns the exit code."""
    try:
        options = _parser().parse_args(argv)
    except SystemExit as exit_:
        return 2 if exit_.code else 0
    question = " ".join(options.question).strip()
    try:
        args = json.loads(options.args) if options.args else {}
    except ValueError as error:
        print("tollgate ask: --args is not JSON: %s" % error, file=sys.stderr)
        return 2
    if not isinstance(args, dict):
        print("tollgate ask: --args must be a JSON object", file=sys.stderr)
        return 2
    if options.timeout is not None and options.timeout < 1:
        print("tollgate ask: --timeout must be a whole number of seconds, 1 or more", file=sys.stderr)
        return 2
    try:
        gate = Tollgate()
        filed = gate.request(
            options.tool, args, prompt=question, approvers=options.approver, expires_in=options.timeout,
            agent_id="tollgate-python-ask", idempotency_key="ask:%s" % uuid.uuid4(), wait=False,
        )
    except TollgateError as error:
        print("tollgate ask: %s" % error, file=sys.stderr)
        return 3
    if not options.quiet and filed.pending:
        print("tollgate ask: waiting for a verdict on request %s (expires %s): decide it at %s"
              % (filed.id, filed.expires_at, filed.inbox_url), file=sys.stderr, flush=True)
    try:
        verdict = gate.wait(filed.id) if filed.pending else filed
    except KeyboardInterrupt:
        try:
            gate.cancel(filed.id, "the asking script was interrupted")
        except TollgateError:
            pass
        return 130
    except TollgateError as error:
        print("tollgate ask: %s" % error, file=sys.stderr)
        return 3
    if options.json:
        print(json.dumps(verdict.request, sort_keys=True))
    else:
        by = " by %s" % verdict.responded_by if verdict.responded_by else ""
        print("%s%s%s" % (verdict.status, by, ": %s" % verdict.reason if verdict.reason else ""))
    return 0 if verdict.allowed else 1
