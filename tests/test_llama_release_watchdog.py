"""release()'s watchdog: a shutdown that holds the GIL and never returns ends the process after the hard limit, with
every thread's stack on stderr, instead of hanging it (test double: a destructor that holds the GIL in a C loop)."""

from __future__ import annotations

import subprocess
import sys
import time

SCRIPT = """
import sys
from climedbench.models.llamacpp import release

class Stuck:
    def __del__(self):
        sum(range(10 ** 11))  # a C loop: holds the GIL for minutes, as xllamacpp's destructor did

class Quick:
    pass

release([Quick()], wait=5, hard_limit=3)
print("quick released", flush=True)
if sys.argv[1] == "stuck":
    release([Stuck()], wait=1, hard_limit=3)
    print("stuck released", flush=True)
"""


def test_a_shutdown_that_holds_the_gil_ends_the_process_after_the_hard_limit():
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", SCRIPT, "stuck"], capture_output=True, text=True, timeout=90)
    assert time.monotonic() - start < 60
    assert done.returncode == 1
    assert "quick released" in done.stdout and "stuck released" not in done.stdout
    assert "Timeout" in done.stderr and "release" in done.stderr and "__del__" in done.stderr


def test_a_quick_shutdown_cancels_the_watchdog():
    done = subprocess.run([sys.executable, "-c", SCRIPT + "import time; time.sleep(5); print('alive')", "quick"],
                          capture_output=True, text=True, timeout=90)
    assert done.returncode == 0 and "alive" in done.stdout, done.stderr
