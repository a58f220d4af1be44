import math

import pytest
from test_metrics_fixtures import PROFILE_ROWS, function_table, profile_items

from g5net.errors import GuestError
from g5net.metrics import profile


def test_parses_the_kernels_table_with_times_in_us():
    rows = profile.parse_function_stat(function_table(PROFILE_ROWS))
    assert [r.name for r in rows][:2] == ["e1000_clean", "e1000_clean_rx_irq"]
    by_name = {r.name: r for r in rows}
    # Names are cut to 30 characters, as the kernel prints them.
    assert "__netif_receive_skb_core.const" in by_name
    for name, hits, ns in PROFILE_ROWS:
        r = by_name[name[:30]]
        assert r.hits == hits
        assert r.time_us == pytest.approx(ns / 1000, abs=0.5)  # printed to <= 7 digits


def test_whole_microseconds_and_other_units():
    text = ("  Function   Hit    Time   Avg   s^2\n"
            "  schedule     212    299295844 us     1411772 us      183116351 us \n"
            "  tcp_sendmsg  10    1.5 ms    0.15 ms   0.000 ms\n"
            "  ip_rcv       10    250 ns    25 ns   0 ns\n")
    rows = {r.name: r.time_us for r in profile.parse_function_stat(text)}
    assert rows == {"schedule": 299295844.0, "tcp_sendmsg": 1500.0, "ip_rcv": 0.25}


def test_hits_only_table_without_the_graph_tracer():
    rows = profile.parse_function_stat(function_table(PROFILE_ROWS, graph=False))
    assert rows[0].time_us is None and rows[0].hits == PROFILE_ROWS[0][1]


def test_malformed_line_names_it():
    with pytest.raises(GuestError, match="line 3"):
        profile.parse_function_stat("  Function  Hit\n  --------  ---\n  garbage here\n")


@pytest.mark.parametrize("name, cat", [
    ("e1000_clean_rx_irq", "driver"), ("e1000e_poll", "driver"), ("dma_map_page_attrs", "driver"),
    ("tcp_v4_rcv", "stack"), ("__netif_receive_skb_core", "stack"), ("net_rx_action", "stack"),
    ("sock_recvmsg", "socket"), ("inet_recvmsg", "socket"), ("lock_sock_nested", "socket"),
    ("__sys_sendto", "socket"), ("sk_reset_timer", "stack"), ("csum_partial", "stack"),
    ("napi_alloc_skb", "buffer"), ("kmem_cache_alloc_node", "buffer"), ("__kmalloc", "buffer"),
    ("page_frag_alloc_align", "buffer"), ("__alloc_pages", "buffer"), ("skb_release_data", "buffer"),
    ("skb_copy_datagram_iter", "copy"), ("_copy_to_iter", "copy"), ("copy_user_generic_string", "copy"),
    ("csum_partial_copy_generic", "copy"), ("memcpy", "copy"),
    ("copy_process", "kernel"), ("schedule", "kernel"), ("__x64_sys_recvfrom", "socket"),
    ("_raw_spin_lock", "kernel"), ("do_idle", "idle"),
])
def test_rules_first_match_wins(name, cat):
    assert profile.category(name) == cat


def test_breakdown_shares_add_up_and_application_is_user_time():
    ticks = {"user": 30, "nice": 0, "system": 50, "idle": 900, "iowait": 0, "irq": 5, "softirq": 15, "steal": 0}
    b = profile.breakdown(profile_items("w"), ticks)
    assert b.basis == "time" and b.kernel_source == "proc-stat"
    assert math.fsum(b.share_pct.values()) == pytest.approx(100)
    # Application: user ticks; kernel categories: the 70 kernel ticks, split by ftrace.
    assert b.time_us["application"] == pytest.approx(30 / 100 * 1e6)
    assert math.fsum(v for c, v in b.time_us.items() if c != "application") == pytest.approx(70 / 100 * 1e6)
    assert b.share_pct["application"] == pytest.approx(30)
    # Idle is not a category: do_idle's 400 ms are reported apart.
    assert "idle" not in b.share_pct and b.idle_us == pytest.approx(400_000, rel=1e-3)
    ftrace_kernel = sum(ns for f, _, ns in PROFILE_ROWS if profile.category(f) != "idle")
    driver = sum(ns for f, _, ns in PROFILE_ROWS if profile.category(f) == "driver")
    assert b.time_us["driver"] == pytest.approx(0.7e6 * driver / ftrace_kernel, rel=1e-3)
    per_pkt = b.per_packet_us(1000)
    assert per_pkt["driver"] == pytest.approx(b.time_us["driver"] / 1000)


def test_breakdown_without_proc_stat_uses_ftrace_times():
    b = profile.breakdown(profile_items("w", cpus=1), None)
    assert b.kernel_source == "ftrace" and "application" not in b.share_pct
    assert math.fsum(b.share_pct.values()) == pytest.approx(100)
    total = sum(ns for f, _, ns in PROFILE_ROWS if profile.category(f) != "idle") / 1000
    assert math.fsum(b.time_us.values()) == pytest.approx(total, rel=1e-4)


def test_a_region_is_the_tables_after_it_less_those_before():
    """Under gem5 the profiler counts from boot: the region's breakdown is that
    of the tables' differences, whatever came before it (here the same
    functions, once more, and one the region never called)."""
    region = profile_items("w")
    earlier = PROFILE_ROWS + [("ksys_mount", 40, 900_000_000)]
    after = [(f, 2 * h, 2 * ns) for f, h, ns in PROFILE_ROWS] + [earlier[-1]]
    items = {}
    for key in region:  # two CPUs, each with half of every row
        items[key.replace(".prof", ".profstart")] = function_table([(f, h // 2, ns // 2) for f, h, ns in earlier])
        items[key] = function_table([(f, h // 2, ns // 2) for f, h, ns in after])
    b, plain = profile.breakdown(items, None), profile.breakdown(region, None)
    assert b.share_pct == pytest.approx(plain.share_pct, rel=1e-3)
    assert b.time_us == pytest.approx(plain.time_us, rel=1e-3)
    assert "ksys_mount" not in {name for name, _, _ in b.top}


def test_breakdown_by_hits_when_untimed():
    b = profile.breakdown({"w.prof0": function_table(PROFILE_ROWS, graph=False)}, None)
    assert b.basis == "hits" and b.time_us == {}
    assert math.fsum(b.share_pct.values()) == pytest.approx(100)


def test_empty_profile_is_no_breakdown():
    assert profile.breakdown({"w.prof0": function_table([])}, None) is None
