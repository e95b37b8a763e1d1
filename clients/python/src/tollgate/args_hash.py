"""The argument hash a verdict is bound to: byte for byte the gateway's ``argsSha256`` (src/requests/args-hash.ts).

The gateway hashes ``JSON.stringify({tool_name, tool_args})`` with every object's keys sorted, as JavaScript sorts and
prints them. Python's :mod:`json` differs in four places, each handled here: keys sort by UTF-16 code unit (not code
point); keys that are array indices ("0", "17") come first in numeric order, as a JavaScript object keeps them;
numbers print as JavaScript prints a double (``1.0`` is ``1``, ``1e21`` is ``1e+21``, an integer past 2**53 is
rounded); a lone surrogate is escaped. The shared vectors (test/vectors/args-hash.json) hold both sides to it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any, Mapping

__all__ = ["canonical_json", "args_sha256"]

_MAX_SAFE_INTEGER = 2**53
_ARRAY_INDEX_MAX = 2**32 - 2
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE = json.encoder.py_encode_basestring


def _js_string(text: str) -> str:
    # Valid surrogate pairs a Python str may hold as two code points are one character to JavaScript.
    if _LONE_SURROGATE.search(text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return _LONE_SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), _ESCAPE(text))
    return _ESCAPE(text)


def _js_number(value: float) -> str:
    """``Number.prototype.toString`` of a double (ECMA-262 Number::toString), from Python's shortest repr digits."""
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # value = 0.<digits> x 10**point
    if whole == "0":  # 0.000123: the zeros after the point move it left
        point = -(len(fraction) - len(fraction.lstrip("0")))
    else:
        point = len(whole)
    point += int(exp) if exp else 0
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    e = point - 1
    rest = "." + digits[1:] if k > 1 else ""
    return "%s%s%se%s%d" % (sign, digits[0], rest, "+" if e >= 0 else "-", abs(e))


def _number(value: Any) -> str:
    if isinstance(value, int):
        if -_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER:
            return str(value)
        try:
            return _js_number(float(value))  # the gateway reads it as the nearest double
        except OverflowError:
            return "null"  # Infinity, which JSON.stringify writes as null
    return _js_number(float(value))


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)  # what json.dumps does to the key on the wire
    raise TypeError("keys must be str, int, float, bool or None, not %s" % type(key).__name__)


def _is_array_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) <= _ARRAY_INDEX_MAX


def _sorted_keys(keys: list[str]) -> list[str]:
    indices = sorted((k for k in keys if _is_array_index(k)), key=int)
    names = sorted((k for k in keys if not _is_array_index(k)), key=lambda k: k.encode("utf-16-be", "surrogatepass"))
    return indices + names


def _encode(value: Any, out: list[str], depth: int) -> None:
    if depth > 1000:
        raise ValueError("arguments nested deeper than 1000 levels")
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_js_string(value))
    elif isinstance(value, (int, float)):
        out.append(_number(value))
    elif isinstance(value, Mapping):
        items = {_key(k): v for k, v in value.items()}
        out.append("{")
        for i, key in enumerate(_sorted_keys(list(items))):
            if i:
                out.append(",")
            out.append(_js_string(key))
            out.append(":")
            _encode(items[key], out, depth + 1)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out, depth + 1)
        out.append("]")
    else:
        raise TypeError("%s is not JSON: give arguments made of dict, list, str, int, float, bool and None"
                        % type(value).__name__)


def canonical_json(value: Any) -> str:
    """JSON with every object's keys sorted at every depth, exactly as the gateway's ``canonicalJson`` writes it."""
    out: list[str] = []
    _encode(value, out, 0)
    return "".join(out)


def args_sha256(tool: str, args: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of ``{"tool_name": tool, "tool_args": args}``: a verdict's ``args_sha256``.

    >>> args_sha256("deploy", {"env": "prod"}) == args_sha256("deploy", {"env": "prod"})
    True
    """
    text = canonical_json({"tool_name": tool, "tool_args": args})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
