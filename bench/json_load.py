"""Loading time of one big JSON array against the same records as JSON lines (issue 20).

    python bench/json_load.py [--sizes 10 50] [--runs 1]

For each size (MB) it writes synthetic BKT items (tests/support/synthetic.py) into a temporary folder twice:
as JSON lines, and as one pretty-printed JSON array (indent 1, so a record spans several lines and its start
line is tracked). It then times `load_items` on each (read, checked and built into items: what `validate` and
`run` do), each load in a fresh interpreter, and prints the seconds, best of --runs, and the ratio JSON / JSONL.
Target: the 50 MB JSON array in at most 2x the JSONL time (it took over 15 minutes before the reader streamed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.synthetic import bkt_items  # noqa: E402


def write_files(folder: Path, mb: float) -> tuple[Path, Path]:
    """BKT.jsonl and BKT.json of about `mb` MB each, holding the same records."""
    probe = bkt_items(folder / "probe.jsonl", 200)
    per_record = probe.stat().st_size / 200
    probe.unlink()
    (folder / f"{mb:g}MB").mkdir()
    jsonl = bkt_items(folder / f"{mb:g}MB" / "BKT.jsonl", int(mb * 1e6 / per_record))
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    array = folder / f"{mb:g}MB-array" / "BKT.json"
    array.parent.mkdir()
    array.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return jsonl, array


def load_seconds(path: Path) -> tuple[float, int]:
    """Seconds `load_items` takes on `path`, and the items it found (in this process)."""
    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items

    suite = load_suite()
    t0 = time.perf_counter()
    report = load_items(path, suite)
    seconds = time.perf_counter() - t0
    if report.problems:
        raise SystemExit(f"{path}: {len(report.problems)} invalid records, first: {report.problems[0]}")
    return seconds, len(report.items)


def best_time(path: Path, runs: int) -> tuple[float, int]:
    """The best of `runs` loads, each in a fresh interpreter (no load pays for another's memory)."""
    best, count = float("inf"), 0
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--time", str(path)], check=True, capture_output=True,
                             text=True).stdout.split()
        best, count = min(best, float(out[0])), int(out[1])
    return best, count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="+", default=[10, 50], help="File sizes in MB.")
    ap.add_argument("--runs", type=int, default=1, help="Timed loads of each file; the best is shown.")
    ap.add_argument("--time", type=Path, help=argparse.SUPPRESS)  # one timed load (run by best_time)
    args = ap.parse_args()
    if args.time is not None:
        seconds, count = load_seconds(args.time)
        print(seconds, count)
        return
    print(f"{'size':>7} {'records':>8} {'JSONL s':>8} {'JSON s':>8} {'JSON/JSONL':>10}")
    with tempfile.TemporaryDirectory(prefix="json-load-") as tmp:
        for mb in args.sizes:
            jsonl, array = write_files(Path(tmp), mb)
            t_lines, n_lines = best_time(jsonl, args.runs)
            t_array, n_array = best_time(array, args.runs)
            if n_lines != n_array:
                raise SystemExit(f"{mb:g} MB: {n_lines} items from JSON lines, {n_array} from the array")
            size = f"{array.stat().st_size / 1e6:.0f} MB"
            print(f"{size:>7} {n_lines:>8} {t_lines:>8.2f} {t_array:>8.2f} {t_array / t_lines:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
