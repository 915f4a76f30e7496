"""The build's state under SUITE_DIR/.build, so that killing and re-running loses nothing.

- `state.json`: the settings of the build (source, scenarios, templates and guideline digests, generator); a
  re-run with other settings is refused (use another --out), so one folder holds one build;
- `drops.jsonl`: every note dropped in preprocessing with its reason (rewritten each run: deterministic);
- `units.jsonl`: one line per finished (scenario, record) unit, appended and flushed as each finishes: its
  candidate id, or the reason no item was made; a re-run skips finished units;
- `candidates.jsonl` (candidates.py), `embeddings.sqlite` (distractors.py); model calls are in the response
  cache (climedbench/cache.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from climedbench.build.candidates import BUILD_DIR
from climedbench.errors import ConfigError, DataError

STATE = "state.json"
UNITS = "units.jsonl"
DROPS = "drops.jsonl"


class BuildState:
    def __init__(self, suite_dir: Path) -> None:
        self.dir = suite_dir / BUILD_DIR
        self.dir.mkdir(parents=True, exist_ok=True)
        self.units: dict[str, dict[str, Any]] = {}
        path = self.dir / UNITS
        if path.exists():
            lines = path.read_text(encoding="utf-8").split("\n")
            for i, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    if i == len(lines):  # cut by a kill: the unit is redone
                        continue
                    raise DataError("not valid JSON", file=str(path), line=i) from None
                self.units[rec["unit"]] = rec

    def settings(self) -> dict[str, Any] | None:
        p = self.dir / STATE
        return json.loads(p.read_text(encoding="utf-8")) if p.exists() else None

    def check_settings(self, settings: dict[str, Any]) -> None:
        """Record the settings of a new build, or refuse a re-run whose settings differ."""
        old = self.settings()
        if old is None:
            _write_json(self.dir / STATE, settings)
            return
        diff = [k for k in sorted(set(old) | set(settings)) if old.get(k) != settings.get(k)]
        if diff:
            raise ConfigError(f"{self.dir.parent}: holds a build with other settings ({', '.join(diff)}); re-run "
                              "with the same settings to resume, or build into a new --out folder")

    def done(self, unit: str) -> bool:
        return unit in self.units

    def finish(self, unit: str, **info: Any) -> None:
        rec = {"unit": unit, **info}
        path = self.dir / UNITS
        _repair_tail(path)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.units[unit] = rec

    def write_drops(self, drops: list[dict[str, Any]]) -> None:
        tmp = self.dir / (DROPS + ".part")
        tmp.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in drops), encoding="utf-8")
        tmp.replace(self.dir / DROPS)

    def drops(self) -> list[dict[str, Any]]:
        p = self.dir / DROPS
        return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()] if p.exists() else []


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)


def _repair_tail(path: Path) -> None:
    if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        data = path.read_bytes()
        path.write_bytes(data[: data.rfind(b"\n") + 1])
