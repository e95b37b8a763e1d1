"""The :class:`Verdict`: what the gateway answered about one request, in the words a caller branches on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .errors import Cancelled, Denied, Expired, NotApproved, StillPending

__all__ = ["Verdict"]


@dataclass(frozen=True)
class Verdict:
    """One request as the gateway last reported it.

    ``allowed`` is True only when the call may run; ``args`` are the arguments to run it with (the approver's edits
    when there are, else the ones asked for). ``token`` is the signed verdict (a compact JWS) for ``verify_verdict``.
    """

    id: str
    status: str
    tool: str
    allowed: bool
    requested_args: dict[str, Any]
    approved_args: Optional[dict[str, Any]]
    responded_by: Optional[str]
    reason: Optional[str]
    token: Optional[str]
    inbox_url: str
    expires_at: Optional[str]
    request: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_api(cls, request: Mapping[str, Any], base_url: str) -> "Verdict":
        """Builds a verdict from the API's request shape (``GET /v1/requests/:id``)."""
        return cls(
            id=str(request["id"]),
            status=str(request["status"]),
            tool=str(request.get("tool_name", "")),
            allowed=request.get("allowed") is True,
            requested_args=dict(request.get("tool_args") or {}),
            approved_args=request.get("approved_args"),
            responded_by=request.get("responded_by"),
            reason=request.get("reason"),
            token=request.get("verdict_token"),
            inbox_url="%s/ui/requests/%s" % (base_url, request["id"]),
            expires_at=request.get("expires_at"),
            request=dict(request),
        )

    @property
    def pending(self) -> bool:
        """True while nobody has decided (and the request has not expired)."""
        return self.status == "pending"

    @property
    def args(self) -> dict[str, Any]:
        """The arguments the call may run with: the approver's edited ones when present, else those asked for."""
        return dict(self.approved_args) if self.approved_args is not None else dict(self.requested_args)

    @property
    def edited(self) -> bool:
        """True when an approver changed the arguments."""
        return self.approved_args is not None and self.approved_args != self.requested_args

    def raise_for_status(self) -> "Verdict":
        """Returns self when the call may run; raises :class:`Denied`, :class:`Expired`, :class:`Cancelled` or
        :class:`StillPending` otherwise (fail closed: anything but ``allowed`` raises)."""
        if self.allowed:
            return self
        error = {"denied": Denied, "expired": Expired, "cancelled": Cancelled, "pending": StillPending}.get(
            self.status, NotApproved
        )
        raise error(self)
