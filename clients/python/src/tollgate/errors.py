"""What the client raises: one base, :class:`TollgateError`, and a subclass for each verdict that stops a call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:
    from .verdict import Verdict

__all__ = [
    "TollgateError",
    "GatewayUnreachable",
    "NotApproved",
    "Denied",
    "Expired",
    "Cancelled",
    "StillPending",
    "InvalidVerdict",
]


class TollgateError(Exception):
    """A call to the gateway failed, or a tool call was not approved.

    ``status`` is the HTTP status (0 when no answer came); ``problem`` the gateway's problem+json document when it
    sent one, whose ``detail`` is the message and whose first ``errors[].path`` is :attr:`field`.
    """

    def __init__(self, message: str, status: int = 0, problem: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.problem: dict[str, Any] = dict(problem or {})

    @property
    def code(self) -> str:
        """The problem's stable code (``tollgate_validation_error``, ``tollgate_conflict``…), ``network`` without answer."""
        kind = self.problem.get("type")
        if isinstance(kind, str) and kind and kind != "about:blank":
            return kind.rstrip("/").rsplit("/", 1)[-1]
        return "network" if self.status == 0 else "http_%d" % self.status

    @property
    def errors(self) -> list[dict[str, str]]:
        """Every field problem the gateway named: ``[{"path": "tool_args", "message": "expected object"}]``."""
        found = self.problem.get("errors")
        return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []

    @property
    def field(self) -> Optional[str]:
        """The first field the gateway said is wrong (``tool_args``, ``approvers[0]``), or None."""
        return next((e.get("path") for e in self.errors if isinstance(e.get("path"), str)), None)

    @property
    def retryable(self) -> bool:
        """True for what a later try may fix: no answer, a 5xx, or 429 (slow down)."""
        return self.status == 0 or self.status >= 500 or self.status == 429


class GatewayUnreachable(TollgateError):
    """No answer from the gateway (refused, reset, timed out) after the retries allowed."""


class NotApproved(TollgateError):
    """The call may not run: ``verdict`` says why (its ``status``, ``reason`` and ``responded_by``)."""

    def __init__(self, verdict: "Verdict", message: Optional[str] = None) -> None:
        super().__init__(message or _describe(verdict))
        self.verdict = verdict


class Denied(NotApproved):
    """An approver denied the call."""


class Expired(NotApproved):
    """Nobody decided before the request expired."""


class Cancelled(NotApproved):
    """The request was cancelled before anyone decided."""


class StillPending(NotApproved):
    """The wait ran out with the request still pending (only when a wait was bounded)."""


class InvalidVerdict(NotApproved):
    """An approval whose signed verdict did not verify for the call about to run (see ``verify_verdict``)."""


def _describe(verdict: "Verdict") -> str:
    why = verdict.reason or ("still waiting for a decision" if verdict.status == "pending" else "no reason given")
    by = " by %s" % verdict.responded_by if verdict.responded_by else ""
    return "%s %s%s: %s (request %s)" % (verdict.tool, verdict.status, by, why, verdict.id)
