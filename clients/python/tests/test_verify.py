"""``verify_verdict`` against tokens the gateway signed: a real one passes; a tampered one, another tool, other
arguments, another request and a denial do not; and a clear error without ``cryptography``."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import urllib.request

import pytest
from conftest import ROOT, Tokens

from tollgate import Tollgate, verify_verdict


@pytest.fixture(scope="module")
def signed(gateway, tokens: Tokens) -> dict:
    gate = Tollgate(gateway.url, tokens.agent)
    approved = gate.check("verify_tool", {"amount": 10.0, "to": "acme"})
    tokens.decide(approved.id, approved_args={"amount": 12.5, "to": "acme"})
    denied = gate.check("verify_tool", {"amount": 99})
    tokens.decide(denied.id, "deny")
    with urllib.request.urlopen(gateway.url + "/.well-known/jwks.json") as response:
        jwks = json.load(response)
    return {"approved": gate.get(approved.id), "denied": gate.get(denied.id), "jwks": jwks,
            "jwks_url": gateway.url + "/.well-known/jwks.json"}


def test_a_token_the_gateway_signed_verifies_for_the_approved_call(signed: dict) -> None:
    verdict = signed["approved"]
    check = verify_verdict(verdict.token, "verify_tool", {"to": "acme", "amount": 12.5}, jwks=signed["jwks"],
                           request_id=verdict.id)
    assert check.ok and check.claims["jti"] == verdict.id and check.claims["allowed"] is True
    # The key set fetched from the gateway, and 12.5 written as a float of other spelling: the same hash.
    assert verify_verdict(verdict.token, "verify_tool", {"amount": 12.50, "to": "acme"}, jwks_url=signed["jwks_url"])


def test_a_tampered_token_is_refused(signed: dict) -> None:
    header, payload, signature = signed["approved"].token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["tool"] = "other_tool"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    check = verify_verdict("%s.%s.%s" % (header, forged, signature), "other_tool", {"to": "acme", "amount": 12.5},
                           jwks=signed["jwks"])
    assert (check.ok, check.reason) == (False, "bad_signature")
    assert verify_verdict("not-a-token", "verify_tool", {}, jwks=signed["jwks"]).reason == "malformed"


@pytest.mark.parametrize(
    "tool, args, request_id, reason",
    [
        ("other_tool", {"amount": 12.5, "to": "acme"}, None, "wrong_tool"),
        ("verify_tool", {"amount": 10, "to": "acme"}, None, "args_mismatch"),  # the original, not the approved
        ("verify_tool", {"amount": 12.5, "to": "acme"}, "00000000-0000-0000-0000-000000000000", "wrong_request"),
    ],
)
def test_another_call_is_refused(signed: dict, tool: str, args: dict, request_id, reason: str) -> None:
    check = verify_verdict(signed["approved"].token, tool, args, jwks=signed["jwks"], request_id=request_id)
    assert (check.ok, check.reason) == (False, reason)


def test_a_denial_and_an_expired_verdict_are_refused(signed: dict) -> None:
    denied = signed["denied"]
    assert verify_verdict(denied.token, "verify_tool", {"amount": 99}, jwks=signed["jwks"]).reason == "denied"
    late = verify_verdict(signed["approved"].token, "verify_tool", {"amount": 12.5, "to": "acme"},
                          jwks=signed["jwks"], now=10**10)
    assert late.reason == "expired"
    unknown = {"keys": [dict(signed["jwks"]["keys"][0], kid="another")]}
    assert verify_verdict(denied.token, "verify_tool", {"amount": 99}, jwks=unknown).reason == "unknown_key"


def test_without_cryptography_the_error_says_what_to_install() -> None:
    script = ("import sys; sys.modules['cryptography'] = None\n"
              "from tollgate import verify_verdict, TollgateError\n"
              "try:\n    verify_verdict('a.b.c', 't', {}, jwks={'keys': []})\n"
              "except ImportError as e:\n    print(isinstance(e, TollgateError), e)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(ROOT / "clients" / "python" / "src")})
    assert done.stdout.startswith("True verify_verdict needs the 'cryptography' package: pip install 'tollgate[verify]'")
