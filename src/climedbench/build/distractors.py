"""Distractors from other patients' segments of the same content type, in a similarity band (paper §2.2:
"distractors sourced from disparate but thematically similar EHR segments").

Similarity is the cosine of sentence embeddings (the bundled multilingual-e5-small, `climedbench.embeddings`;
offline). A distractor must come from another patient, differ from the key (not equal after normalising, neither
containing the other, character-bigram Jaccard below `max_overlap`) and from the other distractors, and have a
similarity to the key inside [lo, hi]: above hi it is near-identical (a second defensible answer), below lo it is
unrelated (an easy give-away). When fewer than `n` fall in the band, lo is lowered by `step` down to `floor`;
the band actually used is recorded on the item, with each distractor's similarity. Options within 1.5 times the
key's length (either way) are tried first, over the whole band, before any length is allowed.

Embeddings are kept in `.build/embeddings.sqlite` (by embedder and text hash), so a resumed build does not embed
again.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from climedbench.build.candidates import Distractor


@dataclass(frozen=True)
class Band:
    lo: float = 0.82
    hi: float = 0.95
    floor: float = 0.70
    step: float = 0.02
    max_overlap: float = 0.6
    n: int = 3
    max_len_ratio: float = 1.5  # options within this length ratio of the key first (the longest option is a cue)


@dataclass
class PoolEntry:
    text: str
    record: str
    patient: str
    segment: str
    kind: str = ""  # composed scenarios: which fact (summary) or 'element' (critique) the text is
    context: str = ""  # critique: the other patient's main diagnosis


class EmbeddingStore:
    """Unit vectors of texts, computed once per embedder and text, kept in SQLite."""

    def __init__(self, path: Path, embedder: Any) -> None:
        self.embedder = embedder
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INTEGER, vec BLOB)")
        self.computed = 0

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.embedder.name}\n{text}".encode()).hexdigest()

    def vectors(self, texts: list[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            q = f"SELECT key, vec FROM vectors WHERE key IN ({','.join('?' * len(chunk))})"
            for k, blob in self._db.execute(q, chunk):
                found[k] = np.frombuffer(blob, dtype=np.float32)
        missing = sorted({t for t, k in zip(texts, keys, strict=True) if k not in found})
        for i in range(0, len(missing), 64):
            batch = missing[i:i + 64]
            vecs = np.asarray(self.embedder(batch), dtype=np.float32)
            vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            with self._db:
                for t, v in zip(batch, vecs, strict=True):
                    self._db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                     (self._key(t), len(v), v.tobytes()))
                    found[self._key(t)] = v
            self.computed += len(batch)
        return np.stack([found[k] for k in keys]) if keys else np.zeros((0, 1), dtype=np.float32)

    def close(self) -> None:
        self._db.close()


def _norm(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", text.lower())


def _bigrams(text: str) -> set[str]:
    t = _norm(text)
    return {t[i:i + 2] for i in range(max(1, len(t) - 1))}


def too_close(a: str, b: str, max_overlap: float) -> bool:
    """Equal, one inside the other, or sharing most character bigrams: the same answer in other words."""
    na, nb = _norm(a), _norm(b)
    if not na or not nb or na == nb or na in nb or nb in na:
        return True
    ba, bb = _bigrams(a), _bigrams(b)
    return len(ba & bb) / max(1, len(ba | bb)) >= max_overlap


def pick(key: str, patient: str, pool: list[PoolEntry], store: EmbeddingStore, band: Band
         ) -> tuple[list[Distractor], tuple[float, float]] | None:
    """`band.n` distractors for `key` inside the band (see _clique) and the band used; None when the pool has too
    few even at the floor."""
    others = [e for e in pool if e.patient != patient and not too_close(key, e.text, band.max_overlap)]
    if len(others) < band.n:
        return None
    vecs = store.vectors([key] + [e.text for e in others])
    sims = vecs[1:] @ vecs[0]
    for ratio in (band.max_len_ratio, None):  # options of about the key's length first, then any length
        lo = band.lo
        while lo >= band.floor - 1e-9:
            inside = [i for i in range(len(others)) if lo <= float(sims[i]) <= band.hi
                      and (ratio is None or 1 / ratio <= len(others[i].text) / max(1, len(key)) <= ratio)]
            chosen = _clique(inside, others, vecs[1:], sims, band)
            if chosen is not None:
                picked = [Distractor(others[j].text, others[j].record, others[j].segment,
                                     round(float(sims[j]), 4)) for j in chosen]
                return picked, (round(lo, 4), band.hi)
            lo -= band.step
    return None


def _clique(inside: list[int], others: list[PoolEntry], vecs: np.ndarray, sims: np.ndarray, band: Band
            ) -> list[int] | None:
    """`band.n` of the in-band candidates: the one most similar to the key first, then each time the one whose
    least similarity to the options chosen so far (key included) is highest. Distractors close to the key but far
    from each other would make the key the option that agrees most with the others (an answer cue that
    `audit-items` counts); chosen this way, every option is about as central as the key."""
    chosen: list[int] = []
    pool = sorted(inside, key=lambda i: (-float(sims[i]), others[i].record))
    while len(chosen) < band.n:
        best, best_score = None, -2.0
        for i in pool:
            if i in chosen or any(others[i].patient == others[j].patient or
                                  too_close(others[i].text, others[j].text, band.max_overlap) for j in chosen):
                continue
            score = min([float(sims[i]), *(float(vecs[i] @ vecs[j]) for j in chosen)])
            if score > best_score + 1e-12:
                best, best_score = i, score
        if best is None:
            return None
        chosen.append(best)
    return chosen
