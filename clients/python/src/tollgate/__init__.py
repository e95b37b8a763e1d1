"""tollgate: gate an agent's tool calls on a human's approval, through a tollgate gateway.

>>> from tollgate import requires_approval  # doctest: +SKIP
>>> @requires_approval(approvers=["web:alice"])  # doctest: +SKIP
... def delete_path(path: str) -> None: ...

Standard library only; ``verify_verdict`` needs the optional ``cryptography`` package. See docs/python.md.
"""

from ._version import __version__
from .aio import AsyncTollgate
from .args_hash import args_sha256, canonical_json
from .client import Tollgate
from .decorator import requires_approval
from .errors import (
    Cancelled,
    Denied,
    Expired,
    GatewayUnreachable,
    InvalidVerdict,
    NotApproved,
    StillPending,
    TollgateError,
)
from .verdict import Verdict
from .verify import MissingCryptography, VerdictCheck, verdict_checker, verify_verdict

__all__ = [
    "__version__",
    "Tollgate",
    "AsyncTollgate",
    "Verdict",
    "requires_approval",
    "verify_verdict",
    "verdict_checker",
    "VerdictCheck",
    "args_sha256",
    "canonical_json",
    "TollgateError",
    "GatewayUnreachable",
    "NotApproved",
    "Denied",
    "Expired",
    "Cancelled",
    "StillPending",
    "InvalidVerdict",
    "MissingCryptography",
]
