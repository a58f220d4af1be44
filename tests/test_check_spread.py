"""`g5net check` on runs measured over windows (metrics.json's `spread`):
hold, fail or within noise for each operator, scaled right sides, a side
without spread, sides without variance, sums and aggregates.

Two runs differing in host.nic.attach, each metric over 5 windows of
mean + k * (-2, -1, 0, 1, 2): sd^2 = 2.5 k^2. With k = 4 (fast, close, slow):
sd^2 40, each mean's variance 8 and its 95 % half-width t(0.975, 4) * sqrt(8)
= 7.853; two such sides differ by more than noise when their difference
exceeds t(0.975, 8) * 4 = 9.224 (se^2 = 8 + 8, Welch dof 16^2 / (2 * 8^2 / 4) = 8).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_metrics_fixtures import make_run, spec

from g5net import cli
from g5net.analysis import check
from g5net.analysis.check import Result
from g5net.metrics import spread
from g5net.metrics.spread import Spread
from g5net.report import runs as runsmod

HOLDS, FAILS, NOISE = Result.HOLDS, Result.FAILS, Result.WITHIN_NOISE
STEPS = (-2, -1, 0, 1, 2)


def windows(mean: float, k: float) -> list[float]:
    return [mean + k * d for d in STEPS]


def windowed(plain: dict[str, float] | None = None, **per_window: list[float]) -> dict:
    """One metrics.json table of a windowed run, in the format runs write:
    each metric's mean, n_windows, its spread and the window values; `plain`:
    metrics without windows."""
    n = len(STEPS)
    return {**(plain or {}), **{k: spread.summary(v).mean for k, v in per_window.items()},
            "n_windows": n, "spread": {k: spread.summary(v).to_dict() for k, v in per_window.items()},
            "per_window": [{k: v[i] for k, v in per_window.items()} for i in range(n)]}


# integrated (the left of every relation) against pcie, per metric.
METRICS = {
    "integrated": {"hosts": {"server": {
        "stream": windowed({"plain": 5.0}, fast=windows(951.2, 4), close=windows(951.2, 4),
                           slow=windows(900.0, 4), tiny=windows(10.0, 0.1), onesided=windows(951.2, 4),
                           flat=[5.0] * 5),
        # sd^2 10 and 40: in sum 100 with sd sqrt(50), half-width t(0.975, 4) * sqrt(10) = 8.780
        "cpu": windowed(time_user_pct=[56.0, 58.0, 60.0, 62.0, 64.0],
                        time_sys_pct=[44.0, 32.0, 48.0, 40.0, 36.0])}},
        "aggregate": {"stream": windowed({"clients": 1}, received_mbps_sum=windows(1902.4, 8))}},
    "pcie": {"hosts": {"server": {
        "stream": windowed({"plain": 5.0, "onesided": 948.0}, fast=windows(900.0, 4),
                           close=windows(948.0, 4), slow=windows(951.2, 4), tiny=windows(1.0, 0.1),
                           flat=[5.0] * 5)}},
        "aggregate": {"stream": windowed({"clients": 1}, received_mbps_sum=windows(1896.0, 8))}},
}


def windowed_runs(store: Path) -> Path:
    """The two runs, committed by the product's writers, their metrics.json then windowed."""
    for attach, metrics in METRICS.items():
        rd = make_run(store, spec(attach=attach))
        rd.write_json(rd.metrics_json, metrics)
    return store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return windowed_runs(tmp_path_factory.mktemp("windowed") / "runs")


@pytest.fixture(scope="module")
def runs(store):
    return runsmod.load(store)


def _relation(runs, expr: str) -> list[Result]:
    rel = check.parse(f'[[relation]]\nby = "host.nic.attach"\nexpect = ["{expr}"]\n').relations[0]
    return [c.result for c in check.compare(rel, runs)]


def _bound(runs, expr: str) -> dict[str, list[Result]]:
    b = check.parse(f'bounds = ["{expr}"]\n').bounds[0]
    return {r.params["host.nic.attach"]: [b.judge(v) for _, _, v in b.ref.values(r)] for r in runs}


@pytest.mark.parametrize("op, fast, close, slow", [
    # fast: 951.2 vs 900.0 (51.2 > 9.224); close: 951.2 vs 948.0 (3.2 < 9.224); slow: 900.0 vs 951.2
    ("<", FAILS, NOISE, HOLDS),
    ("<=", FAILS, NOISE, HOLDS),
    (">", HOLDS, NOISE, FAILS),
    (">=", HOLDS, NOISE, FAILS),
    ("==", FAILS, HOLDS, FAILS),
    ("!=", HOLDS, FAILS, HOLDS),
])
def test_each_operator_holds_fails_or_is_within_noise(runs, op, fast, close, slow):
    for metric, want in (("fast", fast), ("close", close), ("slow", slow)):
        assert _relation(runs, f"integrated.server.stream.{metric} {op} pcie.server.stream.{metric}") == [want], \
            (metric, op)


def test_the_hand_worked_figures(runs):
    stream = {r.params["host.nic.attach"]: r.metrics_of("server")["stream"] for r in runs}
    a, b = spread.measured(stream["integrated"], "close"), spread.measured(stream["pcie"], "close")
    assert (a.n, a.mean, a.sd ** 2) == pytest.approx((5, 951.2, 40.0))
    assert a.ci95 == pytest.approx(2.7764451 * 8 ** 0.5, rel=1e-7)
    d = spread.welch(a, b)
    assert (d.estimate, d.se, d.dof) == pytest.approx((3.2, 4.0, 8.0))
    assert d.half_width == pytest.approx(2.3060041 * 4, rel=1e-7)


def test_a_factor_scales_the_mean_and_the_sd_of_the_right_side(runs):
    # tiny: 10.0 vs 1.0, both sd 0.158. Times 9.5 the right is 9.5 with sd 1.50: se^2 = 0.005 +
    # 0.45125, Welch dof 4.09, half-width 1.87 > 0.5 (with the sd unscaled it would be 0.23 < 0.5).
    assert _relation(runs, "integrated.server.stream.tiny > 9.5 * pcie.server.stream.tiny") == [NOISE]
    assert _relation(runs, "integrated.server.stream.tiny == 9.5 * pcie.server.stream.tiny") == [HOLDS]
    # Times 8: 8.0 with sd 1.26, half-width 1.58 < 2.
    assert _relation(runs, "integrated.server.stream.tiny > 8 * pcie.server.stream.tiny") == [HOLDS]
    assert _relation(runs, "integrated.server.stream.tiny < 8 * pcie.server.stream.tiny") == [FAILS]
    # fast: 951.2 against 945.0 with sd 6.64 (se 4.10, half-width 9.46): noise; against 918.0: holds.
    assert _relation(runs, "integrated.server.stream.fast > 1.05 * pcie.server.stream.fast") == [NOISE]
    assert _relation(runs, "integrated.server.stream.fast > 1.02 * pcie.server.stream.fast") == [HOLDS]


def test_a_side_without_spread_is_a_constant(runs):
    # 951.2 ± 7.853 (one-sample, dof 4) against pcie's plain 948.0: 3.2 is within noise.
    assert _relation(runs, "integrated.server.stream.onesided > pcie.server.stream.onesided") == [NOISE]
    assert _relation(runs, "integrated.server.stream.onesided > 0.99 * pcie.server.stream.onesided") == [HOLDS]
    assert _relation(runs, "integrated.server.stream.onesided == pcie.server.stream.onesided") == [HOLDS]


@pytest.mark.parametrize("op, want", [("<", FAILS), ("<=", HOLDS), (">=", HOLDS), ("==", HOLDS), ("!=", FAILS)])
def test_sides_without_variance_compare_exactly(runs, op, want):
    """5.0 against 5.0: as plain numbers (no spread) and as windows all alike
    (sd 0 on both sides), the comparison is exact, never within noise."""
    for metric in ("plain", "flat"):
        assert _relation(runs, f"integrated.server.stream.{metric} {op} pcie.server.stream.{metric}") == [want]


def test_bounds_are_one_sample_tests_against_the_number(runs):
    # slow: 900.0 ± 7.853 in integrated, 951.2 ± 7.853 in pcie.
    assert _bound(runs, "server.stream.slow > 945") == {"integrated": [FAILS], "pcie": [NOISE]}  # 6.2
    assert _bound(runs, "server.stream.slow < 960") == {"integrated": [HOLDS], "pcie": [HOLDS]}  # 8.8
    assert _bound(runs, "960 > server.stream.slow") == {"integrated": [HOLDS], "pcie": [HOLDS]}
    assert _bound(runs, "945 < server.stream.slow") == {"integrated": [FAILS], "pcie": [NOISE]}
    assert _bound(runs, "server.stream.slow == 949") == {"integrated": [FAILS], "pcie": [HOLDS]}
    assert _bound(runs, "server.stream.slow != 949") == {"integrated": [HOLDS], "pcie": [FAILS]}


def test_a_sum_adds_sds_in_quadrature_and_never_counts_the_window_keys(runs):
    # 100 ± 8.780: 10 above 90 holds; with sds added (9.49, half-width 11.78) it would not.
    assert _bound(runs, "sum(server.cpu.time_*_pct) > 90")["integrated"] == [HOLDS]
    assert _bound(runs, "sum(server.cpu.time_*_pct) > 95")["integrated"] == [NOISE]
    assert _bound(runs, "sum(server.cpu.time_*_pct) == 100")["integrated"] == [HOLDS]
    ref = check.parse('bounds = ["sum(server.cpu.*) == 100"]\n').bounds[0].ref
    [(_, _, total)] = [v for r in runs for v in ref.values(r)]
    assert isinstance(total, Spread) and (total.n, total.mean, total.sd ** 2) == pytest.approx((5, 100.0, 50.0))
    # n_windows is addressed by name only; spread and per_window are never metrics.
    assert _bound(runs, "server.cpu.n_windows == 5")["integrated"] == [HOLDS]
    for glob in ("sum(server.cpu.n_*)", "sum(server.cpu.*window*)", "sum(server.cpu.spread)"):
        assert _bound(runs, f"{glob} > 0") == {"integrated": [], "pcie": []}, glob


def test_an_aggregate_with_spread(runs):
    # 1902.4 vs 1896.0, sd^2 160 each: se 8, dof 8, half-width 18.45 > 6.4.
    assert _relation(runs, "integrated.aggregate.stream.received_mbps_sum > "
                           "pcie.aggregate.stream.received_mbps_sum") == [NOISE]
    assert _relation(runs, "integrated.aggregate.stream.clients == pcie.aggregate.stream.clients") == [HOLDS]


@pytest.mark.parametrize("value, text", [
    (Spread(5, 951.2, 6.5, 8.07), "951.2 ± 8.1"), (Spread(5, 95123.4, 1000.0, 1234.0), "95123 ± 1234"),
    (Spread(5, 0.51234, 0.01, 0.0123), "0.512 ± 0.012"), (Spread(5, 5.0, 0.0, 0.0), "5"), (10.752, "10.752"),
    (Spread(6, 1.000000000000006, 1.4e-14, 1.5e-14), "1"),
])
def test_a_value_with_spread_is_written_to_its_uncertainty(value, text):
    assert check.fmt(value) == text


def _expect(tmp_path: Path, *exprs: str) -> Path:
    f = tmp_path / "expect.toml"
    f.write_text('[[relation]]\nby = "host.nic.attach"\nexpect = [\n'
                 + "".join(f'  "{e}",\n' for e in exprs) + "]\n")
    return f


def test_within_noise_is_reported_with_its_figures_and_is_not_a_failure(store, runs, tmp_path, capsys):
    name = {r.params["host.nic.attach"]: r.name for r in runs}
    f = _expect(tmp_path, "integrated.server.stream.close > pcie.server.stream.close",
                "integrated.server.stream.fast > pcie.server.stream.fast")
    assert cli.main(["check", str(store), "--expect", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"NOISE relation[0].expect[0] (line 4) 'integrated.server.stream.close > "
                      f"pcie.server.stream.close': server.stream is 951.2 ± 7.9 in {name['integrated']} "
                      f"vs 948.0 ± 7.9 in {name['pcie']} (95% CI): within noise")
    assert out[1].startswith("0 failed, 1 within noise, 4 compared (2 run(s), ")  # 2 runs done + 2 pairs


def test_a_failure_with_spread_gives_its_figures_and_json_lists_within_noise(store, runs, tmp_path, capsys):
    name = {r.params["host.nic.attach"]: r.name for r in runs}
    f = _expect(tmp_path, "integrated.server.stream.slow > pcie.server.stream.slow",
                "integrated.server.stream.close < pcie.server.stream.close")
    assert cli.main(["check", str(store), "--expect", str(f)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"FAIL relation[0].expect[0] (line 4) 'integrated.server.stream.slow > "
                      f"pcie.server.stream.slow': server.stream is 900.0 ± 7.9 in {name['integrated']} "
                      f"vs 951.2 ± 7.9 in {name['pcie']} (95% CI)")
    assert out[1].startswith("NOISE relation[0].expect[1] (line 5)") and out[1].endswith("within noise")
    assert out[2].startswith("1 failed, 1 within noise, 4 compared")
    assert cli.main(["check", str(store), "--expect", str(f), "--json"]) == 1
    made = json.loads(capsys.readouterr().out)
    assert (len(made["failures"]), len(made["within_noise"]), made["compared"]) == (1, 1, 4)


def test_a_windowed_run_is_read_by_every_reader(store, tmp_path):
    """collect, report and g5net.load take the window keys in their stride."""
    import g5net
    assert cli.main(["collect", str(store), "-o", str(tmp_path / "t.csv")]) == 0
    assert cli.main(["report", str(store), "--out", str(tmp_path / "report")]) == 0
    assert set(g5net.load(store)["run"]) == {r.name for r in runsmod.load(store)}
