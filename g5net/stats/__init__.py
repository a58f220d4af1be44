"""Reading gem5 statistics: a streaming parser for `stats.txt` and per-host metrics."""

from .catalogue import CATALOGUE, METRICS, Metric, SumMetric
from .metrics import host_metrics, hosts, metric
from .model import Dump, Stat
from .parse import iter_dumps

__all__ = ["CATALOGUE", "METRICS", "Dump", "Metric", "Stat", "SumMetric",
           "host_metrics", "hosts", "iter_dumps", "metric"]
