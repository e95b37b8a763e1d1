"""Server-sent events, fed bytes as they arrive (no I/O here, so the sync and async clients share it)."""

from __future__ import annotations

import codecs
from typing import List, Tuple


class SseParser:
    """Splits a ``text/event-stream`` into ``(event, data)`` pairs; comments (the gateway's heartbeats) are dropped."""

    def __init__(self) -> None:
        self._buffer = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, chunk: bytes) -> List[Tuple[str, str]]:
        """The events completed by ``chunk``."""
        text = self._decoder.decode(chunk)  # keeps a UTF-8 sequence split across chunks for the next one
        self._buffer += text.replace("\r\n", "\n").replace("\r", "\n")
        events: List[Tuple[str, str]] = []
        while "\n\n" in self._buffer:
            block, self._buffer = self._buffer.split("\n\n", 1)
            name, lines = "message", []
            for line in block.split("\n"):
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    lines.append(line[6:] if line.startswith("data: ") else line[5:])
            if lines:
                events.append((name, "\n".join(lines)))
        return events
