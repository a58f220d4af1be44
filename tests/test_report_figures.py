"""The figures a reader sees, on committed data: the studies' results
(studies/*/results/quick) and the fixtures' runs (tests/fixtures). Each case is
drawn by the product and read back from matplotlib's figure as drawn (labels,
scales, colours, bar positions) or from the PNG written (its size)."""

import shutil
from pathlib import Path

import pytest

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


def results(study: str) -> list[runsmod.Run]:
    return runsmod.load(REPO / "studies" / study / "results" / "quick")


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
    """10gbe is no full grid: cpu.model comes with its own window, burst and transfer size."""
    runs = results("10gbe")
    xy, fig, title, axes = drawn(runs, x="nic.mtu", y="throughput_mbps", hue="cpu.model")
    assert xy.hosts == ("server",)  # the receiving side, by default
    assert title == "Throughput vs MTU, by CPU model"
    assert len(line_colours(axes)) == 2 == len({r.params["host.cpu.model"] for r in runs})
    legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert legend == ["o3", "timing"]
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
    _, fig, _, axes = drawn(results("niagara2-nic"), x="msg_bytes", y="received_mbps", hue="attach",
                            where=(("nic.dca", "false"),))
    (ax,) = axes
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel().replace("\n", " ") == "message size (bytes, log scale) [stream.msg_bytes]"
    assert [t.get_text().replace("\xa0", " ") for t in ax.get_xticklabels()] == ["1 KiB", "64 KiB"]
    assert len(line_colours(axes)) == 2  # pcie and integrated
    assert "runs with nic.dca=false" in texts(fig)


def test_a_linear_axis_says_no_log_scale():
    _, _, _, axes = drawn(results("10gbe"), x="nic.mtu", y="throughput_mbps", hue="cpu.model")
    assert {ax.get_xscale() for ax in axes} == {"linear"}
    assert not any("log" in ax.get_xlabel() for ax in axes)


def test_a_bar_stands_on_its_category_tick():
    """One bar per CPU model in each panel: its centre is the tick's position."""
    xy, fig, _, axes = drawn(results("10gbe"), x="cpu.model", y="latency_us",
                             where=(("mtu", "9000"), ("pcie_max_read_request", "4096")))
    assert xy.hosts == ("client",)  # NetPIPE's latency is the client's: no server has it
    assert "host client (no server has this metric)" in texts(fig)
    bars = 0
    for ax in axes:
        ticks = list(ax.get_xticks())
        for bar in ax.patches:
            assert bar.get_x() + bar.get_width() / 2 == pytest.approx(ticks[round(bar.get_x() + bar.get_width() / 2)])
            bars += 1
    assert bars == 3
    assert axes[0].get_ylabel() == "latency (µs)"


def test_more_combinations_than_panels_are_refused_naming_the_keys():
    runs = runsmod.load(FIXTURES) + results("10gbe")
    with pytest.raises(ReportError) as e:
        resolved(runs, XY("cpu.model", "throughput_mbps", "nic.mtu"))
    message = str(e.value)
    assert f"more than the {MAX_PANELS} panels a figure holds" in message
    assert "stream.window_bytes (3 values)" in message and "--where KEY=VALUE" in message


def test_where_names_the_values_a_key_takes_when_none_matches():
    with pytest.raises(ReportError, match=r"--where nic.mtu=4000: no run has these values "
                                          r"\(nic.mtu takes 1500, 9000\)"):
        resolved(results("10gbe"), XY("cpu.model", "latency_us", where=(("mtu", "4000"),)))


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
    assert len(pngs) >= 4
    for png in pngs:
        with Image.open(png) as im:
            assert im.width <= MAX_PX and im.height <= MAX_PX, (png.name, im.size)


@pytest.mark.parametrize("name", STUDIES)
def test_every_study_figure_names_its_axes_with_units(name):
    study = catalog.load(name)
    runs, points = results(name), paper.load(study.paper_csv)
    for fig in study.figures:
        f = figures.figure(fig, runs, points)
        if f is None:
            continue
        for ax in f.axes:
            assert "[" in ax.get_xlabel(), (fig.name, ax.get_xlabel())  # the key, as --x names it
            label = ax.get_ylabel()
            assert fig.y.rpartition(".")[2] not in label, (fig.name, label)  # words, not the metric id
            # A unit, or a ratio that says what it counts per what.
            assert "(" in label or "relative" in label or " per " in label, (fig.name, label)


def test_ours_far_below_the_papers_get_an_axis_of_their_own():
    """Niagara 2: the paper's 8-9 Gbit/s beside our < 0.6 Gbit/s."""
    study = catalog.load("niagara2-nic")
    fig = next(f for f in study.figures if f.name == "bandwidth-vs-io")
    f = figures.figure(fig, results("niagara2-nic"), paper.load(study.paper_csv))
    ours, theirs = f.axes
    assert ours.get_title() == "g5net" and theirs.get_title().startswith("the paper")
    assert ours.get_ylabel() == "throughput received (Mbit/s)" == theirs.get_ylabel()
    top = max(y for line in ours.get_lines() for y in line.get_ydata())
    assert top < 1000 and ours.get_ylim()[1] < 2 * top  # ours fill their axis, not a tenth of it
    assert len({line.get_color() for line in ours.get_lines()}) == 2  # pcie and integrated apart
    assert {line.get_marker() for line in ours.get_lines()} == {"o", "s"}


def test_ours_near_the_papers_share_one_axis():
    study = catalog.load("10gbe")
    fig = next(f for f in study.figures if f.name == "throughput-vs-mtu")
    f = figures.figure(fig, results("10gbe"), paper.load(study.paper_csv))
    assert len(f.axes) == 1
    assert f.axes[0].get_ylabel() == "throughput (Mbit/s)"


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
    colour = {t.get_text().replace("\xa0", " "): line.get_color()
              for t, line in zip(ax.get_legend().get_texts(), ax.get_lines())}
    assert colour["paper window_bytes=64 KiB"] == colour["g5net window_bytes=64 KiB"]
    assert len(set(colour.values())) == 3  # 24 KiB, 64 KiB, 1 MiB
