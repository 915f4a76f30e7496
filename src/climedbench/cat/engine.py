"""The vectorised adaptive-testing engine: item selection, exposure control, content balancing, EAP updates.

One engine serves both a single live examinee (:class:`climedbench.cat.session.CATSession`) and thousands of
simulees at once (:func:`climedbench.cat.simulation.run_cat`): the state holds one row per examinee.

Two families of designs:

* ``stratified`` (the default): adaptive stratified sampling for predicting the full-benchmark score. Items
  are grouped into strata (clusters of items answered alike, nested in scenarios; :mod:`climedbench.cat.strata`).
  Each step picks the stratum whose count lags its Neyman target the most — target share ∝ the stratum's weight
  in the overall score × the posterior-expected SD of its items' answers, √(mean P(1 − P)), floored at
  √``neyman_floor`` — and asks a *uniformly random* unasked item of it. The first ``pilot`` share of the test
  uses the prior instead of the posterior, and every stratum gets ``min_per_stratum`` items but at most a
  share cap = max(``max_exposure``, 2n/N) of its items (n items of an N-item bank; strata are made large
  enough for both): random choice within a stratum then asks each item of at most that share of examinees in
  expectation — exposure control is part of the design (default 0.15, so that the realised maximum over a few
  hundred examinees stays under 0.25). Random choice
  within strata keeps the sample representative, so the prediction can correct the IRT model where it
  misfits (:mod:`climedbench.cat.estimate`); the allocation puts the items where the examinee's answers are
  least predictable. On real LLM response matrices this predicts full scores about twice as accurately as
  asking the same number of random items (docs/ADAPTIVE.md), where maximum information does worse than random.
* ``fisher`` / ``kl``: the paper's maximum-information CAT (or Chang & Ying's KL index), with the steps below.

Each step of a ``fisher``/``kl`` test, for every examinee still testing:

1. *Content balancing* picks the scenario whose count lags its target share the most
   (deficit = share × (items so far + 1) − count; Kingsbury & Zara 1989).
2. *Candidates*: the top items of that scenario at the grid node nearest θ̂ come from a precomputed table;
   they are re-ranked by the exact criterion at θ̂ (Fisher information, or Chang & Ying's KL index over
   θ̂ ± 3/√n), unavailable items removed. If a row runs out of table candidates, its whole scenario pool is
   ranked instead, so the table only ever saves time.
3. *Exposure control*: ``none`` takes the best; ``randomesque`` a uniformly random one of the best n;
   ``sympson-hetter`` walks down the ranking and administers an item with probability k_i (items passed over
   are blocked for that examinee, as in Sympson & Hetter 1985).
4. After the answer the log-posterior on a fixed grid is updated and θ̂ = posterior mean, SE = posterior SD.

Discriminations above ``a_max`` (default 4, the bank's implausible_discrimination flag) are capped in the
engine's working copy of the bank: an overestimated a would otherwise be chosen first by maximum information
and would dominate the ability posterior.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from climedbench.cat.config import EXPOSURES, SELECTIONS, CATConfig, CATState
from climedbench.cat.strata import Strata, build_strata
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.model import information, kl_divergence, log_prob

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

# CATConfig, CATState, SELECTIONS and EXPOSURES live in cat/config.py; imported here by name for the engine's users.
__all__ = ["EXPOSURES", "SELECTIONS", "CATConfig", "CATEngine", "CATState"]

_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)


class CATEngine:
    """Precomputed tables and vectorised steps of an adaptive test over one item bank."""

    def __init__(self, bank: ItemBank, config: CATConfig | None = None) -> None:
        cfg = config or CATConfig()
        cfg.validate()
        self.source_bank = bank
        self.n_capped = 0
        if cfg.a_max is not None and np.any(bank.a > cfg.a_max):
            self.n_capped = int(np.sum(bank.a > cfg.a_max))
            bank = bank.subset(np.arange(bank.n_items))
            bank.a = np.minimum(bank.a, cfg.a_max)
        self.bank = bank
        self.cfg = cfg
        self.grid = cfg.prior_mean + cfg.prior_sd * np.linspace(-cfg.grid_halfwidth, cfg.grid_halfwidth,
                                                                cfg.grid_size)
        self.step = float(self.grid[1] - self.grid[0])
        self.log_prior = stats.norm.logpdf(self.grid, cfg.prior_mean, cfg.prior_sd)
        j = bank.n_items
        eligible = np.ones(j, dtype=bool)
        if cfg.exclude_flagged:
            eligible &= ~bank.flagged()
        if not eligible.any():
            raise ConfigError("no eligible items in the bank")
        self.eligible = eligible
        if cfg.content == "none" and cfg.selection != "stratified":  # stratified: scenarios define the score
            self.scenarios, self.scen_idx = ["all"], np.zeros(j, dtype=np.int64)
        else:
            self.scenarios, self.scen_idx = bank.scenario_labels()
        n_s = len(self.scenarios)
        self.pool_sizes = np.bincount(self.scen_idx[eligible], minlength=n_s)
        self.targets = self._target_shares()
        if cfg.exposure == "sympson-hetter" and cfg.selection != "stratified":
            if cfg.sh_parameters is None:
                raise ConfigError("Sympson–Hetter needs exposure parameters (see sympson_hetter_parameters)")
            k = np.asarray(cfg.sh_parameters, dtype=np.float64)
            if k.shape != (j,) or np.any((k < 0) | (k > 1)):
                raise ConfigError("Sympson–Hetter parameters must be one probability in [0, 1] per bank item")
            self.sh_k = k
        else:
            self.sh_k = np.ones(j)
        self.pools = [np.flatnonzero(eligible & (self.scen_idx == s)) for s in range(n_s)]
        quota = np.ceil(self.targets * cfg.max_items).astype(int) + 2
        extra = cfg.max_items if cfg.exposure == "sympson-hetter" else 0
        self.k_cand = int(min(max(self.pool_sizes.max(), 1),
                              quota.max() + cfg.randomesque_n + 16 + extra))
        self._fisher_table: tuple[I64, F64] | None = None
        self._kl_tables: dict[tuple[int, int], I64] = {}
        self._kl_nodes = np.arange(0, self.grid.size, 3)
        self.strata: Strata | None = None
        if cfg.selection == "stratified":
            self._setup_strata()

    def _setup_strata(self) -> None:
        """Strata, their member lists (padded with −1) and the prior-based Neyman shares."""
        cfg = self.cfg
        n_eligible = int(self.eligible.sum())
        self.exposure_cap = 1.0 if cfg.max_exposure is None else min(
            1.0, max(cfg.max_exposure, 2.0 * cfg.max_items / n_eligible))
        # a stratum must be large enough to give min_per_stratum items without exceeding the cap
        min_size = max(1, math.ceil(cfg.min_per_stratum / self.exposure_cap))
        st = build_strata(self.bank, self.grid, self.log_prior, self.scen_idx, len(self.scenarios), self.eligible,
                          cfg.max_items, per_stratum=cfg.per_stratum, floor=cfg.neyman_floor,
                          seed=cfg.strata_seed, min_size=min_size)
        self.strata = st
        n_h = st.n_strata
        members = [np.flatnonzero(st.labels == h) for h in range(n_h)]
        width = max(m.size for m in members)
        self.strata_members = np.full((n_h, width), -1, dtype=np.int64)
        for h, m in enumerate(members):
            self.strata_members[h, :m.size] = m
        prior = np.exp(self.log_prior - self.log_prior.max())
        prior /= prior.sum()
        self.prior_shares = self._neyman_shares((prior @ st.pq_mean)[None, :])[0]

    def _neyman_shares(self, pq: F64) -> F64:
        """Per row, the share of the test each stratum should get: ∝ weight × √max(mean PQ, floor), within
        bounds — at least ``min_per_stratum`` items, at most the stratum's size, and at most
        ⌊cap × size⌋ items (one at least) with cap = max(``max_exposure``, 2n/N) (n items asked of N), so that
        no item is asked of more than a ``max_exposure`` share of examinees in expectation unless the test is so
        long a part of the bank that every design exposes items more (then twice the average rate n/N)."""
        assert self.strata is not None
        cfg = self.cfg
        raw = self.strata.weight[None, :] * np.sqrt(np.maximum(pq, cfg.neyman_floor))
        n = float(cfg.max_items)
        sizes = self.strata.sizes[None, :]
        # whole items: the sequential rule rounds a fractional target up for some examinees
        upper = np.minimum(sizes, np.maximum(np.floor(self.exposure_cap * sizes + 1e-9), 1.0)) / n
        lower = np.minimum(min(cfg.min_per_stratum, n / self.strata.n_strata) / n, upper)
        if upper.sum() <= 1.0:  # the test is at least as long as the bank allows: every stratum at its maximum
            return np.broadcast_to(upper / upper.sum(), raw.shape).copy()
        # water-filling: shares = clip(λ · raw, lower, upper) with λ chosen per row so they sum to 1
        lo = np.zeros((raw.shape[0], 1))
        hi = np.full((raw.shape[0], 1), float((upper / np.maximum(raw, 1e-300)).max()) + 1.0)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            total = np.clip(mid * raw, lower, upper).sum(axis=1, keepdims=True)
            lo = np.where(total < 1.0, mid, lo)
            hi = np.where(total < 1.0, hi, mid)
        share = np.clip(hi * raw, lower, upper)
        return share / share.sum(axis=1, keepdims=True)

    # ----------------------------------------------------------------------------------------- set-up
    def _target_shares(self) -> F64:
        """Target share of each scenario, raised so each gets at least ``min_per_scenario`` items."""
        cfg = self.cfg
        n_s = len(self.scenarios)
        if isinstance(cfg.content, Mapping):
            unknown = sorted(set(cfg.content) - set(self.scenarios))
            if unknown:
                raise ConfigError(f"content shares name unknown scenarios: {', '.join(unknown)}")
            t = np.array([float(cfg.content.get(s, 0.0)) for s in self.scenarios])
            if np.any(t < 0) or t.sum() <= 0:
                raise ConfigError("content shares must be >= 0 with a positive sum")
        elif cfg.content == "equal":
            t = np.ones(n_s)
        else:  # the bank's own shares (the full benchmark's composition)
            t = np.bincount(self.scen_idx, minlength=n_s).astype(np.float64)
        t = np.where(self.pool_sizes > 0, t, 0.0)
        t = t / t.sum()
        floor = cfg.min_per_scenario / cfg.max_items
        has = self.pool_sizes > 0
        if cfg.min_per_scenario > 0 and floor * has.sum() < 1.0:
            for _ in range(5):
                low = has & (t < floor)
                if not low.any():
                    break
                rest = has & ~low
                t = np.where(low, floor, t)
                t[rest] *= (1.0 - floor * low.sum()) / t[rest].sum()
        return t

    def _fisher(self) -> tuple[I64, F64]:
        """Per grid node and scenario: the top candidates by Fisher information (padded with −1)."""
        if self._fisher_table is None:
            self._fisher_table = self._build_table(self.grid, information)
        return self._fisher_table

    def _build_table(self, nodes: F64, crit_fn: object) -> tuple[I64, F64]:
        """Rank each scenario pool at each node by a criterion; keep the top ``k_cand``."""
        n_s, k = len(self.scenarios), self.k_cand
        table = np.full((nodes.size, n_s, k), -1, dtype=np.int64)
        values = np.full((nodes.size, n_s, k), -np.inf)
        b = self.bank
        for s, pool in enumerate(self.pools):
            if pool.size == 0:
                continue
            kk = min(k, pool.size)
            for start in range(0, nodes.size, 64):
                th = nodes[start:start + 64, None]
                crit = crit_fn(th, b.a[pool], b.b[pool], b.c[pool])  # type: ignore[operator]
                if kk < pool.size:
                    part = np.argpartition(-crit, kk - 1, axis=1)[:, :kk]
                else:
                    part = np.broadcast_to(np.arange(pool.size), (crit.shape[0], pool.size))
                vals = np.take_along_axis(crit, part, axis=1)
                order = np.argsort(-vals, axis=1, kind="stable")
                table[start:start + 64, s, :kk] = pool[np.take_along_axis(part, order, axis=1)]
                values[start:start + 64, s, :kk] = np.take_along_axis(vals, order, axis=1)
        return table, values

    def _kl_candidates(self, node: int, bucket: int) -> I64:
        """Candidate table (scenarios × k) for the KL index at a coarse node and interval bucket (cached)."""
        key = (node, bucket)
        if key not in self._kl_tables:
            delta = 3.0 / math.sqrt(2.0 ** bucket)
            th0 = np.array([self.grid[node]])
            table, _ = self._build_table(th0, lambda th, a, b, c: _kl_index(th, delta, a, b, c))
            self._kl_tables[key] = table[0]
        return self._kl_tables[key]

    # ----------------------------------------------------------------------------------------- state
    def new_state(self, n: int) -> CATState:
        """Fresh state for ``n`` examinees at the prior."""
        cfg = self.cfg
        L = cfg.max_items
        n_s = len(self.scenarios)
        lp = np.broadcast_to(self.log_prior, (n, self.grid.size)).copy()
        return CATState(
            logpost=lp, theta=np.full(n, cfg.prior_mean), se=np.full(n, cfg.prior_sd),
            n_admin=np.zeros(n, dtype=np.int64), used=np.zeros((n, self.bank.n_items), dtype=bool),
            items=np.full((n, L), -1, dtype=np.int64), responses=np.full((n, L), np.nan),
            info=np.full((n, L), np.nan), theta_after=np.full((n, L), np.nan),
            se_after=np.full((n, L), np.nan),
            counts=np.zeros((n, n_s), dtype=np.int64),
            avail=np.broadcast_to(self.pool_sizes, (n, n_s)).copy(), active=np.ones(n, dtype=bool),
            sh_selected=np.zeros(self.bank.n_items, dtype=np.int64),
            strat_counts=np.zeros((n, 0 if self.strata is None else self.strata.n_strata), dtype=np.int64),
            strat_avail=(np.zeros((n, 0), dtype=np.int64) if self.strata is None else
                         np.broadcast_to(self.strata.sizes.astype(np.int64), (n, self.strata.n_strata)).copy()))

    def mark_unavailable(self, st: CATState, unavailable: NDArray[np.bool_]) -> None:
        """Items that cannot be asked of a row (e.g. a recorded answer sheet without them): never chosen."""
        mask = np.asarray(unavailable, dtype=bool) & ~st.used
        if mask.shape != st.used.shape:
            raise ConfigError("the unavailable mask must be examinees × bank items")
        st.used |= mask
        onehot = np.zeros((self.bank.n_items, len(self.scenarios)))
        onehot[np.arange(self.bank.n_items), self.scen_idx] = 1.0
        onehot[~self.eligible] = 0.0
        st.avail -= np.rint(mask.astype(np.float64) @ onehot).astype(np.int64)
        if self.strata is not None:
            lab = self.strata.labels
            oh = np.zeros((self.bank.n_items, self.strata.n_strata))
            ok = lab >= 0
            oh[np.flatnonzero(ok), lab[ok]] = 1.0
            st.strat_avail -= np.rint(mask.astype(np.float64) @ oh).astype(np.int64)
        empty = st.avail.sum(axis=1) == 0
        st.active[empty] = False

    # ----------------------------------------------------------------------------------------- selection
    def _criterion(self, theta: F64, n_admin: I64, items: I64) -> F64:
        """Exact selection criterion of candidate items (R × K) at each row's θ̂ (−inf for padding)."""
        safe = np.maximum(items, 0)
        b = self.bank
        th = theta[:, None]
        if self.cfg.selection == "fisher":
            val = information(th, b.a[safe], b.b[safe], b.c[safe])
        else:
            delta = 3.0 / np.sqrt(np.maximum(n_admin, 1))[:, None]
            val = _kl_index(th, delta, b.a[safe], b.b[safe], b.c[safe])
        return np.where(items >= 0, val, -np.inf)

    def next_scenarios(self, st: CATState, rows: I64) -> I64:
        """Scenario to draw from next for each row (largest deficit against the target shares)."""
        deficit = self.targets[None, :] * (st.n_admin[rows, None] + 1) - st.counts[rows]
        deficit = deficit + 1e-9 * self.targets[None, :]
        deficit = np.where(st.avail[rows] > 0, deficit, -np.inf)
        return np.argmax(deficit, axis=1)

    def select(self, st: CATState, rows: I64, rng: np.random.Generator) -> tuple[I64, F64]:
        """Choose the next item for each row; returns (item index, its criterion value at θ̂).

        For the stratified design the value is the chosen stratum's Neyman share of the test."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.strata is not None:
            return self._select_stratified(st, rows, rng)
        scen = self.next_scenarios(st, rows)
        theta = st.theta[rows]
        node = np.clip(np.rint((theta - self.grid[0]) / self.step).astype(np.int64), 0, self.grid.size - 1)
        if self.cfg.selection == "fisher":
            table, _ = self._fisher()
            cand = table[node, scen]
        else:
            kl_node = self._kl_nodes[np.clip(np.rint(node / 3).astype(np.int64), 0, self._kl_nodes.size - 1)]
            bucket = np.clip(np.rint(np.log2(np.maximum(st.n_admin[rows], 1))).astype(np.int64), 0, 12)
            cand = np.stack([self._kl_candidates(int(g), int(u))[s] for g, u, s in zip(kl_node, bucket, scen,
                                                                                       strict=True)])
        crit = self._criterion(theta, st.n_admin[rows], cand)
        taken = st.used[rows[:, None], np.maximum(cand, 0)]
        crit = np.where(taken | (cand < 0), -np.inf, crit)
        order = np.argsort(-crit, axis=1, kind="stable")
        cand = np.take_along_axis(cand, order, axis=1)
        crit = np.take_along_axis(crit, order, axis=1)
        chosen, value, ok = self._apply_exposure(st, rows, cand, crit, rng, complete=False, scen=scen)
        for i in np.flatnonzero(~ok):  # table exhausted for this row: rank the whole scenario pool
            r = rows[i]
            pool = self.pools[scen[i]]
            pool = pool[~st.used[r, pool]]
            pc = self._criterion(theta[i:i + 1], st.n_admin[r:r + 1], pool[None, :])
            o = np.argsort(-pc[0], kind="stable")
            ch, va, _ = self._apply_exposure(st, rows[i:i + 1], pool[o][None, :], pc[0][o][None, :], rng,
                                             complete=True, scen=scen[i:i + 1])
            chosen[i], value[i] = ch[0], va[0]
        return chosen, value

    def _select_stratified(self, st: CATState, rows: I64, rng: np.random.Generator) -> tuple[I64, F64]:
        """Stratum with the largest deficit against its Neyman share, then a uniformly random item of it."""
        assert self.strata is not None
        cfg = self.cfg
        n_adm = st.n_admin[rows]
        shares = np.broadcast_to(self.prior_shares, (rows.size, self.strata.n_strata)).copy()
        later = n_adm >= cfg.pilot * cfg.max_items
        if later.any():
            w = self.posterior_weights(st.logpost[rows[later]])
            shares[later] = self._neyman_shares(w @ self.strata.pq_mean)
        lag = shares * (n_adm[:, None] + 1) - st.strat_counts[rows] + 1e-9 * shares
        lag = np.where(st.strat_avail[rows] > 0, lag, -np.inf)
        stratum = np.argmax(lag, axis=1)
        cand = self.strata_members[stratum]  # R × width
        free = (cand >= 0) & ~st.used[rows[:, None], np.maximum(cand, 0)]
        key = np.where(free, rng.random(cand.shape), -1.0)
        pos = np.argmax(key, axis=1)
        chosen = cand[np.arange(rows.size), pos]
        if np.any(~free[np.arange(rows.size), pos]):  # cannot happen while strat_avail is kept in step
            raise RuntimeError("stratified selection found no free item in a stratum it counted as available")
        return chosen, shares[np.arange(rows.size), stratum]

    def _apply_exposure(self, st: CATState, rows: I64, cand: I64, crit: F64, rng: np.random.Generator, *,
                        complete: bool, scen: I64) -> tuple[I64, F64, NDArray[np.bool_]]:
        """Apply the exposure rule to ranked candidates; ``ok`` is False where the candidate list ran out."""
        valid = np.isfinite(crit)
        n_valid = valid.sum(axis=1)
        n_r = rows.size
        chosen = np.full(n_r, -1, dtype=np.int64)
        value = np.full(n_r, np.nan)
        ex = self.cfg.exposure
        if ex == "none":
            pos = np.zeros(n_r, dtype=np.int64)
            ok = n_valid > 0
        elif ex == "randomesque":
            m = np.minimum(self.cfg.randomesque_n, n_valid)
            pos = np.floor(rng.random(n_r) * np.maximum(m, 1)).astype(np.int64)
            # a short list is fine only if it holds the whole remaining pool
            whole_pool = complete | (n_valid == st.avail[rows, scen])
            ok = (n_valid >= self.cfg.randomesque_n) | (whole_pool & (n_valid > 0))
        else:
            u = rng.random(cand.shape)
            k = self.sh_k[np.maximum(cand, 0)]
            passed = valid & (u < k)
            has = passed.any(axis=1)
            pos = np.where(has, np.argmax(passed, axis=1), 0)
            if complete:  # end of the pool: administer the best remaining item (Sympson–Hetter's fallback)
                has = n_valid > 0
            ok = np.asarray(has, dtype=bool)
            # items ranked above the administered one were selected but not administered: block them
            before = valid & (np.arange(cand.shape[1])[None, :] < pos[:, None]) & ok[:, None]
            r_idx, c_idx = np.nonzero(before)
            blocked = cand[r_idx, c_idx]
            st.used[rows[r_idx], blocked] = True
            np.subtract.at(st.avail, (rows[r_idx], self.scen_idx[blocked]), 1)
            np.add.at(st.sh_selected, blocked, 1)
            np.add.at(st.sh_selected, cand[np.flatnonzero(ok), pos[ok]], 1)
        sel = np.flatnonzero(ok)
        chosen[sel] = cand[sel, pos[sel]]
        value[sel] = crit[sel, pos[sel]]
        return chosen, value, ok

    # ----------------------------------------------------------------------------------------- update
    def record(self, st: CATState, rows: I64, items: I64, responses: F64, values: F64 | None = None) -> None:
        """Add the answers (1/0, or scores in [0, 1]) of ``rows`` to ``items`` and update θ̂ and SE."""
        rows = np.asarray(rows, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        x = np.asarray(responses, dtype=np.float64)
        b = self.bank
        lp, lq = log_prob(self.grid[None, :], b.a[items, None], b.b[items, None], b.c[items, None])
        st.logpost[rows] += x[:, None] * lp + (1.0 - x[:, None]) * lq
        pos = st.n_admin[rows]
        st.items[rows, pos] = items
        st.responses[rows, pos] = x
        if values is not None:
            st.info[rows, pos] = values
        st.used[rows, items] = True
        st.counts[rows, self.scen_idx[items]] += 1
        st.avail[rows, self.scen_idx[items]] -= 1
        if self.strata is not None:
            lab = self.strata.labels[items]
            ok = lab >= 0
            st.strat_counts[rows[ok], lab[ok]] += 1
            st.strat_avail[rows[ok], lab[ok]] -= 1
        st.n_admin[rows] += 1
        th, sd = self.posterior_moments(st.logpost[rows])
        st.theta[rows], st.se[rows] = th, sd
        st.theta_after[rows, pos], st.se_after[rows, pos] = th, sd
        cfg = self.cfg
        done = st.n_admin[rows] >= cfg.max_items
        if cfg.se_target is not None:
            done |= (sd <= cfg.se_target) & (st.n_admin[rows] >= cfg.min_items)
        done |= st.avail[rows].sum(axis=1) == 0
        st.active[rows[done]] = False

    def posterior_moments(self, logpost: F64) -> tuple[F64, F64]:
        """Posterior mean and SD of θ from log-posteriors on the grid (R × G)."""
        w = np.exp(logpost - logpost.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        mean = w @ self.grid
        return mean, np.sqrt(np.maximum(w @ (self.grid * self.grid) - mean * mean, 0.0))

    def posterior_weights(self, logpost: F64) -> F64:
        """Normalised posterior weights on the grid (R × G)."""
        w = np.exp(logpost - logpost.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)


def _kl_index(theta: F64, delta: F64 | float, a: F64, b: F64, c: F64) -> F64:
    """Chang & Ying's KL index: ∫ KL(P(θ̂) ‖ P(θ)) dθ over θ̂ ± δ (8-point Gauss–Legendre)."""
    th = np.asarray(theta, dtype=np.float64)
    d = np.asarray(delta, dtype=np.float64)
    out = np.zeros(np.broadcast_shapes(th.shape, np.shape(a)))
    for x, w in zip(_GL_X, _GL_W, strict=True):
        out += w * kl_divergence(th, th + d * x, a, b, c)
    return out * d
