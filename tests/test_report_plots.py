"""`g5net report --x KEY --y METRIC [--hue KEY]` on runs committed by the
product's writers (test_metrics_fixtures: real /proc counters of loopback
traffic, the iperf report at a chosen rate): lines for a numeric key, bars for
a categorical one, repeats averaged with their spread, zip partners named.
The same on a real QEMU sweep: test_report_plots_qemu.py; the figures'
properties on the committed studies and fixtures: test_report_figures.py."""

import re

import pytest

from g5net import cli
from g5net.errors import ReportError
from g5net.report import runs as runsmod
from g5net.report.figure_files import plt
from g5net.report.xy_plot import XY, figure, points, resolved
from g5net.model.specs import from_dict
from test_metrics_fixtures import make_run, make_sweep, spec_data

# (mtu, attach) -> client throughput of the two repeats, Mbit/s
RATES = {(1500, "pcie"): (900.0, 700.0), (1500, "integrated"): (950.0, 950.0),
         (9000, "pcie"): (1200.0, 1000.0), (9000, "integrated"): (1300.0, 1100.0)}


@pytest.fixture(scope="module")
def nic_runs(tmp_path_factory):
    """A folder of runs over MTU x NIC placement, each point run twice (two
    experiment names: identical parameters, two runs)."""
    store = tmp_path_factory.mktemp("results")
    for (mtu, attach), rates in RATES.items():
        for name, mbps in zip(("nic", "nic-again"), rates):
            data = spec_data(attach=attach, profile=False)
            data["experiment"]["name"] = name
            data["host"]["nic"]["mtu"] = mtu
            make_run(store, from_dict(data), mbps)
    return store


def svg_text(path):
    """The text of an SVG written with svg.fonttype none: its <text> elements
    (a size's no-break space as a space)."""
    return [t.replace("\xa0", " ").replace("&#160;", " ")
            for t in re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text())]


def report(tmp_path, capsys, *argv):
    status = cli.main(["report", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def test_repeats_are_averaged_and_placements_stay_apart(nic_runs):
    found = runsmod.load(nic_runs)
    xy = resolved(found, XY("mtu", "throughput_mbps", "attach", hosts=("client",)))
    assert (xy.x, xy.hue) == ("host.nic.mtu", "host.nic.attach")
    got = {(p.hue, p.x): p for p in points(found, xy)}
    assert sorted(got) == [("integrated", 1500), ("integrated", 9000), ("pcie", 1500), ("pcie", 9000)]
    for (mtu, attach), rates in RATES.items():
        p = got[(attach, mtu)]
        assert sorted(p.values) == pytest.approx(sorted(rates), rel=1e-6)
        assert p.mean == pytest.approx(sum(rates) / 2, rel=1e-6)
        assert p.spread == pytest.approx((abs(rates[0] - rates[1]) / 2,) * 2, rel=1e-6, abs=1e-6)


def test_numeric_key_is_a_line_plot_in_png_svg_and_pdf(nic_runs, tmp_path, capsys):
    out = tmp_path / "report"
    status, stdout, _ = report(tmp_path, capsys, nic_runs, "--out", out, "--x", "host.nic.mtu",
                               "--y", "throughput_mbps", "--hue", "host.nic.attach")
    assert status == 0
    png, svg, pdf = (out / f"throughput_mbps-vs-nic.mtu-by-nic.attach.{ext}" for ext in ("png", "svg", "pdf"))
    assert {str(png), str(svg), str(pdf)} <= set(stdout.split())
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    text = svg_text(svg)
    assert {"Throughput vs MTU, by NIC placement", "MTU (bytes) [nic.mtu]", "throughput (Mbit/s)"} <= set(text)
    assert {"1500 B", "9000 B"} <= set(text)  # a tick at each MTU swept
    assert {"NIC placement", "integrated", "pcie"} <= set(text)  # the legend: the hue's values alone
    notes = " ".join(text)
    assert "host server (the receiving side of a stream)" in notes  # one host, the server, by default
    assert "mean of up to 2 runs with identical parameters; error bars: min to max" in notes
    md = (out / "report.md").read_text()
    assert "![Throughput vs MTU, by NIC placement](throughput_mbps-vs-nic.mtu-by-nic.attach.png)" in md
    assert "Also as [SVG](throughput_mbps-vs-nic.mtu-by-nic.attach.svg)" in md


def test_categorical_key_is_grouped_bars_labelled_with_their_means(nic_runs, tmp_path, capsys):
    out = tmp_path / "report"
    status, _, _ = report(tmp_path, capsys, nic_runs, "--out", out, "--x", "nic.attach",
                          "--y", "throughput_mbps", "--hue", "mtu", "--host", "client")
    assert status == 0
    text = svg_text(out / "throughput_mbps-vs-nic.attach-by-nic.mtu.svg")
    assert {"NIC placement [nic.attach]", "throughput (Mbit/s)", "integrated", "pcie"} <= set(text)
    assert {"MTU", "1500 B", "9000 B"} <= set(text)  # the legend
    # Each bar says its mean: (900 + 700) / 2 for pcie at 1500, and so on.
    assert {"800", "950", "1.1e+03", "1.2e+03"} <= set(text)


def test_zip_partners_are_named_on_the_axis(tmp_path, capsys):
    """placement_sweep zips message size with connections: 1K with 1, 16K with 4, 64K with 16."""
    out = tmp_path / "report"
    status, _, _ = report(tmp_path, capsys, make_sweep(tmp_path / "sweep"), "--out", out,
                          "--x", "msg_bytes", "--y", "throughput_mbps", "--hue", "attach")
    assert status == 0
    text = svg_text(out / "throughput_mbps-vs-stream.msg_bytes-by-nic.attach.svg")
    assert "message size (bytes, log scale) [stream.msg_bytes] (paired with stream.streams)" in " ".join(text)
    assert {"1 KiB", "16 KiB", "64 KiB", "streams=1", "streams=4", "streams=16"} <= set(text)
    # The fixed plot of the same sweep names them too.
    fixed = svg_text(out / "bandwidth-cpu-vs-msg-size.svg")
    assert "(paired with stream.streams)" in fixed


@pytest.mark.parametrize("argv, message", [
    (["--x", "mtu"], "g5net report: error: --x and --y go together: --x KEY --y METRIC"),
    (["--hue", "mtu"], "g5net report: error: --hue choose what --x and --y plot: give --x and --y too"),
    (["--x", "cache", "--y", "throughput_mbps"],
     "g5net report: error: --x cache: is no parameter of these runs; the runs vary "
     "host.nic.attach, host.nic.mtu"),
    (["--x", "streams", "--y", "throughput_mbps"],
     "g5net report: error: --x streams: every run has stream.streams=1; the runs vary "
     "host.nic.attach, host.nic.mtu"),
    (["--x", "mtu", "--y", "throughput"],
     "g5net report: error: --y throughput: no run has this metric (`g5net collect --long` "
     "lists every metric)"),
    (["--x", "mtu", "--y", "throughput_mbps", "--hue", "host.nic.mtu"],
     "g5net report: error: --hue host.nic.mtu: is --x already"),
])
def test_a_plot_the_runs_cannot_give_is_an_error_and_writes_nothing(nic_runs, tmp_path, capsys,
                                                                    argv, message):
    status, out, err = report(tmp_path, capsys, nic_runs, "--out", tmp_path / "r", *argv)
    assert (status, out, err.strip()) == (2, "", message)
    assert not (tmp_path / "r").exists()


def test_a_key_is_named_as_sweeps_name_it_or_by_a_whole_ending(nic_runs):
    found = runsmod.load(nic_runs)
    assert resolved(found, XY("hosts.client.nic.mtu", "throughput_mbps")).x == "host.nic.mtu"
    assert resolved(found, XY("nic.mtu", "throughput_mbps")).x == "host.nic.mtu"
    with pytest.raises(ReportError, match=r"--x tu: is no parameter"):  # not a part of a name
        resolved(found, XY("tu", "throughput_mbps"))


def test_bars_stand_on_their_category_ticks(nic_runs):
    """Two MTUs per placement: each placement's pair of bars is centred on its tick."""
    found = runsmod.load(nic_runs)
    xy = resolved(found, XY("nic.attach", "throughput_mbps", "mtu", hosts=("client",)))
    fig, _ = figure(found, xy)
    try:
        (ax,) = fig.axes
        ticks = dict(zip((t.get_text() for t in ax.get_xticklabels()), ax.get_xticks()))
        assert set(ticks) == {"integrated", "pcie"}
        bars = [b for b in ax.patches if b.get_height() > 0]
        centres = sorted(b.get_x() + b.get_width() / 2 for b in bars)
        assert len(centres) == 4
        for tick in ticks.values():
            pair = [c for c in centres if abs(c - tick) < 0.5]
            assert len(pair) == 2 and sum(pair) / 2 == pytest.approx(tick)
        # One colour per MTU, the same for both placements.
        assert len({b.get_facecolor() for b in bars}) == 2
    finally:
        plt.close(fig)
