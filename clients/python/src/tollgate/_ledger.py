"""Idempotency by default: the key that names a call (tool, argument hash, run id) and which verdicts this process
has used, so a re-run collects the verdict of its request while each verdict is used once."""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections import OrderedDict
from typing import Any, Mapping

from .args_hash import args_sha256
from .errors import TollgateError


class _Ledger:
    """Which verdicts this process has handed out, so each is used once: after a call collected an approval (or a
    denial), the same call asked again from this process files a new request instead of collecting the old one."""

    def __init__(self, size: int = 100_000) -> None:
        self._lock = threading.Lock()
        self._generations: dict[str, int] = {}
        self._used: "OrderedDict[str, None]" = OrderedDict()
        self._size = size

    def generation(self, base: str) -> int:
        with self._lock:
            return self._generations.get(base, 0)

    def used(self, request_id: str) -> bool:
        with self._lock:
            return request_id in self._used

    def move_on(self, base: str, generation: int) -> None:
        with self._lock:
            self._generations[base] = max(generation + 1, self._generations.get(base, 0))

    def claim(self, request_id: str, base: str, generation: int) -> bool:
        """Marks the verdict used; False when another call of this process used it first."""
        with self._lock:
            self._generations[base] = max(generation + 1, self._generations.get(base, 0))
            if request_id in self._used:
                return False
            self._used[request_id] = None
            if len(self._used) > self._size:
                self._used.popitem(last=False)
            return True


LEDGER = _Ledger()
PROCESS_RUN_ID = uuid.uuid4().hex


def call_base(tool: str, args: Mapping[str, Any], run_id: str) -> str:
    """The part of a call's idempotency key that names the call: tool, argument hash and run id."""
    try:
        digest = args_sha256(tool, args)
    except (TypeError, ValueError) as error:
        raise TollgateError("the arguments are not JSON: %s" % error) from None
    return hashlib.sha256(("%s\n%s\n%s" % (tool, digest, run_id)).encode("utf-8")).hexdigest()
