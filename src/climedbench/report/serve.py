"""Serve one report file over HTTP, on 127.0.0.1 unless told otherwise (standard library only).

Only the page itself is served (at `/`); every other path is 404, so the folder around it stays private.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from climedbench.errors import ConfigError

log = logging.getLogger(__name__)
PATHS = ("/", "/index.html", "/report.html")


def make_server(page: bytes, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server (not yet serving) that answers GET / with `page`; port 0 picks a free port."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "climedbench-report"

        def _send(self, head_only: bool) -> None:
            path = self.path.split("?", 1)[0].split("#", 1)[0]
            if path not in PATHS:
                body = b"not found\n"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
            else:
                body = page
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head_only:
                self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(False)

        def do_HEAD(self) -> None:
            self._send(True)

        def log_message(self, format: str, *args: object) -> None:
            log.debug("%s %s", self.address_string(), format % args)

    try:
        return ThreadingHTTPServer((host, port), Handler)
    except OSError as e:
        raise ConfigError(f"cannot serve on {host}:{port}: {e.strerror or e}") from e


def serve(path: Path, host: str = "127.0.0.1", port: int = 0, ready: Callable[[str], None] | None = None) -> None:
    """Serve the file at `path` until interrupted; `ready` gets the URL once the socket listens."""
    server = make_server(path.read_bytes(), host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{server.server_address[1]}/"
    if host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("serving the report on %s: anyone who can reach this address can read it", host)
    if ready is not None:
        ready(url)
    try:
        server.serve_forever()
    finally:
        server.server_close()
