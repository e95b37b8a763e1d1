"""Checking a signed verdict where the tool runs, offline: the Python twin of the TypeScript ``tollgate/verify``.

Before a tool runs a call, it asks whether a human approved exactly this tool with exactly these arguments, and
recently: the verdict token (a compact JWS, EdDSA) must be signed by a key of the gateway, unexpired, for this tool,
this request when known, and these arguments (the same argument hash as the gateway, byte for byte). Needs the
``cryptography`` package (``pip install 'tollgate[verify]'``, or Debian's ``python3-cryptography``).
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Union

from .args_hash import args_sha256
from .errors import TollgateError
from .verdict import Verdict

__all__ = ["verify_verdict", "verdict_checker", "VerdictCheck", "MissingCryptography"]

VERDICT_TYPE = "tollgate-verdict+jwt"
Jwks = Union[Mapping[str, Any], Iterable[Mapping[str, Any]]]


class MissingCryptography(TollgateError, ImportError):
    """``verify_verdict`` needs the ``cryptography`` package, which is not installed."""


@dataclass(frozen=True)
class VerdictCheck:
    """What :func:`verify_verdict` found. ``ok`` is True only for a valid approval of this call; otherwise ``reason``
    is one word to branch on (``malformed``, ``bad_signature``, ``unknown_key``, ``expired``, ``wrong_tool``,
    ``wrong_request``, ``args_mismatch``, ``denied``) and ``message`` a sentence."""

    ok: bool
    reason: Optional[str] = None
    message: str = ""
    claims: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.ok


def _ed25519() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        raise MissingCryptography(
            "verify_verdict needs the 'cryptography' package: pip install 'tollgate[verify]' "
            "(or apt install python3-cryptography)"
        ) from None
    return Ed25519PublicKey


def _b64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


_remote: dict[str, tuple[float, list[dict[str, Any]]]] = {}
_remote_lock = threading.Lock()


def _fetch_keys(url: str, kid: Optional[str]) -> list[dict[str, Any]]:
    """The key set at ``url``, cached for ten minutes; fetched again (at most every 30 s) for a ``kid`` it lacks."""
    with _remote_lock:
        cached = _remote.get(url)
    now = time.monotonic()
    if cached:
        age, keys = now - cached[0], cached[1]
        known = kid is None or any(k.get("kid") == kid for k in keys)
        if age < 600 and (known or age < 30):
            return keys
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (the caller's own gateway URL)
        keys = _key_list(json.load(response))
    with _remote_lock:
        _remote[url] = (now, keys)
    return keys


def _key_list(jwks: Jwks) -> list[dict[str, Any]]:
    if isinstance(jwks, Mapping):
        jwks = jwks.get("keys", [])
    return [dict(k) for k in jwks if isinstance(k, Mapping)]


def verify_verdict(
    token: str,
    tool: str,
    args: Mapping[str, Any],
    *,
    jwks: Optional[Jwks] = None,
    jwks_url: Optional[str] = None,
    request_id: Optional[str] = None,
    clock_tolerance: float = 0,
    now: Optional[float] = None,
) -> VerdictCheck:
    """Checks a verdict token for the call about to run: ``tool`` with ``args``.

    ``jwks`` is the gateway's key set (the body of ``/.well-known/jwks.json``, or its ``keys``), for a check with no
    network; or ``jwks_url`` to fetch it (cached). Give ``request_id`` (the request you filed) whenever you can:
    without it any genuine verdict for the same tool and arguments passes. Never raises for a bad token — every
    refusal is a :class:`VerdictCheck` with ``ok=False`` — only for a missing key source or a missing ``cryptography``.

    >>> check = verify_verdict(verdict.token, "deploy", {"env": "prod"}, jwks_url=JWKS)  # doctest: +SKIP
    >>> if not check: raise PermissionError(check.message)  # doctest: +SKIP
    """
    public_key_type = _ed25519()
    if jwks is None and jwks_url is None:
        raise TollgateError("verify_verdict: give jwks= or jwks_url=")
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        return VerdictCheck(False, "malformed", "not a compact JWS")
    try:
        header = json.loads(_b64(parts[0]))
        claims = json.loads(_b64(parts[1]))
        signature = _b64(parts[2])
    except ValueError:
        return VerdictCheck(False, "malformed", "not a compact JWS")
    if not isinstance(header, dict) or not isinstance(claims, dict):
        return VerdictCheck(False, "malformed", "not a tollgate verdict: header or claims are not objects")
    if header.get("alg") not in ("EdDSA", "Ed25519"):
        return VerdictCheck(False, "malformed", "not a tollgate verdict: algorithm %r" % header.get("alg"))
    typ = str(header.get("typ", "")).lower()
    if typ.startswith("application/"):
        typ = typ[len("application/"):]
    if typ != VERDICT_TYPE:
        return VerdictCheck(False, "malformed", "not a tollgate verdict: type %r" % header.get("typ"))
    kid = header.get("kid")
    try:
        keys = _key_list(jwks) if jwks is not None else _fetch_keys(str(jwks_url), kid)
    except Exception as error:  # network, TLS, JSON: the keys cannot be read
        return VerdictCheck(False, "unknown_key", "cannot read the gateway's keys: %s" % error)
    candidates = [
        k for k in keys
        if k.get("kty") == "OKP" and k.get("crv") == "Ed25519" and (kid is None or k.get("kid") == kid)
        and k.get("use", "sig") == "sig" and k.get("alg", header["alg"]) in ("EdDSA", "Ed25519")
    ]
    if not candidates:
        return VerdictCheck(False, "unknown_key", "no key of the gateway signed this token")
    signed = (parts[0] + "." + parts[1]).encode("ascii")
    if not any(_signed_by(public_key_type, k, signature, signed) for k in candidates):
        return VerdictCheck(False, "bad_signature", "the signature does not match the token")
    for claim in ("jti", "iat", "exp"):
        if claim not in claims:
            return VerdictCheck(False, "malformed", 'not a tollgate verdict: missing required "%s" claim' % claim)
    exp = claims["exp"]
    if not isinstance(exp, (int, float)) or isinstance(exp, bool):
        return VerdictCheck(False, "malformed", 'not a tollgate verdict: "exp" is not a number')
    current = int(time.time() if now is None else now)
    if exp <= current - clock_tolerance:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(exp))
        return VerdictCheck(False, "expired", "the verdict expired at %s" % stamp, claims)
    if not isinstance(claims.get("tool"), str) or not isinstance(claims.get("args_sha256"), str) \
            or not isinstance(claims.get("allowed"), bool):
        return VerdictCheck(False, "malformed", "the token lacks tool, args_sha256 or allowed", claims)
    if claims["tool"] != tool:
        return VerdictCheck(False, "wrong_tool", "the verdict is for %s, not %s" % (claims["tool"], tool), claims)
    if request_id is not None and claims["jti"] != request_id:
        message = "the verdict is for request %s, not %s" % (claims["jti"], request_id)
        return VerdictCheck(False, "wrong_request", message, claims)
    if claims["args_sha256"] != args_sha256(tool, args):
        return VerdictCheck(False, "args_mismatch", "the arguments differ from the approved ones", claims)
    if not claims["allowed"]:
        return VerdictCheck(False, "denied", "the verdict refuses this call", claims)
    return VerdictCheck(True, None, "approved", claims)


def _signed_by(public_key_type: Any, jwk: Mapping[str, Any], signature: bytes, signed: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        public_key_type.from_public_bytes(_b64(str(jwk.get("x", "")))).verify(signature, signed)
        return True
    except (InvalidSignature, ValueError):
        return False


def verdict_checker(
    *, jwks: Optional[Jwks] = None, jwks_url: Optional[str] = None
) -> Callable[[Verdict, str, Mapping[str, Any]], Optional[str]]:
    """A ``verify=`` for ``@requires_approval``: refuses an approval whose token does not verify for the call about
    to run, under the request id the gateway answered with. Pin ``jwks``/``jwks_url`` to the real gateway."""

    def check(verdict: Verdict, tool: str, args: Mapping[str, Any]) -> Optional[str]:
        if not verdict.token:
            return "the answer carries no verdict_token"
        result = verify_verdict(verdict.token, tool, args, jwks=jwks, jwks_url=jwks_url, request_id=verdict.id)
        return None if result.ok else "%s: %s" % (result.reason, result.message)

    return check
