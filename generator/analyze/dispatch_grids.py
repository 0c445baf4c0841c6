"""A kernel's dispatch durations by grid: where one kernel is launched at several grids (the demo's
add_kernel: 20 dispatches of 8192 blocks at ~11.4 us, 20 of 65536 at ~92.3 us), a median over all of
them is a time no dispatch took (51.86 us); each grid gets its own count, median, min and max."""

from __future__ import annotations

import statistics
from typing import Any, Sequence

from generator.model import record

#: Grid medians further apart than this ratio make a median over all grids misleading (fused_rope_cache's
#: five grids run 3.88-4.36 us: its one median, 4.00 us, stands for each; vec_add's two: 11.39 and 92.33 us).
SPLIT_RATIO = 1.25


@record
class GridTiming:
    """The dispatches of one grid (ns)."""

    grid: tuple[int, ...]
    count: int
    median_ns: float
    min_ns: int
    max_ns: int

    def to_json(self) -> dict[str, Any]:
        return {"grid": list(self.grid), "count": self.count, "median_ns": self.median_ns,
                "min_ns": self.min_ns, "max_ns": self.max_ns}


def by_grid(durations: Sequence[int], grids: Sequence[tuple | None]) -> list[GridTiming]:
    """One timing per grid, most dispatches first (then the smaller grid); [] when the dispatches
    launch one grid, or when a dispatch's grid is unknown (nothing to split by)."""
    groups: dict[tuple, list[int]] = {}
    for dur, grid in zip(durations, grids):
        if grid is None:
            return []
        groups.setdefault(tuple(grid), []).append(dur)
    if len(groups) < 2:
        return []
    return [GridTiming(g, len(ds), statistics.median(ds), min(ds), max(ds))
            for g, ds in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def trace_grid(row: dict[str, Any]) -> tuple[int, ...] | None:
    """The grid of a kernel-trace row (rocprofv3's ``Grid_Size_X/Y/Z``); None when a size is missing."""
    try:
        return tuple(int(row[f"Grid_Size_{axis}"]) for axis in "XYZ")
    except (KeyError, TypeError, ValueError):
        return None


def grids_differ(grids: Sequence[dict[str, Any]]) -> bool:
    """True when the grids' medians (``GridTiming.to_json``) spread wider than ``SPLIT_RATIO``."""
    medians = [g["median_ns"] for g in grids if g.get("median_ns")]
    return len(medians) > 1 and max(medians) > SPLIT_RATIO * min(medians)
