"""g5net/metrics/spread.py against published t tables, closed forms of the t
distribution, and Welch tests worked by hand."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from g5net.metrics import spread
from g5net.metrics.spread import Spread


@pytest.mark.parametrize("p, dof, table", [
    # Two-sided 95 % (p = 0.975), as every t table prints them.
    (0.975, 1, 12.7062047), (0.975, 2, 4.3026527), (0.975, 4, 2.7764451), (0.975, 7, 2.3646243),
    (0.975, 8, 2.3060041), (0.975, 30, 2.0422725), (0.975, 120, 1.9799304),
    # Other levels.
    (0.95, 10, 1.8124611), (0.995, 5, 4.0321430), (0.9995, 1, 636.6192488), (0.9, 3, 1.6377444),
])
def test_quantiles_match_the_published_table(p, dof, table):
    assert spread.t_quantile(p, dof) == pytest.approx(table, rel=1e-6)
    assert spread.t_quantile(1 - p, dof) == pytest.approx(-table, rel=1e-6)


@pytest.mark.parametrize("p", [0.5005, 0.6, 0.75, 0.9, 0.975, 0.99, 0.9999])
def test_quantiles_match_the_closed_forms_of_dof_1_2_and_4(p):
    # Cauchy; dof 2: (2p-1)/sqrt(2p(1-p)); dof 4: 2 sqrt(q-1), q = cos(acos(sqrt(a))/3)/sqrt(a), a = 4p(1-p).
    a = 4 * p * (1 - p)
    assert spread.t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-9)
    assert spread.t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-9)
    q = math.cos(math.acos(math.sqrt(a)) / 3) / math.sqrt(a)
    assert spread.t_quantile(p, 4) == pytest.approx(2 * math.sqrt(q - 1), rel=1e-9)


def test_the_cdf_matches_the_closed_form_of_dof_3_and_inverts_the_quantile_at_real_dof():
    for t in (-5.0, -0.3, 0.0, 0.7, 2.0, 40.0):
        u = t / math.sqrt(3)
        assert spread.t_cdf(t, 3) == pytest.approx(0.5 + (u / (1 + u * u) + math.atan(u)) / math.pi, rel=1e-12)
    for dof in (0.5, 1.5, 484 / 137, 24.99, 1000.5):  # Welch's dof are real numbers
        for p in (0.01, 0.3, 0.975):
            assert spread.t_cdf(spread.t_quantile(p, dof), dof) == pytest.approx(p, rel=1e-12)
    # Between the table's neighbours.
    assert spread.t_quantile(0.975, 4) < spread.t_quantile(0.975, 484 / 137) < spread.t_quantile(0.975, 3)


def test_large_dof_is_the_normal():
    z = NormalDist().inv_cdf(0.975)
    assert z == pytest.approx(1.959964, rel=1e-6)
    assert spread.t_quantile(0.975, math.inf) == z
    for dof in (1e6, 1e7, 1e9):
        # t - z is (z^3 + z) / (4 dof) and terms in 1/dof^2 and beyond
        assert spread.t_quantile(0.975, dof) == pytest.approx(z + (z ** 3 + z) / (4 * dof), rel=1e-11)
    # Where the expansion takes over from the continued fraction, both agree.
    for p in (0.6, 0.975, 0.9995):
        assert spread.t_quantile(p, 1e4 - 1e-6) == pytest.approx(spread.t_quantile(p, 1e4), rel=1e-11)


@pytest.mark.parametrize("p, dof, message", [
    (0.975, 0, "degrees of freedom must be > 0, got 0"), (0.975, -1.5, "got -1.5"),
    (0.975, math.nan, "got nan"), (0.0, 3, "0 < p < 1, got 0.0"), (1.0, 3, "got 1.0"),
])
def test_bad_arguments_are_named(p, dof, message):
    with pytest.raises(ValueError, match=message):
        spread.t_quantile(p, dof)


def test_a_dof_far_below_1_is_refused_rather_than_wrong():
    with pytest.raises(OverflowError, match="beyond the float range"):
        spread.t_quantile(0.975, 1e-3)


def test_summary_of_five_windows_by_hand():
    s = spread.summary([1.0, 2.0, 3.0, 4.0, 5.0])
    # mean 3, sd = sqrt(10 / 4), ci95 = t(0.975, 4) * sd / sqrt(5) = 2.7764451 * sqrt(0.5)
    assert (s.n, s.mean) == (5, 3.0)
    assert s.sd == pytest.approx(math.sqrt(2.5), rel=1e-12)
    assert s.ci95 == pytest.approx(1.9632432, rel=1e-7)
    assert s.to_dict() == {"n": 5, "sd": s.sd, "ci95": s.ci95}
    assert spread.summary([7.0, 7.0]) == Spread(2, 7.0, 0.0, 0.0)


@pytest.mark.parametrize("values, message", [
    ([], "at least 2 values .windows., got 0"), ([3.0], "got 1"), ([1.0, math.nan], "finite values, got nan"),
])
def test_summary_refuses_too_few_or_non_finite_values(values, message):
    with pytest.raises(ValueError, match=message):
        spread.summary(values)


def test_welch_of_two_small_samples_by_hand():
    a = spread.summary([10.0, 12.0, 14.0])  # mean 12, sd 2: variance of the mean 4/3
    b = spread.summary([8.0, 9.0, 10.0, 11.0, 12.0])  # mean 10, sd^2 2.5: 1/2
    d = spread.welch(a, b)
    # se^2 = 4/3 + 1/2 = 11/6; dof = (11/6)^2 / ((4/3)^2 / 2 + (1/2)^2 / 4) = 484/137 = 3.5328
    assert d.estimate == 2.0
    assert d.se == pytest.approx(math.sqrt(11 / 6), rel=1e-12)
    assert d.dof == pytest.approx(484 / 137, rel=1e-12)
    assert d.half_width == pytest.approx(spread.t_quantile(0.975, 484 / 137) * math.sqrt(11 / 6), rel=1e-12)
    assert 2.7764451 * 1.354 < d.half_width < 3.1824463 * 1.355  # between dof 4's and 3's t
    assert not d.significant and not d.exact
    # 21 ± vs 10: se^2 = 1/3 + 1/2 = 5/6, dof = (5/6)^2 / ((1/3)^2 / 2 + (1/2)^2 / 4) = 100/17
    far = spread.welch(spread.summary([20.0, 21.0, 22.0]), b)
    assert far.dof == pytest.approx(100 / 17, rel=1e-12)
    assert far.estimate == 11.0 and far.significant
    assert spread.welch(b, spread.summary([20.0, 21.0, 22.0])).estimate == -11.0


def test_welch_against_a_constant_is_the_one_sample_test():
    a = spread.summary([1.0, 2.0, 3.0, 4.0, 5.0])  # 3 ± 1.963
    for constant in (1.5, Spread(4, 1.5, 0.0, 0.0)):  # a number, or windows all alike
        d = spread.welch(a, constant)
        assert d.dof == 4 and d.se == pytest.approx(a.sd / math.sqrt(5))
        assert d.half_width == pytest.approx(a.ci95)  # the one-sample interval is a's own
        assert d.estimate == 1.5 and not d.significant  # 1.5 < 1.963
        assert spread.welch(constant, a).half_width == pytest.approx(a.ci95)
    assert spread.welch(a, 0.9).significant  # 2.1 > 1.963


def test_welch_of_exact_sides_is_exact():
    for a, b in ((3.0, 3.0), (Spread(5, 3.0, 0.0, 0.0), Spread(4, 3.0, 0.0, 0.0)), (Spread(5, 3.0, 0.0, 0.0), 3.0)):
        d = spread.welch(a, b)
        assert d.exact and (d.se, d.dof, d.half_width) == (0.0, math.inf, 0.0) and not d.significant
    assert spread.welch(3.0, 3.0 + 1e-12).significant  # exact: any difference is one


def test_welch_scales_the_mean_and_the_sd_of_the_right_side():
    a = spread.summary([9.9, 10.0, 10.1])
    b = spread.summary([0.9, 1.0, 1.1])
    assert spread.scaled(b, 9.5) == Spread(3, 9.5 * b.mean, 9.5 * b.sd, 9.5 * b.ci95)
    assert spread.scaled(b, -2) == Spread(3, -2 * b.mean, 2 * b.sd, 2 * b.ci95)
    assert spread.welch(a, b, 9.5) == spread.welch(a, spread.scaled(b, 9.5))
    # Scaled with its mean only, b would be 9.5 ± 0.25 and a 0.5 above it significantly;
    # its sd scaled too (0.95 per window), 0.5 is within the uncertainty.
    assert spread.welch(a, Spread(3, 9.5, b.sd, b.ci95)).significant
    assert not spread.welch(a, b, 9.5).significant
    assert spread.scaled(2.0, 3.0) == 6.0


def test_total_adds_means_and_sds_in_quadrature():
    user = spread.summary([56.0, 58.0, 60.0, 62.0, 64.0])  # sd^2 10
    system = spread.summary([44.0, 32.0, 48.0, 40.0, 36.0])  # sd^2 40
    t = spread.total([user, system, 1.0])
    assert (t.n, t.mean) == (5, 101.0)
    assert t.sd == pytest.approx(math.sqrt(50), rel=1e-12)
    assert t.ci95 == pytest.approx(2.7764451 * math.sqrt(50 / 5), rel=1e-7)
    assert spread.total([1.0, 2.5]) == 3.5
    with pytest.raises(ValueError, match=r"different numbers of windows: \[3, 5\]"):
        spread.total([user, spread.summary([1.0, 2.0, 3.0])])


def test_measured_reads_a_metric_with_or_without_its_spread():
    table = {"received_mbps": 951.2, "packets": 7, "cpu_util": [0.5, 0.25], "ok": True,
             "n_windows": 5, "spread": {"received_mbps": {"n": 5, "sd": 6.5, "ci95": 8.07}},
             "per_window": [{"received_mbps": 951.0}]}
    assert spread.measured(table, "received_mbps") == Spread(5, 951.2, 6.5, 8.07)
    assert spread.measured(table, "packets") == 7
    assert [spread.measured(table, k) for k in ("cpu_util", "ok", "spread", "per_window", "absent")] == [None] * 5
    assert spread.mean(Spread(5, 951.2, 6.5, 8.07)) == 951.2 and spread.mean(7) == 7
