"""What figures call keys, metrics and values (g5net/report/labels.py): words
and units from the spec key catalogue and the metric catalogue."""

import numpy as np
import pytest

from g5net.metrics.units import CATALOGUE
from g5net.model.keys import tables
from g5net.report.labels import key_axis, key_unit, metric_axis, size_text, value_text, wrapped


@pytest.mark.parametrize("key, axis", [
    ("host.nic.mtu", "MTU (bytes) [nic.mtu]"),
    ("workloads.stream.msg_bytes", "message size (bytes) [stream.msg_bytes]"),
    ("link.delay_us", "link delay (µs) [delay_us]"),
    ("host.cpu.model", "CPU model [cpu.model]"),
])
def test_a_key_is_named_in_words_with_its_unit(key, axis):
    assert key_axis(key) == axis
    assert key_axis(key, log=True).startswith(axis.partition(" [")[0].rstrip(")"))
    assert "log scale" in key_axis(key, log=True)


def test_every_spec_key_with_a_unit_in_its_name_has_that_unit():
    suffixes = {"bytes": "bytes", "kib": "KiB", "us": "us", "ns": "ns", "gbps": "Gbit/s", "ghz": "GHz",
                "mb": "MiB", "s": "s"}
    for table in tables():
        for k in table.keys:
            last = k.name.rpartition("_")[2]
            if "_" in k.name and last in suffixes:
                assert key_unit(f"{table.path}.{k.name}") == suffixes[last], k.name


@pytest.mark.parametrize("metric, axis", [
    ("throughput_mbps", "throughput (Mbit/s)"),
    ("cpu_util", "CPU utilisation (%)"),
    ("latency_us", "latency (µs)"),
    ("time_driver_us_per_pkt", "time in driver per packet (µs)"),
    ("l2_misses_per_pkt", "L2 misses per packet"),
    ("intr_per_s", "interrupts per second"),
    ("server.stream.received_mbps", "throughput received (Mbit/s)"),
])
def test_a_metric_is_named_in_words_with_its_catalogue_unit(metric, axis):
    assert metric_axis(metric) == axis


def test_no_metric_axis_is_its_id():
    for m in CATALOGUE:
        if "_" in m.name:
            assert m.name not in metric_axis(m.name), m.name


@pytest.mark.parametrize("value, text", [(1024, "1 KiB"), (65536, "64 KiB"), (1 << 20, "1 MiB"),
                                         (1500, "1500 B"), (np.int64(16384), "16 KiB"),
                                         (np.float64(2048.0), "2 KiB"), (1000000, "1000000 B")])
def test_a_size_is_written_exactly(value, text):
    assert size_text(value).replace("\xa0", " ") == text


def test_only_sizes_are_written_as_sizes():
    assert value_text("host.cpu.cores", 1024) == "1024"
    assert value_text("host.nic.attach", "pcie") == "pcie"


def test_a_wrapped_label_keeps_its_lines_and_a_size_whole():
    text = wrapped("mtu=9000 window_bytes=64\xa0KiB\nserver/stream", 20)
    assert text.split("\n") == ["mtu=9000", "window_bytes=64\xa0KiB", "server/stream"]
