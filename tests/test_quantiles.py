"""The standard-library quantiles (climedbench.metrics.quantiles) against scipy.special, the reference
implementation they replace on the run's path (scipy stays a dependency; here it is the yardstick)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from scipy.special import betaincinv, ndtri, stdtrit

from climedbench.metrics.quantiles import beta_cdf, beta_ppf, normal_ppf, t_ppf

PROBS = [0.0005, 0.025, 0.05, 0.3, 0.5, 0.7, 0.95, 0.975, 0.9995]
# Jeffreys' Beta(x + 1/2, n - x + 1/2) at the sample sizes runs see, clusters' fractional effective counts included
SIZES = [1, 2, 3, 10, 33, 100, 1800, 34_000, 0.7, 2.5, 417.3]
SHARES = [0.0, 0.001, 0.2, 0.5, 0.9, 1.0]


@pytest.mark.parametrize("n", SIZES)
def test_beta_quantile_matches_scipy(n: float) -> None:
    for share in SHARES:
        a, b = share * n + 0.5, n - share * n + 0.5
        for p in PROBS:
            want = float(betaincinv(a, b, p))
            assert beta_ppf(p, a, b) == pytest.approx(want, rel=1e-10, abs=1e-300), (a, b, p)


@pytest.mark.parametrize("df", [0.5, 1, 1.5, 2, 3, 4.7, 10, 30, 100, 1000, 100_000])
def test_t_quantile_matches_scipy(df: float) -> None:
    for p in [1e-6, *PROBS, 0.49, 0.51]:
        assert t_ppf(p, df) == pytest.approx(float(stdtrit(df, p)), rel=1e-10), (df, p)


def test_normal_quantile_and_edges() -> None:
    for p in [1e-9, 0.025, 0.5, 0.975]:
        assert normal_ppf(p) == pytest.approx(float(ndtri(p)), rel=1e-12)
    assert beta_ppf(0.0, 2, 3) == 0.0 and beta_ppf(1.0, 2, 3) == 1.0
    assert beta_cdf(beta_ppf(0.3, 4.5, 7.5), 4.5, 7.5) == pytest.approx(0.3, rel=1e-12)
    with pytest.raises(ValueError, match="beta quantile"):
        beta_ppf(0.5, 0.0, 1.0)


def test_a_run_tail_does_not_import_scipy() -> None:
    """Jeffreys and graded intervals (every run's tail) no longer pull in scipy."""
    code = ("import sys, numpy as np\n"
            "from climedbench.metrics import intervals\n"
            "intervals.jeffreys(17, 40); intervals.graded(np.array([0.1, 0.5, 0.9]), 0.0, 1.0)\n"
            "print(any(m == 'scipy' or m.startswith('scipy.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
