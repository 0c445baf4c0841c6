"""An independent reading of VERDICTS rules 1 and 8-12 from a raw ``benchmark_results.jsonl``, written
apart from ``generator.analyze.verdicts`` so that tests can check the code against it: the verdict
geomean (the comparable baseline each shape's verdict rests on, shapes at the timing floor left out).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path


def _usable(r: dict) -> bool:
    return r["benchmark_status"] == "ok" and r.get("correct") is not False and (r.get("median_us") or 0) > 0


def _times(c: dict, b: dict) -> tuple[float, float] | None:
    """(candidate, baseline) on the kernel clock and the same scope, else None (VERDICTS rule 10: both
    graph-replayed; an eager_event row, the candidate's or the baseline's, compares with nothing)."""
    if any(c.get(f) is not None and b.get(f) is not None and c[f] != b[f]
           for f in ("includes_layout_conversion", "includes_jit")):
        return None
    tc, tb = c.get("timing_method"), b.get("timing_method")
    if "eager_event" in (tc, tb) or (tc and tb and tc != tb):
        return None
    return c["median_us"], b["median_us"]


def verdict_ratios(folder: Path, floor: float | None = None, candidate: str = "flydsl",
                   scale: float = 1.0) -> tuple[dict[str, float], int, float]:
    """({shape id: verdict baseline / candidate} over the verdict shapes in ledger order, shapes at the
    floor, floor) of one campaign folder; the candidate's median times ``scale`` (a slowed copy);
    ``floor`` None: the folder's own."""
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    every = []
    for line in (Path(folder) / "benchmark_results.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            if r["provider"] == candidate and r.get("median_us") is not None:
                r["median_us"] *= scale
            rows[(r["shape_id"], r["provider"])].append(r)
            every.append(r)
    if floor is None:
        floor = min(r["median_us"] for r in every if _usable(r))
    providers = list(dict.fromkeys(r["provider"] for r in every))
    ratios, at_floor = {}, 0
    for line in (Path(folder) / "shape_ledger.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        sid = json.loads(line)["shape_id"]

        def chosen(p):
            rs = rows.get((sid, p), [])
            ok = [r for r in rs if _usable(r)]
            return ok[-1] if ok else (rs[-1] if rs else None)

        c = chosen(candidate)
        if c is None or not _usable(c):
            continue
        best = None
        for p in providers:
            b = chosen(p) if p != candidate else None
            t = _times(c, b) if b is not None and _usable(b) else None
            if t is not None and (best is None or t[1] / t[0] < best[1] / best[0]):
                best = t
        if best is None:
            continue
        if max(best) < 1.25 * floor:
            at_floor += 1
            continue
        ratios[sid] = best[1] / best[0]
    return ratios, at_floor, floor


def verdict_geomean(folder: Path, floor: float | None = None, candidate: str = "flydsl",
                    scale: float = 1.0) -> tuple[float | None, int, int, float]:
    """(verdict geomean, verdict shapes, shapes at the floor, floor) of one campaign folder (``verdict_ratios``)."""
    ratios, at_floor, floor = verdict_ratios(folder, floor, candidate, scale)
    logs = [math.log(r) for r in ratios.values()]
    g = math.exp(sum(logs) / len(logs)) if logs else None
    return g, len(logs), at_floor, floor


def shape_pairs(folder: Path, candidate: str = "flydsl") -> dict[str, tuple[dict, dict]]:
    """shape id -> (the candidate's last usable row, the fastest usable baseline's last usable row), in
    ledger order, for the shapes where both were measured, from the raw rows."""
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for line in (Path(folder) / "benchmark_results.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            rows[(r["shape_id"], r["provider"])].append(r)
    providers = list(dict.fromkeys(p for _, p in rows))
    out = {}
    for line in (Path(folder) / "shape_ledger.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        sid = json.loads(line)["shape_id"]
        last = {p: [r for r in rows.get((sid, p), []) if _usable(r)] for p in providers}
        bases = [rs[-1] for p, rs in last.items() if p != candidate and rs]
        if last[candidate] and bases:
            out[sid] = (last[candidate][-1], min(bases, key=lambda r: r["median_us"]))
    return out


def shape_noises(folder: Path, candidate: str = "flydsl") -> dict[str, float]:
    """shape id -> the larger p90/p10 of the candidate and the fastest usable baseline."""
    out = {}
    for sid, pair in shape_pairs(folder, candidate).items():
        mine = [r["p90_us"] / r["p10_us"] for r in pair if r.get("p10_us") and r.get("p90_us") is not None]
        if mine:
            out[sid] = max(mine)
    return out


def kernel_noise(folder: Path, candidate: str = "flydsl") -> float | None:
    """The kernel's noise (VERDICTS: the median over measured shapes of the larger p90/p10 of the
    candidate and the fastest usable baseline); a candidate scaled as a whole keeps it."""
    spreads = sorted(shape_noises(folder, candidate).values())
    if not spreads:
        return None
    n = len(spreads)
    return spreads[n // 2] if n % 2 else (spreads[n // 2 - 1] + spreads[n // 2]) / 2
