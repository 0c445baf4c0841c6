"""One module per CLI command (see generator.cli), and the tool's one garbage-collector policy."""

from __future__ import annotations

import gc
from contextlib import contextmanager

#: The cyclic garbage collector's first threshold while a command reads a sweep (Python's default: 700).
GC_YOUNG = 50_000


@contextmanager
def collector_policy():
    """The one garbage-collector policy of the tool (``build``, ``verdicts``, ``diff``): reading a sweep
    allocates millions of objects and hardly a cycle, so the young generation is collected every
    GC_YOUNG allocations, not every 700 (a build's worker processes inherit it); Python's thresholds
    come back after. Measured by ``benchmarks/bench_tricks.py`` on the shared MI350X sweep (cold
    builds, a loaded 2-core machine, so CPU time, the build and its workers): 6.5 % of the build's CPU
    time (medians of 11 rounds, 1.460 s with Python's default vs 1.365 s); two runs of 5 rounds gave
    7.7 % and 4.6 %. On the sweep linked 30 times, pausing collection outright cut ``verdicts`` from
    6.1 to 4.0 s CPU and ``diff`` from 19.2 to 15.1 s (issue 25); this policy serves those too."""
    before = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
