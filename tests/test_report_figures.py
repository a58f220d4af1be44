"""The figures a reader sees, on committed data: the studies' results
(studies/*/results/quick) and the fixtures' runs (tests/fixtures). Each case is
drawn by the product and read back from matplotlib's figure as drawn (labels,
scales, colours, bar positions) or from the PNG written (its size)."""

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from matplotlib.colors import to_rgba

from g5net.errors import ReportError
from g5net.report import runs as runsmod
from g5net.report.build import build
from g5net.report.figure_files import plt
from g5net.report.xy_plot import MAX_PANELS, XY, figure, resolved
from g5net.study import builtin as catalog
from g5net.study import figures, paper

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
STUDIES = catalog.names()
MAX_PX = 2400  # a figure's width and height, whatever the input


def results(study: str, scale: str = "quick") -> list[runsmod.Run]:
    return runsmod.load(REPO / "studies" / study / "results" / scale)


@pytest.fixture(autouse=True)
def closed():
    yield
    plt.close("all")


def drawn(runs, **asked):
    xy = resolved(runs, XY(**asked))
    fig, title = figure(runs, xy)
    return xy, fig, title, [ax for ax in fig.axes if ax.get_visible() and ax.has_data()]


def texts(fig) -> str:
    """Every word of the figure, a size's no-break space as a space."""
    found = [t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text"))]
    return " ".join(found).replace("\xa0", " ")


def line_colours(axes) -> set:
    return {line.get_color() for ax in axes for line in ax.get_lines() if len(line.get_xdata())}


def test_hue_alone_decides_the_colours_and_the_other_keys_make_panels():
    """10gbe is no full grid: the UP kernel comes at one MTU, window and burst size."""
    runs = results("10gbe")
    xy, fig, title, axes = drawn(runs, x="nic.mtu", y="throughput_mbps", hue="kernel")
    assert xy.hosts == ("server",)  # the receiving side, by default
    assert title == "Throughput vs MTU, by kernel"
    assert len(line_colours(axes)) == 2 == len({r.params["host.kernel"] for r in runs})
    legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert legend == ["smp", "up"]
    # Every combination of the other keys is a panel, titled with their values.
    assert 1 < len(axes) <= MAX_PANELS
    assert all("window_bytes=" in ax.get_title() for ax in axes)
    assert {"64 KiB", "256 KiB"} <= {v for ax in axes for v in _values(ax.get_title(), "window_bytes")}
    assert axes[0].get_ylabel() == "throughput (Mbit/s)"
    assert {ax.get_xlabel().replace("\n", " ") for ax in axes} == {"", "MTU (bytes) [nic.mtu]"}
    assert "throughput_mbps" not in texts(fig)
    assert "host server (the receiving side of a stream)" in texts(fig)


def _values(title: str, key: str) -> list[str]:
    """The value of `key` in a panel title `k=v k=v`, with a size's unit."""
    flat = title.replace("\n", " ").replace("\xa0", " ")
    after = flat.split(f"{key}=")[1:]
    return [" ".join(a.split(" ")[:2]) for a in after]


def test_a_log_axis_says_so_and_sizes_are_written_exactly():
    # The medium scale's I/O sizes (the quick scale has one).
    _, fig, _, axes = drawn(results("niagara2-nic", "medium"), x="msg_bytes", y="wire_received_mbps",
                            hue="attach", where=(("nic.dca", "false"),))
    (ax,) = axes
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel().replace("\n", " ") == "message size (bytes, log scale) [stream.msg_bytes]"
    assert [t.get_text().replace("\xa0", " ") for t in ax.get_xticklabels()] == ["1 KiB", "16 KiB", "64 KiB"]
    assert len(line_colours(axes)) == 2  # pcie and integrated
    assert "runs with nic.dca=false" in texts(fig)


def test_a_linear_axis_says_no_log_scale():
    _, _, _, axes = drawn(results("10gbe"), x="nic.mtu", y="throughput_mbps", hue="kernel")
    assert {ax.get_xscale() for ax in axes} == {"linear"}
    assert not any("log" in ax.get_xlabel() for ax in axes)


def test_a_bar_stands_on_its_category_tick():
    """One bar per kernel in each panel: its centre is the tick's position."""
    xy, fig, _, axes = drawn(results("10gbe"), x="kernel", y="latency_us",
                             where=(("mtu", "9000"), ("pcie_max_read_request", "512")))
    assert xy.hosts == ("client",)  # NetPIPE's latency is the client's: no server has it
    assert "host client (no server has this metric)" in texts(fig)
    bars = 0
    for ax in axes:
        ticks = list(ax.get_xticks())
        for bar in ax.patches:
            assert bar.get_x() + bar.get_width() / 2 == pytest.approx(ticks[round(bar.get_x() + bar.get_width() / 2)])
            bars += 1
    assert bars == 2
    assert axes[0].get_ylabel() == "latency (µs)"


def test_more_combinations_than_panels_are_refused_naming_the_keys():
    runs = runsmod.load(FIXTURES) + results("10gbe")
    with pytest.raises(ReportError) as e:
        resolved(runs, XY("kernel", "throughput_mbps", "nic.mtu"))
    message = str(e.value)
    assert f"more than the {MAX_PANELS} panels a figure holds" in message
    assert "stream.window_bytes (3 values)" in message and "--where KEY=VALUE" in message


def test_where_names_the_values_a_key_takes_when_none_matches():
    with pytest.raises(ReportError, match=r"--where nic.mtu=4000: no run has these values "
                                          r"\(nic.mtu takes 1500, 9000\)"):
        resolved(results("10gbe"), XY("kernel", "latency_us", where=(("mtu", "4000"),)))


def test_every_figure_of_a_folder_of_unrelated_runs_stays_within_bounds(tmp_path):
    from PIL import Image

    # The gem5 fixtures of the first studies: six unrelated runs (with the
    # steady-state ones their combinations exceed a figure's panels, which
    # the report refuses, naming them).
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in ("quickstart", "smp", "switched", "dca", "mrrs-512", "mrrs-4096"):
        shutil.copytree(FIXTURES / f"gem5-{name}", folder / name)
    written = build([folder], tmp_path / "report", XY("pcie_max_read_request", "throughput_mbps"))
    pngs = [p for p in written if p.suffix == ".png"]
    # The read-request figure asked for, and message size, which these runs vary
    # (connections do not: only the runs with NetPIPE have its key, report/runs.py varying).
    assert sorted(p.name for p in pngs) == ["bandwidth-cpu-vs-msg-size.png",
                                            "throughput_mbps-vs-nic.pcie_max_read_request.png"]
    for png in pngs:
        with Image.open(png) as im:
            assert im.width <= MAX_PX and im.height <= MAX_PX, (png.name, im.size)


def assert_axes_name_their_units(fig, f) -> None:
    for ax in f.axes:
        assert "[" in ax.get_xlabel(), (fig.name, ax.get_xlabel())  # the key, as --x names it
        label = ax.get_ylabel()
        assert fig.y.rpartition(".")[2] not in label, (fig.name, label)  # words, not the metric id
        # A unit, or a ratio that says what it counts per what.
        assert "(" in label or "relative" in label or " per " in label, (fig.name, label)


@pytest.mark.parametrize("name", STUDIES)
def test_every_study_figure_names_its_axes_with_units(name):
    study = catalog.load(name)
    runs, points = results(name), paper.load(study.paper_csv)
    for fig in study.figures:
        f = figures.figure(fig, runs, points)
        if f is not None:
            assert_axes_name_their_units(fig, f)


def test_ours_far_below_the_papers_get_an_axis_of_their_own():
    """Niagara 2: the paper's 8-9 Gbit/s beside our 0.1-1.2 Gbit/s."""
    study = catalog.load("niagara2-nic")
    fig = next(f for f in study.figures if f.name == "bandwidth-vs-io")
    f = figures.figure(fig, results("niagara2-nic"), paper.load(study.paper_csv))
    ours, theirs = f.axes
    assert ours.get_title() == "g5net" and theirs.get_title().startswith("the paper")
    assert ours.get_ylabel() == "wire received (Mbit/s)" == theirs.get_ylabel()
    lines = [s.lines[0] for s in ours.containers]  # a series' points, without its caps
    top = max(y for line in lines for y in line.get_ydata())
    assert top < 2000 and ours.get_ylim()[1] < 2 * top  # ours fill their axis, not a fifth of it
    assert len({line.get_color() for line in lines}) == 2  # pcie and integrated apart
    assert {line.get_marker() for line in lines} == {"o", "s"}


def test_ours_near_the_papers_share_one_axis():
    study = catalog.load("10gbe")
    fig = next(f for f in study.figures if f.name == "throughput-vs-mtu")
    f = figures.figure(fig, results("10gbe"), paper.load(study.paper_csv))
    assert len(f.axes) == 1
    assert f.axes[0].get_ylabel() == "throughput (Mbit/s)"


def test_runs_a_figure_leaves_at_one_x_are_not_joined_by_one_line():
    """Niagara 2 medium's runs share one core count: drawn against cores with
    the I/O size left free, each size is a series of its own, named by it, and
    the paper's series are named by the hue alone. (Its committed runs: all
    nine, or as many as a run of the scale under way has saved.)"""
    study = catalog.load("niagara2-nic")
    fig = next(f for f in study.figures if f.name == "bandwidth-vs-cores")
    runs = runsmod.load(study.results("medium"))
    without_dca = [r for r in runs if not r.params["host.nic.dca"]]
    free = dataclasses.replace(fig, where=tuple((k, v) for k, v in fig.where if k != "workloads.stream.msg_bytes"))
    series = figures.ours(free, runs)
    assert len({r.params["workloads.stream.msg_bytes"] for r in without_dca}) > 1
    assert sorted(series) == sorted(f"g5net attach={r.params['host.nic.attach']} "
                                    f"msg_bytes={r.params['workloads.stream.msg_bytes'] // 1024}\xa0KiB"
                                    for r in without_dca)
    assert all(len(xy) == 1 for xy in series.values())
    # The study's own figure names the size it compares at: one point a NIC.
    assert sorted(figures.ours(fig, runs)) == sorted(
        f"g5net attach={r.params['host.nic.attach']}" for r in without_dca
        if r.params["workloads.stream.msg_bytes"] == 65536)
    f = figures.figure(free, runs, [paper.PaperPoint(fig.name, "pcie", 8.0, 8310.0, "Mbit/s", "text")])
    theirs = f.axes[1]  # 8.3 Gbit/s is far from ours: an axis of its own
    assert [t.get_text() for t in theirs.get_legend().get_texts()] == ["attach=pcie"]


@pytest.mark.parametrize("name", STUDIES)
def test_the_committed_study_figures_are_within_bounds(name):
    from PIL import Image

    for png in (REPO / "studies" / name / "report").glob("*/*.png"):
        with Image.open(png) as im:
            assert im.width <= MAX_PX and im.height <= MAX_PX, (png, im.size)


def test_the_papers_series_takes_the_colour_of_ours_with_its_value():
    """netframe: the paper's series `65536` is the socket buffer of our window_bytes=64 KiB."""
    study = catalog.load("netframe")
    fig = next(f for f in study.figures if f.name == "throughput-vs-message")
    f = figures.figure(fig, results("netframe"), paper.load(study.paper_csv))
    (ax,) = f.axes
    colour = {t.get_text().replace("\xa0", " "): s.lines[0].get_color()
              for t, s in zip(ax.get_legend().get_texts(), ax.containers)}
    assert colour["paper window_bytes=64 KiB"] == colour["g5net window_bytes=64 KiB"]
    assert len(set(colour.values())) == 3  # 24 KiB, 64 KiB, 1 MiB


# The windowed gem5 fixtures, 8 windows each at 4 KiB to 128 KiB, and the
# whole-life run, measured once, at 128 KiB.
WINDOWED = {"steady-4k": 4096, "steady-16k": 16384, "steady-64k": 65536, "steady-state": 131072}
TOY = """title = "t"
paper = "p"
about = "a"

[[figure]]
name = "bandwidth-vs-io"
title = "Throughput vs message size"
paper_ref = "text"
x = "workloads.stream.msg_bytes"
y = "server.stream.throughput_mbps"
hue = "experiment.windows"

[[figure]]
name = "bandwidth-relative"
title = "Throughput relative to the smallest message"
paper_ref = "-"
x = "workloads.stream.msg_bytes"
y = "server.stream.throughput_mbps"
hue = "experiment.windows"
normalise = true

[[table]]
name = "windows"
title = "Windows"
columns = ["server.stream.throughput_mbps", "server.stream.ctxt_per_pkt"]
"""


def windowed_study(root: Path) -> tuple[catalog.Study, list[runsmod.Run]]:
    """A toy study whose committed quick results are those runs, as `g5net study save`
    keeps them (without m5out), beside the Niagara 2 paper's bandwidth at 64 KiB."""
    toy = root / "toy"
    for name in (*WINDOWED, "whole-life"):
        shutil.copytree(FIXTURES / f"gem5-{name}", toy / "results" / "quick" / name,
                        ignore=shutil.ignore_patterns("m5out"))
    shutil.copy(REPO / "studies" / "niagara2-nic" / "paper.csv", toy / "paper.csv")
    (toy / "study.toml").write_text(TOY)
    study = catalog.load("toy", root)
    return study, runsmod.load(study.results("quick"))


def server_stream(name: str) -> dict:
    return json.loads((FIXTURES / f"gem5-{name}" / "metrics.json").read_text())["hosts"]["server"]["stream"]


def bars(container) -> list[tuple[float, float, float]]:
    """(x, bottom, top) of each error bar an error bar container draws (a point without one has none)."""
    (collection,) = container.lines[2]
    return [(seg[0][0], seg[0][1], seg[1][1]) for seg in collection.get_segments() if len(seg)]


def test_a_study_figure_draws_each_windowed_point_with_its_confidence_interval(tmp_path):
    study, runs = windowed_study(tmp_path)
    fig = study.figures[0]
    f = figures.figure(fig, runs, paper.load(study.paper_csv))
    ours, theirs = f.axes  # ours near 2 Gbit/s, the paper's near 9: an axis each, as before
    assert_axes_name_their_units(fig, f)
    drawn = {c.get_label(): c for c in ours.containers}
    windowed, once = drawn["windows=8"], drawn["windows=0"]
    expected = [(x, server_stream(name)["throughput_mbps"], server_stream(name)["spread"]["throughput_mbps"]["ci95"])
                for name, x in WINDOWED.items()]
    assert bars(windowed) == [pytest.approx((x, mean - ci, mean + ci)) for x, mean, ci in expected]
    assert list(windowed.lines[0].get_ydata()) == pytest.approx([mean for _, mean, _ in expected])
    line_colour = to_rgba(windowed.lines[0].get_color())
    assert {tuple(c) for c in windowed.lines[2][0].get_colors()} == {line_colour}  # bars of its colour
    assert [to_rgba(cap.get_color()) for cap in windowed.lines[1]] == [line_colour] * 2  # its caps too
    # The whole-life run measured once: its point as before, no bar.
    assert not once.has_yerr and list(once.lines[0].get_ydata()) == [server_stream("whole-life")["throughput_mbps"]]
    # The paper's points: dashed, open, without bars.
    assert theirs.containers and all(not c.has_yerr and c.lines[0].get_linestyle() == "--"
                                     and c.lines[0].get_markerfacecolor() == "none" for c in theirs.containers)
    assert "error bars: the 95% confidence interval" in f.get_suptitle()
    # With no hue the two runs at 128 KiB, windowed and whole-life, are still not
    # joined by one line: the parameter they differ in names a series each.
    f = figures.figure(dataclasses.replace(fig, hue=()), runs, ())
    drawn = {c.get_label(): c for c in f.axes[0].containers}
    assert sorted(drawn) == ["g5net windows=0", "g5net windows=8"]
    assert bars(drawn["g5net windows=8"]) == [pytest.approx((x, mean - ci, mean + ci)) for x, mean, ci in expected]
    assert not drawn["g5net windows=0"].has_yerr


def test_a_normalised_study_figure_scales_each_interval_with_its_value(tmp_path):
    study, runs = windowed_study(tmp_path)
    fig = study.figures[1]
    assert fig.normalise
    f = figures.figure(fig, runs, paper.load(study.paper_csv))
    (ax,) = f.axes
    assert_axes_name_their_units(fig, f)
    windowed = next(c for c in ax.containers if c.get_label() == "g5net windows=8")
    first = server_stream("steady-4k")["throughput_mbps"]
    assert [top - bottom for _, bottom, top in bars(windowed)] == pytest.approx(
        [2 * server_stream(name)["spread"]["throughput_mbps"]["ci95"] / first for name in WINDOWED])


def test_a_series_is_named_by_the_system_key_that_moves_with_a_method_key():
    """sockets medium zips host.cpu.model with experiment.window_method (O3
    points sampled, timing ones consecutive): its series say the CPU model,
    which is what differs, in the study's figure and in `g5net report`'s."""
    study = catalog.load("sockets")
    runs = runsmod.load(study.results("medium"))
    fig = next(f for f in study.figures if f.name == "bandwidth-vs-message")
    f = figures.figure(fig, runs, paper.load(study.paper_csv))
    labels = [c.get_label() for c in f.axes[0].containers if c.get_label().startswith("g5net")]
    assert labels and all("model=" in label and "window_method" not in label for label in labels)
    plt.close(f)
    xy = resolved(runs, XY("workloads.stream.msg_bytes", "throughput_mbps", "host.nic.mtu", ("server",),
                           ("stream",), (("hosts.client.replicas", "1"),)))
    f, _ = figure(runs, xy)
    names = {ax.get_title() for ax in f.axes} | {t.get_text() for ax in f.axes if ax.get_legend()
                                                 for t in ax.get_legend().get_texts()}
    assert any("model=" in t for t in names) and not any("window_method" in t for t in names)
    plt.close(f)
