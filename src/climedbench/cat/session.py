"""A live adaptive test for one examinee (e.g. one LLM), driven item by item by the caller.

    session = CATSession(bank, CATConfig(max_items=243), seed=0)
    while not session.done:
        item = session.next_item()          # item id from the bank
        score = ask_the_model(item)         # 1/0 (or a score in [0, 1])
        session.record(item, score)
    result = session.result()               # θ, SE, predicted scores with intervals, the log
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from climedbench.cat.engine import CATConfig, CATEngine
from climedbench.cat.estimate import ScorePrediction, intervals, predict_scores
from climedbench.cat.multipliers import multipliers_for, normal_multiplier
from climedbench.cat.predict import ScoreDistribution, compare_distributions
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.model import information


@dataclass
class CATResult:
    """Outcome of one adaptive test: ability, predicted full-benchmark scores with intervals, the step log."""

    theta: float
    se: float
    n_items: int
    items: list[str]
    responses: list[float]
    overall: dict[str, float]
    scenarios: dict[str, dict[str, float]]
    level: float
    log: list[dict[str, Any]] = field(default_factory=list)
    distribution: ScoreDistribution | None = None
    interval: str = ""
    estimator: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the score distribution is included so results can be compared later)."""
        return {
            "theta": self.theta, "se": self.se, "n_items": self.n_items, "items": self.items,
            "responses": self.responses, "overall": self.overall, "scenarios": self.scenarios,
            "level": self.level, "log": self.log,
            "distribution": None if self.distribution is None else self.distribution.to_dict(),
            "interval": self.interval, "estimator": self.estimator,
        }

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> CATResult:
        """Inverse of :meth:`to_dict`."""
        dist = obj.get("distribution")
        return cls(theta=float(obj["theta"]), se=float(obj["se"]), n_items=int(obj["n_items"]),
                   items=list(obj["items"]), responses=[float(x) for x in obj["responses"]],
                   overall=dict(obj["overall"]), scenarios=dict(obj["scenarios"]), level=float(obj["level"]),
                   log=list(obj.get("log", [])),
                   distribution=None if dist is None else ScoreDistribution.from_dict(dist),
                   interval=str(obj.get("interval", "")), estimator=str(obj.get("estimator", "")))


class CATSession:
    """One examinee's adaptive test: ``next_item()`` → ask → ``record(item, score)`` until ``done``."""

    def __init__(self, bank: ItemBank, config: CATConfig | None = None, *, seed: int | None = 0,
                 engine: CATEngine | None = None, transforms: dict[str, tuple[float, float]] | None = None) -> None:
        self.engine = engine if engine is not None else CATEngine(bank, config)
        self.bank = self.engine.bank
        self.cfg = self.engine.cfg
        self.rng = np.random.default_rng(seed)
        self.state = self.engine.new_state(1)
        self._pending: tuple[int, float] | None = None
        self._transforms = transforms
        self.log: list[dict[str, Any]] = []
        self._row = np.zeros(1, dtype=np.int64)

    @property
    def done(self) -> bool:
        """True once the stopping rule (max items, SE target, or exhausted bank) has been met."""
        return not bool(self.state.active[0])

    @property
    def theta(self) -> float:
        """Current EAP ability estimate."""
        return float(self.state.theta[0])

    @property
    def se(self) -> float:
        """Current posterior SD of θ."""
        return float(self.state.se[0])

    @property
    def n_items(self) -> int:
        """Number of items answered so far."""
        return int(self.state.n_admin[0])

    def next_item(self) -> str:
        """Id of the next item to administer (the same id until it is recorded)."""
        if self.done:
            raise ConfigError("the adaptive test has finished: call result()")
        if self._pending is None:
            items, values = self.engine.select(self.state, self._row, self.rng)
            self._pending = (int(items[0]), float(values[0]))
        return self.bank.ids[self._pending[0]]

    def record(self, item: str, score: float | bool) -> None:
        """Record the score on ``item``: 1/0 or True/False (a fraction in [0, 1] for graded metrics)."""
        if self.done:
            raise ConfigError("the adaptive test has finished: no more answers can be recorded")
        x = float(score)
        if not 0.0 <= x <= 1.0:
            raise ConfigError(f"score for item {item!r} must be in [0, 1], got {score!r}")
        try:
            j = int(self.bank.index_of([item])[0])
        except KeyError as exc:
            raise ConfigError(str(exc.args[0])) from None
        if self.state.used[0, j]:
            raise ConfigError(f"item {item!r} was already administered (or passed over) in this test")
        theta_before, se_before = self.theta, self.se
        criterion = self._pending[1] if self._pending is not None and self._pending[0] == j else float("nan")
        info = float(information(theta_before, self.bank.a[j], self.bank.b[j], self.bank.c[j]))
        self.engine.record(self.state, self._row, np.array([j]), np.array([x]), np.array([info]))
        self._pending = None
        scen = None if self.bank.scenarios is None else self.bank.scenarios[j]
        self.log.append({
            "step": self.n_items, "item": item, "scenario": scen, "theta_before": theta_before,
            "se_before": se_before, "information": info,
            **({"criterion": criterion} if self.cfg.selection != "fisher" else {}),
            "response": x, "theta": self.theta, "se": self.se,
        })

    def prediction(self) -> ScorePrediction:
        """Predicted full-benchmark scores from the answers so far (observed + predicted, see cat.estimate)."""
        return predict_scores(self.engine, self.state, transforms=self._transforms)

    def result(self) -> CATResult:
        """θ, SE, predicted overall and per-scenario full-benchmark scores with intervals, and the log.

        Intervals are score ± q·SE with q from the bank's interval calibration for this design and test
        length (``climedbench cat calibrate``), else the normal quantile (``interval`` says which).
        """
        pred = self.prediction()
        q_o, q_s, note = multipliers_for(self.engine.source_bank, self.cfg, self.cfg.max_items)
        ol, ou, sl, su = intervals(pred, q_o, q_s)
        overall = {"score": float(pred.overall[0]), "lower": float(ol[0]), "upper": float(ou[0]),
                   "sd": float(pred.overall_se[0] * q_o / normal_multiplier(self.cfg.level))}
        scen = {name: {"score": float(pred.scenario[0, s]), "lower": float(sl[0, s]), "upper": float(su[0, s]),
                       "sd": float(pred.scenario_se[0, s] * q_s / normal_multiplier(self.cfg.level))}
                for s, name in enumerate(pred.scenarios)}
        n = self.n_items
        items = [self.bank.ids[j] for j in self.state.items[0, :n]]
        # a normal predictive distribution whose central interval is the reported one (for `compare`)
        dist = ScoreDistribution(np.ones(1), np.array([overall["score"]]), np.array([overall["sd"] ** 2]))
        return CATResult(theta=self.theta, se=self.se, n_items=n, items=items,
                         responses=self.state.responses[0, :n].tolist(), overall=overall, scenarios=scen,
                         level=self.cfg.level, log=list(self.log), distribution=dist, interval=note,
                         estimator=pred.method)


def compare(result_a: CATResult, result_b: CATResult, level: float = 0.95) -> dict[str, Any]:
    """Can the short tests separate two models? Difference in predicted overall score, interval and verdict.

    Uses the full predictive distributions (θ posterior + finite-benchmark variation) of both results, treated
    as independent; "separated" means the ``level`` interval of A − B excludes 0.
    """
    if result_a.distribution is None or result_b.distribution is None:
        raise ConfigError("both results need their score distribution (produced by CATSession.result())")
    return compare_distributions(result_a.distribution, result_b.distribution, level=level)
