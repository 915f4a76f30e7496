"""The rating app under load, and the agreement statistics' cost.

    python bench/rater_app.py [--cases 200] [--raters 10] [--per-item 2] [--units 1000] [--replicates 2000]

1. A study of --cases WTD cases (two constructed model answers each, 4 aspects) for --raters raters, K per case,
   served by a real `climedbench rate serve` child process over a real SQLite file. Every rater works through
   their whole list at once (one thread each): open the case page, submit all 8 scores. Prints submissions
   per second, page and submission latency (p50/p95/max), the server's resident memory, and checks that every
   submission is in the file.
2. `agreement` (α with a bootstrap interval, κ per pair, means) on --units simulated units × 3 raters × 4
   aspects: wall time. Simulated ratings: a true 1–5 score per unit, each rater off by −1/0/+1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import numpy as np  # noqa: E402

from climedbench.apps.rater.store import Store  # noqa: E402
from climedbench.core.types import Rating  # noqa: E402
from tests.rater.helpers import form_fields, make_study  # noqa: E402
from tests.support.rater_server import rater_server  # noqa: E402
from tests.support.synthetic import rss_mb  # noqa: E402


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000


def load(args: argparse.Namespace, tmp: Path) -> None:
    db, tokens = make_study(tmp, n=args.cases, raters=args.raters, per_item=args.per_item)
    pages: list[float] = []
    posts: list[float] = []
    lock = threading.Lock()
    with rater_server(db) as server:
        assert server.proc is not None

        def work(token: str) -> int:
            sent = 0
            with httpx.Client(base_url=server.url, follow_redirects=False, timeout=60) as c:
                location = c.get(f"/r/{token}").headers["location"]
                while location.rsplit("/", 1)[1] != "done":
                    t0 = time.perf_counter()
                    html = c.get(location).text
                    t1 = time.perf_counter()
                    sid, case, fields = form_fields(html)
                    r = c.post(location, data={"sid": sid, "case": case, **dict.fromkeys(fields, "3")})
                    t2 = time.perf_counter()
                    assert r.status_code == 303, r.text
                    location = r.headers["location"]
                    sent += 1
                    with lock:
                        pages.append(t1 - t0)
                        posts.append(t2 - t1)
            return sent

        start = time.perf_counter()
        with ThreadPoolExecutor(args.raters) as pool:
            sent = sum(pool.map(work, tokens.raters.values()))
        wall = time.perf_counter() - start
        memory = rss_mb(server.proc.pid)
    stored = len(Store(db).ratings())
    print(f"rating app: {args.raters} raters at once, {args.cases} cases × {args.per_item} raters, 2 answers × 4 "
          f"aspects per page")
    print(f"  {sent} submissions in {wall:.1f} s = {sent / wall:.0f} submissions/s")
    print(f"  case page  p50 {pct(pages, 50):.1f} ms, p95 {pct(pages, 95):.1f} ms, max {max(pages) * 1000:.1f} ms")
    print(f"  submission p50 {pct(posts, 50):.1f} ms, p95 {pct(posts, 95):.1f} ms, max {max(posts) * 1000:.1f} ms "
          "(committed, fsync'd, before the redirect)")
    print(f"  server resident memory {memory:.0f} MB; ratings stored {stored} of {sent * 8} sent")


def agreement_cost(args: argparse.Namespace) -> None:
    from climedbench.apps.rater.analysis import agreement
    from climedbench.apps.rater.rubric import load_rubric

    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, args.units)
    ratings = []
    for aspect in ("correctness", "completeness", "fluency", "friendliness"):
        for r in ("a", "b", "c"):
            scores = np.clip(truth + rng.integers(-1, 2, args.units), 1, 5)
            ratings += [Rating(item=f"u{k}", rater=r, aspect=aspect, score=int(s), model=f"m{k % 2}")
                        for k, s in enumerate(scores)]
    start = time.perf_counter()
    result = agreement(ratings, rubric=load_rubric("answer"), replicates=args.replicates)
    wall = time.perf_counter() - start
    a = result["correctness"]
    print(f"agreement: {len(ratings)} simulated ratings ({args.units} units × 3 raters × 4 aspects), "
          f"{args.replicates} bootstrap resamples: {wall:.2f} s")
    print(f"  e.g. correctness α = {a.alpha:.3f} [{a.lower:.3f}, {a.upper:.3f}] over {a.n_items} units "
          f"(mean κ of the 3 pairs {statistics.mean(p.kappa or 0 for p in a.kappa):.3f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--raters", type=int, default=10)
    ap.add_argument("--per-item", type=int, default=2)
    ap.add_argument("--units", type=int, default=1000)
    ap.add_argument("--replicates", type=int, default=2000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        load(args, Path(tmp))
    agreement_cost(args)


if __name__ == "__main__":
    main()
