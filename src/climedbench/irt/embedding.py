"""Item coordinates in the calibration responses: which items the same examinees get right or wrong.

Each item is a column of the (examinees × items) response matrix. After filling a missing answer with the
item's mean and centring every column, the leading principal components of the matrix give each item a few
coordinates; items close together are answered alike by the calibration examinees (same topic, language,
format or skill). Centring removes difficulty, so a last coordinate adds it back: the item's logit proportion
correct, standardised and scaled to the spread of the first component (otherwise very easy and very hard
items, both nearly constant, would sit together at the origin). The adaptive test clusters items on these coordinates to
build strata (see :mod:`climedbench.cat.strata`), so that a short test covers every kind of item the
benchmark holds, not only the kinds a one-dimensional IRT model describes well.

The decomposition is a seeded randomized SVD (Halko, Martinsson & Tropp 2011: a Gaussian sketch, two power
iterations with re-orthonormalisation): deterministic, and a few matrix products even for 1,000 × 33,735.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


def item_embedding(data: NDArray[np.floating], dims: int = 8, *, seed: int = 0, oversample: int = 10,
                   power_iterations: int = 2) -> F64:
    """(items × (d + 1)) coordinates: d = min(dims, N − 1, J) principal components (right singular vectors ×
    singular values / √examinees), then the difficulty coordinate.

    Signs are fixed so that each component's item coordinates sum to a non-negative number.
    """
    x = np.asarray(data, dtype=np.float64)
    n_ex, n_it = x.shape
    d = max(0, min(dims, n_ex - 1, n_it))
    if d == 0:
        return np.zeros((n_it, 0))
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(np.where(np.isnan(x), np.nan, x), axis=0)
    mean = np.where(np.isfinite(mean), mean, 0.5)
    m = np.where(np.isnan(x), mean[None, :], x).astype(np.float32)
    m -= mean.astype(np.float32)[None, :]
    rng = np.random.default_rng(seed)
    k = min(d + oversample, n_ex, n_it)
    sketch = rng.standard_normal((n_it, k)).astype(np.float32)
    q, _ = np.linalg.qr(m @ sketch)
    for _ in range(power_iterations):
        z, _ = np.linalg.qr(m.T @ q)
        q, _ = np.linalg.qr(m @ z)
    small = (q.T @ m).astype(np.float64)  # k × items
    _, sv, vt = np.linalg.svd(small, full_matrices=False)
    coords = vt[:d].T * (sv[:d] / np.sqrt(n_ex))[None, :]
    signs = np.where(coords.sum(axis=0) < 0, -1.0, 1.0)
    coords *= signs[None, :]
    answered = (~np.isnan(x)).sum(axis=0)
    right = np.nansum(x, axis=0)
    logit = np.log((right + 0.5) / (answered - right + 0.5))
    sd = logit.std()
    difficulty = -(logit - logit.mean()) / (sd if sd > 0 else 1.0) * coords[:, 0].std()
    return np.ascontiguousarray(np.column_stack([coords, difficulty]))
