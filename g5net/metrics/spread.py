"""The spread of a metric measured over windows, and whether two such values differ.

A run that measures its steady state as N windows of W simulated ms gives a
windowed metric as the mean over the windows; each window is a batch (the
method of batch means), so the windows' sample standard deviation `sd` gives
the standard error of that mean, sd / sqrt(N), and its 95 % confidence
interval, mean ± t(0.975, N-1) * sd / sqrt(N). metrics.json keeps, beside the
plain value (the mean), `spread[metric] = {"n": N, "sd": sd, "ci95": half-width}`
(`summary(values).to_dict()`); `measured()` reads a metric back as a Spread,
or as a plain number where it has no spread. A plain number is exact: a
constant, without uncertainty.

`welch()` asks whether a - scale * b is larger than its uncertainty: Welch's
t test, two-sided at the 95 % level, with the Welch-Satterthwaite degrees of
freedom. A side that is exact (a plain number, or sd 0) adds no variance,
which makes it the one-sample t test against that constant; where neither side
has variance the difference is exact and significant whenever it is not 0.

A run of repeats (metrics/repeats.py) has one Spread per metric too, its
repeats' means as the samples, compared by the same welch().

Standard library only. The Student t quantile is computed here: the t CDF
through the regularized incomplete beta function, evaluated by its continued
fraction (modified Lentz), as in Press et al., Numerical Recipes, 3rd ed.,
sections 6.4 and 6.14; then inverted by safeguarded Newton steps (above
10^4 degrees of freedom, the expansion about the normal quantile instead).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, TypeGuard

from ..runs import record_schema

# Confidence level of every interval and test here: two-sided 95 %.
LEVEL = 0.95
_UPPER = 0.5 + LEVEL / 2  # the quantile whose t gives the half-width: 0.975

# The keys of a metrics.json table that describe its windows and repeats,
# defined with the schema that checks them; a glob over metric names never
# matches them.
N_WINDOWS, SPREAD, PER_WINDOW = record_schema.N_WINDOWS, record_schema.SPREAD, record_schema.PER_WINDOW
N_REPEATS, WITHIN_RUN, PER_REPEAT = record_schema.N_REPEATS, record_schema.WITHIN_RUN, record_schema.PER_REPEAT
WINDOW_KEYS = frozenset({N_WINDOWS, SPREAD, PER_WINDOW, N_REPEATS, WITHIN_RUN, PER_REPEAT})

# The continued fraction converges in O(sqrt(max(a, b))) terms (Numerical
# Recipes 6.4), a = dof / 2: a few hundred below _SERIES_DOF.
_MAX_TERMS = 10_000
# From here on the expansion of t about the normal quantile (Abramowitz and
# Stegun 26.7.5) is exact to float precision, while the continued fraction
# loses digits (lgamma of large arguments cancels): 1e-7 relative at dof 1e9.
_SERIES_DOF = 1e4
_EPS = 1e-15
_TINY = 1e-300  # keeps Lentz's denominators off zero


@dataclass(frozen=True)
class Spread:
    """A metric's mean over `n` windows, the windows' sample standard deviation
    `sd`, and `ci95`, the half-width of the 95 % confidence interval of the mean."""
    n: int
    mean: float
    sd: float
    ci95: float

    def to_dict(self) -> dict[str, Any]:
        """The metric's entry in metrics.json's `spread` (the mean is the metric's plain value)."""
        return {"n": self.n, "sd": self.sd, "ci95": self.ci95}


# A metric's value as checks compare it: a plain number is exact.
Value = Spread | float


def is_number(v: Any) -> TypeGuard[float]:
    """Whether a metrics.json value is a number (a bool never is)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def element_means(values: Sequence[Any]) -> list[float] | None:
    """Lists of numbers of one length (a metric per CPU, one list per window
    or repeat), averaged element by element; None for anything else."""
    if not values or not all(isinstance(v, list) and len(v) == len(values[0])
                             and all(map(is_number, v)) for v in values):
        return None
    return [math.fsum(col) / len(col) for col in zip(*values)]


def mean(v: Value) -> float:
    return v.mean if isinstance(v, Spread) else v


def scaled(v: Value, k: float) -> Value:
    """k * v: the mean times k, the sd and interval times |k|."""
    if isinstance(v, Spread):
        return Spread(v.n, k * v.mean, abs(k) * v.sd, abs(k) * v.ci95)
    return k * v


def _half_width(sd: float, n: int) -> float:
    return t_quantile(_UPPER, n - 1) * sd / math.sqrt(n)


def summary(values: Sequence[float]) -> Spread:
    """The mean of `values` (one per window) with its sd and 95 % interval
    (Student t, n - 1 degrees of freedom); ValueError for fewer than 2 values
    or one that is not finite."""
    n = len(values)
    if n < 2:
        raise ValueError(f"a spread needs at least 2 values (windows), got {n}")
    bad = [v for v in values if not math.isfinite(v)]
    if bad:
        raise ValueError(f"a spread needs finite values, got {bad[0]!r}")
    m = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1))
    return Spread(n, m, sd, _half_width(sd, n))


def total(parts: Sequence[Value]) -> Value:
    """The sum of `parts`: means added, sd added in quadrature (sqrt of the sum
    of the variances). That assumes the parts vary independently from window to
    window; parts that rise and fall together are more uncertain in sum than
    this says. Spread parts must share one n (one run's windows); the sum of
    exact parts is exact."""
    spreads = [p for p in parts if isinstance(p, Spread)]
    m = math.fsum(mean(p) for p in parts)
    if not spreads:
        return m
    ns = sorted({s.n for s in spreads})
    if len(ns) > 1:
        raise ValueError(f"cannot add values over different numbers of windows: {ns}")
    sd = math.sqrt(math.fsum(s.sd ** 2 for s in spreads))
    return Spread(ns[0], m, sd, _half_width(sd, ns[0]))


def measured(metrics: Mapping[str, Any], name: str) -> Value | None:
    """Metric `name` of one metrics.json table (a host's workload or an
    aggregate): a Spread where windows measured it, else its plain number;
    None where it is absent or not a number (a list per CPU, a table). The
    table's shape is checked where it is read (g5net/runs/record_schema.py)."""
    v = metrics.get(name)
    if not is_number(v):
        return None
    s = metrics.get(SPREAD, {}).get(name)
    return v if s is None else Spread(s["n"], v, s["sd"], s["ci95"])


@dataclass(frozen=True)
class Difference:
    """a - scale * b as welch() measured it."""
    estimate: float  # the difference of the means
    se: float  # its standard error; 0 where neither side varies
    dof: float  # Welch-Satterthwaite degrees of freedom; inf where se is 0
    half_width: float  # of its 95 % confidence interval: estimate ± half_width

    @property
    def exact(self) -> bool:
        """Neither side varies: the difference is known without uncertainty."""
        return self.se == 0

    @property
    def significant(self) -> bool:
        """The interval excludes 0 (two-sided p < 0.05); where exact, the difference is not 0."""
        return abs(self.estimate) > self.half_width


def welch(a: Value, b: Value, scale: float = 1.0) -> Difference:
    """Welch's t test of a against scale * b, two-sided at the 95 % level.
    An exact side (a plain number or sd 0) is a constant: the test is then the
    one-sample t test of the other side against it."""
    b = scaled(b, scale)
    # (variance of the mean, windows) of each side that varies
    terms = [(s.sd ** 2 / s.n, s.n) for s in (a, b) if isinstance(s, Spread) and s.sd > 0]
    estimate = mean(a) - mean(b)
    var = math.fsum(v for v, _ in terms)
    if var == 0:
        return Difference(estimate, 0.0, math.inf, 0.0)
    dof = var ** 2 / math.fsum(v ** 2 / (n - 1) for v, n in terms)
    se = math.sqrt(var)
    return Difference(estimate, se, dof, t_quantile(_UPPER, dof) * se)


# ------------------------------------------------------------ Student's t


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Numerical
    Recipes 6.4, betacf), by the modified Lentz method."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS + 1):
        # Even then odd step of the fraction.
        for coeff in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                      -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + coeff * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + coeff / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    # The fraction converges fast below this point; above it, by symmetry.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _upper_tail(t: float, dof: float) -> float:
    """P(T > t) for t >= 0: I_x(dof/2, 1/2) / 2 with x = dof / (dof + t^2)."""
    return 0.5 * _incomplete_beta(dof / 2, 0.5, dof / (dof + t * t))


def _density(t: float, dof: float) -> float:
    return math.exp(math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)
                    - (dof + 1) / 2 * math.log1p(t * t / dof))


def _check_dof(dof: float) -> None:
    if not dof > 0:
        raise ValueError(f"degrees of freedom must be > 0, got {dof!r}")


def _quantile_series(p: float, dof: float) -> float:
    """t as the normal quantile z plus its first four corrections in 1/dof
    (Abramowitz and Stegun 26.7.5); exact at dof inf."""
    z = NormalDist().inv_cdf(p)
    g = ((z ** 3 + z) / 4,
         (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
         (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
         (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160)
    return z + math.fsum(gk / dof ** k for k, gk in enumerate(g, 1))


def t_cdf(t: float, dof: float) -> float:
    """P(T <= t) for Student's t with real `dof` > 0 (inf: the standard normal);
    to about 1e-12 relative up to dof 1e5, 1e-7 at dof 1e9."""
    _check_dof(dof)
    if math.isinf(dof):
        return NormalDist().cdf(t)
    tail = _upper_tail(abs(t), dof)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, dof: float) -> float:
    """The t with P(T <= t) = p, for Student's t with real `dof` > 0 (inf: the
    standard normal), 0 < p < 1; to about 1e-11 relative."""
    _check_dof(dof)
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p!r}")
    if dof >= _SERIES_DOF:
        return _quantile_series(p, dof)
    if p == 0.5:
        return 0.0
    # Solve on the upper tail, q = P(T > t) for t > 0, which keeps the small
    # probabilities of p near 1 exact; the t distribution is symmetric.
    q = min(p, 1.0 - p)
    lo, hi = 0.0, 1.0
    while _upper_tail(hi, dof) > q:
        lo, hi = hi, 2.0 * hi
        if hi > 1e150:  # dof far below 1: t * t would overflow
            raise OverflowError(f"the t quantile for p={p!r}, dof={dof!r} is beyond the float range")
    t = hi
    for _ in range(200):  # Newton takes some 10 steps, bisection at worst some 50
        f = _upper_tail(t, dof) - q
        if f > 0:
            lo = t
        else:
            hi = t
        # Newton on the tail (its derivative is -density), bisection where
        # a step would leave the bracket.
        density = _density(t, dof)
        step = t + f / density if density > 0 else hi
        new = step if lo < step < hi else (lo + hi) / 2
        done = abs(new - t) <= 1e-14 * new or hi - lo <= 1e-14 * hi
        t = new
        if done:
            break
    return t if p > 0.5 else -t
