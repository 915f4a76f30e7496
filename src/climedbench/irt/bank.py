"""The item bank: calibrated item parameters, scenarios, diagnostics and flags, stored as BANK.json.

BANK.json layout::

    {"model": "3pl",
     "items": {"<item_id>": {"a": 1.2, "b": -0.3, "c": 0.21, "scenario": "diagnosis",
                             "flags": ["poor_fit"], "se_a": ..., "point_biserial": ..., ...}},
     "meta": {"n_examinees": ..., "iterations": ..., "converged": true, "log_likelihood": ..., ...}}

Only ``a``, ``b`` and ``c`` are required per item; ``scenario``, ``k``, ``flags``, the diagnostics and
``embedding`` (the item's coordinates in the calibration responses, used to stratify adaptive tests) are
optional.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from climedbench.errors import DataError
from climedbench.irt.model import MODELS

FLAG_NEGATIVE_DISCRIMINATION = "negative_discrimination"
FLAG_POOR_FIT = "poor_fit"
FLAG_FEW_RESPONSES = "few_responses"
FLAG_NO_VARIANCE = "no_variance"
#: Estimated discrimination above the plausible range (default a > 4): usually calibration noise that a
#: maximum-information test would exploit; the adaptive test caps a at ``CATConfig.a_max``.
FLAG_IMPLAUSIBLE_A = "implausible_discrimination"
#: Estimated guessing parameter above the plausible range (default c > 0.5).
FLAG_IMPLAUSIBLE_C = "implausible_guessing"
#: Parameters the data barely identify: SE(a) > a, SE(b) > 1, or a standard error that could not be computed.
FLAG_POORLY_IDENTIFIED = "poorly_identified"

#: Per-item diagnostics stored alongside the parameters (all optional).
DIAGNOSTIC_FIELDS = ("se_a", "se_b", "se_c", "n_responses", "p_value", "point_biserial", "rmsd",
                     "fit_chi2", "fit_df", "fit_p")


@dataclass
class ItemBank:
    """Item parameters (arrays aligned with ``ids``), optional scenarios, options, flags and diagnostics."""

    ids: list[str]
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    c: NDArray[np.float64]
    model: str = "3pl"
    scenarios: list[str | None] | None = None
    k: NDArray[np.int64] | None = None
    flags: list[list[str]] | None = None
    diagnostics: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    embedding: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        n = len(self.ids)
        self.a = np.asarray(self.a, dtype=np.float64).reshape(-1)
        self.b = np.asarray(self.b, dtype=np.float64).reshape(-1)
        self.c = np.asarray(self.c, dtype=np.float64).reshape(-1)
        for name in ("a", "b", "c"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"parameter '{name}' has {getattr(self, name).size} values for {n} items")
        if self.scenarios is not None and len(self.scenarios) != n:
            raise ValueError("scenarios must have one entry per item")
        if self.flags is None:
            self.flags = [[] for _ in range(n)]
        if len(set(self.ids)) != n:
            raise ValueError("item ids must be unique")
        if self.embedding is not None:
            self.embedding = np.asarray(self.embedding, dtype=np.float64)
            if self.embedding.ndim != 2 or self.embedding.shape[0] != n:
                raise ValueError("embedding must be an (items × dimensions) array")
        self._index = {item: i for i, item in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def n_items(self) -> int:
        """Number of items in the bank."""
        return len(self.ids)

    def index_of(self, item_ids: Sequence[str]) -> NDArray[np.int64]:
        """Positions of the given item ids in the bank (KeyError naming the first unknown id)."""
        try:
            return np.fromiter((self._index[i] for i in item_ids), dtype=np.int64, count=len(item_ids))
        except KeyError as exc:
            raise KeyError(f"item {exc.args[0]!r} is not in the bank") from None

    def scenario_labels(self) -> tuple[list[str], NDArray[np.int64]]:
        """Return (sorted scenario names, per-item scenario index); items without scenario share one group."""
        if self.scenarios is None or all(s is None for s in self.scenarios):
            return ["all"], np.zeros(self.n_items, dtype=np.int64)
        labels = ["(none)" if s is None else str(s) for s in self.scenarios]
        names = sorted(set(labels))
        pos = {s: i for i, s in enumerate(names)}
        return names, np.fromiter((pos[s] for s in labels), dtype=np.int64, count=len(labels))

    def flagged(self) -> NDArray[np.bool_]:
        """Boolean mask of items carrying at least one flag."""
        assert self.flags is not None
        return np.array([bool(f) for f in self.flags], dtype=bool)

    def subset(self, index: Sequence[int] | NDArray[np.int64]) -> ItemBank:
        """A new bank holding only the items at the given positions."""
        idx = np.asarray(index, dtype=np.int64)
        assert self.flags is not None
        return ItemBank(
            ids=[self.ids[i] for i in idx], a=self.a[idx], b=self.b[idx], c=self.c[idx], model=self.model,
            scenarios=None if self.scenarios is None else [self.scenarios[i] for i in idx],
            k=None if self.k is None else self.k[idx], flags=[list(self.flags[i]) for i in idx],
            diagnostics={k: v[idx] for k, v in self.diagnostics.items()}, meta=dict(self.meta),
            embedding=None if self.embedding is None else self.embedding[idx])

    def transformed(self, slope: float, intercept: float) -> ItemBank:
        """The bank re-expressed on the scale θ* = slope·θ + intercept (a/slope, slope·b + intercept, c)."""
        out = self.subset(np.arange(self.n_items))
        out.a = self.a / slope
        out.b = slope * self.b + intercept
        if "se_a" in out.diagnostics:
            out.diagnostics["se_a"] = out.diagnostics["se_a"] / slope
        if "se_b" in out.diagnostics:
            out.diagnostics["se_b"] = out.diagnostics["se_b"] * slope
        out.meta = {**self.meta, "linking": {"slope": slope, "intercept": intercept}}
        return out

    # ----------------------------------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict in the BANK.json layout."""
        assert self.flags is not None
        items: dict[str, Any] = {}
        for i, item in enumerate(self.ids):
            rec: dict[str, Any] = {"a": _num(self.a[i]), "b": _num(self.b[i]), "c": _num(self.c[i])}
            if self.scenarios is not None and self.scenarios[i] is not None:
                rec["scenario"] = self.scenarios[i]
            if self.k is not None:
                rec["k"] = int(self.k[i])
            rec["flags"] = list(self.flags[i])
            for name in DIAGNOSTIC_FIELDS:
                if name in self.diagnostics:
                    val = self.diagnostics[name][i]
                    integer = name in ("n_responses", "fit_df") and np.isfinite(val)
                    rec[name] = int(val) if integer else _num(val)
            if self.embedding is not None:
                rec["embedding"] = [round(float(v), 4) for v in self.embedding[i]]
            items[item] = rec
        return {"model": self.model, "items": items, "meta": _jsonable(self.meta)}

    def save(self, path: str | Path) -> None:
        """Write the bank as BANK.json."""
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")

    @classmethod
    def from_dict(cls, obj: Any, *, file: str | None = None) -> ItemBank:
        """Build a bank from a BANK.json dict, validating every item (DataError naming the item and field)."""
        if not isinstance(obj, dict) or not isinstance(obj.get("items"), dict):
            raise DataError("not an item bank: expected an object with an 'items' object", file=file)
        model = str(obj.get("model", "3pl")).lower()
        if model not in MODELS:
            raise DataError(f"unknown model {model!r} (expected one of {', '.join(MODELS)})", file=file,
                            field="model")
        items: dict[str, Any] = obj["items"]
        if not items:
            raise DataError("the bank has no items", file=file, field="items")
        n = len(items)
        ids = list(items)
        a, b, c = np.empty(n), np.empty(n), np.empty(n)
        scen: list[str | None] = []
        ks: list[int] = []
        flags: list[list[str]] = []
        diag: dict[str, NDArray[np.float64]] = {}
        emb: list[list[float] | None] = []
        for i, (item, rec) in enumerate(items.items()):
            if not isinstance(rec, dict):
                raise DataError(f"item {item!r}: expected an object", file=file, field=item)
            for name, arr in (("a", a), ("b", b), ("c", c)):
                val = rec.get(name, 0.0 if name == "c" else None)
                if isinstance(val, bool) or not isinstance(val, int | float) or not math.isfinite(val):
                    raise DataError(f"item {item!r}: '{name}' must be a finite number, got {val!r}",
                                    file=file, field=f"{item}.{name}")
                arr[i] = float(val)
            if a[i] <= 0:
                raise DataError(f"item {item!r}: discrimination 'a' must be > 0, got {a[i]}", file=file,
                                field=f"{item}.a")
            if not 0.0 <= c[i] < 1.0:
                raise DataError(f"item {item!r}: guessing 'c' must be in [0, 1), got {c[i]}", file=file,
                                field=f"{item}.c")
            s = rec.get("scenario")
            scen.append(None if s is None else str(s))
            ks.append(int(rec.get("k", -1)))
            fl = rec.get("flags", [])
            if not isinstance(fl, list):
                raise DataError(f"item {item!r}: 'flags' must be a list", file=file, field=f"{item}.flags")
            flags.append([str(f) for f in fl])
            for name in DIAGNOSTIC_FIELDS:
                if name in rec:
                    diag.setdefault(name, np.full(n, np.nan))[i] = np.nan if rec[name] is None else rec[name]
            vec = rec.get("embedding")
            if vec is not None and (not isinstance(vec, list) or not all(
                    isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in vec)):
                raise DataError(f"item {item!r}: 'embedding' must be a list of finite numbers", file=file,
                                field=f"{item}.embedding")
            emb.append(vec)
        embedding = None
        if any(v is not None for v in emb):
            dims = {len(v) for v in emb if v is not None}
            if len(dims) != 1 or any(v is None for v in emb):
                first = next(item for item, v in zip(ids, emb, strict=True)
                             if v is None or len(v) != len(emb[0] or []))
                raise DataError(f"item {first!r}: every item needs an 'embedding' of the same length", file=file,
                                field=f"{first}.embedding")
            embedding = np.array(emb, dtype=np.float64)
        has_k = any(k >= 0 for k in ks)
        return cls(ids=ids, a=a, b=b, c=c, model=model,
                   scenarios=scen if any(s is not None for s in scen) else None,
                   k=np.array(ks, dtype=np.int64) if has_k else None, flags=flags, diagnostics=diag,
                   meta=dict(obj.get("meta", {}) or {}), embedding=embedding)

    @classmethod
    def load(cls, path: str | Path) -> ItemBank:
        """Read and validate a BANK.json file."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataError(f"cannot read item bank: {exc.strerror}", file=str(p)) from exc
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=str(p),
                            line=exc.lineno) from exc
        return cls.from_dict(obj, file=str(p))


def _num(x: float) -> float | None:
    """Round a float for JSON; NaN/inf become null."""
    x = float(x)
    return round(x, 6) if math.isfinite(x) else None


def _jsonable(obj: Any) -> Any:
    """Convert NumPy scalars/arrays and non-finite floats inside ``obj`` to plain JSON values."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        return float(obj) if math.isfinite(obj) else None
    return obj
