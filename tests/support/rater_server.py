"""`climedbench rate serve` as a real child process on 127.0.0.1, which a test can SIGKILL and start again on the
same port and study file (readiness polling from tests/support/instant_server.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.instant_server import ROOT, wait_ready


class RaterServer:
    """One `rate serve` child; `kill()` sends SIGKILL, `start()` serves the same file on the same port again."""

    def __init__(self, db: Path, *extra: str) -> None:
        self.db = db
        self.extra = list(extra)
        self.port = 0
        self.url = ""
        self.proc: subprocess.Popen[str] | None = None
        self.log = ""  # what the server wrote to stderr, read once it has stopped

    def start(self) -> str:
        cmd = [sys.executable, "-m", "climedbench.cli", "rate", "serve", "--db", str(self.db), "--port",
               str(self.port), *self.extra]
        # The environment is inherited, so the child imports the same climedbench as the test.
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://"):
            self.proc.kill()
            _, stderr = self.proc.communicate(timeout=10)
            raise RuntimeError(f"rate serve did not start (exit {self.proc.returncode}): {stderr[-2000:]}")
        self.url = line
        self.port = int(line.rsplit(":", 1)[1])
        wait_ready(self.url + "/health", self.proc, "rate serve", timeout=30)
        return self.url

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, nothing is flushed by the server."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._close()

    def _close(self) -> None:
        if self.proc is not None:
            if self.proc.stderr is not None and not self.proc.stderr.closed:
                self.log += self.proc.stderr.read()
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()


@contextmanager
def rater_server(db: Path, *extra: str) -> Iterator[RaterServer]:
    """Serve `db` on a free port of 127.0.0.1 for the duration of the block."""
    server = RaterServer(db, *extra)
    try:
        server.start()
        yield server
    finally:
        server.stop()
