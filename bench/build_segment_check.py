"""Before/after figures of a `climedbench build` for a change of segmentation (docs/BUILD.md): notes kept, drops by
reason, items per task, and keys with a dangling list number ('…（钻孔引流术后）2.'); with a second build folder, the
items whose key changed between the two.

    python bench/build_segment_check.py OUT_BEFORE [OUT_AFTER]
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

# A list number inside a key (not at its start): 'A（B）2.', 'A 2、B', 'pneumonia 2. AKI'.
DANGLING = re.compile(r"(?<=[^\s\d.．。；;])\s?\d{1,2}[.．、](?=\s|$|[\u4e00-\u9fff])")


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()] if path.exists() else []


def key_of(c: dict) -> str:
    """The key's text: the option at the reference letter, or the reference itself (KE, WTD)."""
    item = c["item"]
    ref = str(item.get("reference", ""))
    m = re.search(rf"(?m)(?:^|选项: |Options: ){re.escape(ref)}: (.*)$", item["input"]) if len(ref) == 1 else None
    return m.group(1) if m else ref


def summary(out: Path) -> dict[tuple[str, str], str]:
    drops = Counter(d["reason"] for d in _lines(out / ".build" / "drops.jsonl"))
    cands = _lines(out / ".build" / "candidates.jsonl")
    state = json.loads((out / ".build" / "state.json").read_text("utf-8"))
    tasks = Counter(c["task"] for c in cands)
    keys = {(c["task"], c["provenance"]["record"]): key_of(c) for c in cands}
    dangling = {k: v for k, v in keys.items() if k[0] not in ("CPR", "CPR-en", "SSO", "SSO-en") and DANGLING.search(v)}
    print(f"== {out}  (guideline digests {state.get('guidelines') or state.get('guideline')})")
    print(f"drops by reason: {dict(sorted(drops.items()))}")
    print(f"items: {len(cands)}  per task: {dict(sorted(tasks.items()))}")
    print(f"keys with a dangling list number: {len(dangling)}")
    for (task, rec), v in sorted(dangling.items()):
        m = DANGLING.search(v)
        assert m is not None
        print(f"   {task} {rec}: …{v[max(0, m.start() - 40):m.end() + 20]}…")
    return keys


def main() -> None:
    outs = [Path(p) for p in sys.argv[1:]]
    got = [summary(o) for o in outs]
    if len(got) == 2:
        before, after = got
        changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
        print(f"items in both: {len(before.keys() & after.keys())}, only before: {len(before.keys() - after.keys())}, "
              f"only after: {len(after.keys() - before.keys())}, key changed: {len(changed)}")
        for k in changed:
            print(f"   {k[0]} {k[1]}:\n      before: {before[k][:150]}\n      after:  {after[k][:150]}")
        for k in sorted(before.keys() - after.keys()):
            print(f"   only before: {k[0]} {k[1]}: {before[k][:100]}")


if __name__ == "__main__":
    main()
