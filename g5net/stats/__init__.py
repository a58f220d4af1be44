"""Reading gem5 statistics: a streaming parser for `stats.txt`, a reader of
one of its dumps, and per-host metrics."""

from .catalogue import CATALOGUE, METRICS, Metric, SumMetric
from .dump_index import read_dump
from .per_host import host_metrics, metric
from .model import Dump, Stat
from .parse import iter_dumps

__all__ = ["CATALOGUE", "METRICS", "Dump", "Metric", "Stat", "SumMetric",
           "host_metrics", "iter_dumps", "metric", "read_dump"]
