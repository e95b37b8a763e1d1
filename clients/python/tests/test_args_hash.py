"""The Python side of the shared argument-hash vectors (test/vectors/args-hash.json; the TypeScript side is
test/unit/requests/args-hash-vectors.test.ts): a verdict the gateway hashed verifies here byte for byte."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from tollgate import args_sha256, canonical_json

VECTORS = json.loads((ROOT / "test" / "vectors" / "args-hash.json").read_text("utf-8"))["cases"]


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_vector(case: dict) -> None:
    args = json.loads(case["args_json"])  # parsed by Python's own parser, as the client receives arguments
    assert canonical_json({"tool_name": case["tool"], "tool_args": args}) == case["canonical"]
    assert args_sha256(case["tool"], args) == case["sha256"]


def test_python_values_hash_as_their_json() -> None:
    # A tuple goes over the wire as an array, an int key as a string key: the hash follows the wire.
    assert args_sha256("t", {"xs": (1, 2), 3: "three"}) == args_sha256("t", {"xs": [1, 2], "3": "three"})


def test_values_that_are_not_json_are_refused() -> None:
    with pytest.raises(TypeError, match="set is not JSON"):
        canonical_json({"s": {1, 2}})
