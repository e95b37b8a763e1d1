"""A small HTTP/1.1 client on asyncio streams: one request per connection, JSON in, JSON or a chunked stream out.

The standard library's HTTP clients block; wrapping them in threads would give each of a hundred waiting calls a
thread. asyncio's own streams keep every wait on the event loop.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import AsyncIterator, Dict, Optional

from ._core import Settings

class Exchange:
    """One open request/response on its own connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.status, self.reason = 0, ""
        self.headers: Dict[str, str] = {}

    @classmethod
    async def open(
        cls,
        settings: Settings,
        method: str,
        path: str,
        body: Optional[bytes],
        accept: str,
        ssl_context: Optional[ssl.SSLContext],
    ) -> "Exchange":
        """Connects, sends the request and reads the status line and headers."""
        tls = (ssl_context or ssl.create_default_context()) if settings.scheme == "https" else None
        reader, writer = await asyncio.open_connection(settings.host, settings.port, ssl=tls)
        exchange = cls(reader, writer)
        try:
            host = settings.host if settings.port in (80, 443) else "%s:%d" % (settings.host, settings.port)
            lines = ["%s %s HTTP/1.1" % (method, settings.base_path + path), "Host: %s" % host, "Connection: close"]
            lines += ["%s: %s" % item for item in settings.headers(body, accept).items()]
            lines.append("Content-Length: %d" % len(body or b""))
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
            await writer.drain()
            status_line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
            version, _, rest = status_line.partition(" ")
            if not version.startswith("HTTP/"):
                raise ConnectionError("not an HTTP answer: %r" % status_line[:80])
            code, _, exchange.reason = rest.partition(" ")
            exchange.status = int(code)
            while True:
                line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
                if not line:
                    break
                name, _, value = line.partition(":")
                exchange.headers[name.strip().lower()] = value.strip()
        except BaseException:
            exchange.close()
            raise
        return exchange

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body as it arrives (chunked, sized or up to the connection's end)."""
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            while True:
                size = int((await self.reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while (await self.reader.readline()).strip():
                        pass  # trailers
                    return
                data = await self.reader.readexactly(size)
                await self.reader.readexactly(2)
                yield data
        elif "content-length" in self.headers:
            left = int(self.headers["content-length"])
            if left:
                yield await self.reader.readexactly(left)
        else:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    return
                yield data

    async def body(self) -> bytes:
        """The whole body."""
        return b"".join([chunk async for chunk in self.chunks()])

    def close(self) -> None:
        self.writer.close()
