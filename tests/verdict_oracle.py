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


def _raw_rows(folder: Path) -> tuple[dict[tuple[str, str], list[dict]], list[str]]:
    """The results file's rows by (shape, provider) in file order, and the providers in first-seen order."""
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for line in (Path(folder) / "benchmark_results.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            rows[(r["shape_id"], r["provider"])].append(r)
    return rows, list(dict.fromkeys(p for _, p in rows))


def _ledger(folder: Path) -> list[dict]:
    """The ledger's shapes in file order."""
    return [json.loads(x) for x in (Path(folder) / "shape_ledger.jsonl").read_text().splitlines() if x.strip()]


def shape_pairs(folder: Path, candidate: str = "flydsl") -> dict[str, tuple[dict, dict]]:
    """shape id -> (the candidate's last usable row, the fastest usable baseline's last usable row), in
    ledger order, for the shapes where both were measured, from the raw rows."""
    rows, providers = _raw_rows(folder)
    out = {}
    for shape in _ledger(folder):
        sid = shape["shape_id"]
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


#: MI350X peaks (DOMAIN §5) for VERDICTS rule 9: HBM 8.0 TB/s, dense bf16 2300 and fp8 4600 TFLOP/s.
_HBM_GBPS, _TFLOPS = 8000.0, {"bf16": 2300.0, "fp16": 2300.0, "fp8": 4600.0, "fp8_e4m3": 4600.0}


def _above_roof(r: dict, dtype: str | None) -> bool:
    """Rule 9 on one usable row: above 1.10 x the HBM peak or 0.95 x the dense peak of its dtype."""
    peak = _TFLOPS.get((r.get("dtype") or dtype or "").lower())
    return (r.get("effective_gbps") or 0) > 1.10 * _HBM_GBPS or bool(peak and (r.get("effective_tflops") or 0) > 0.95 * peak)


def kernel_vs_any(folder: Path, candidate: str = "flydsl") -> tuple[float | None, int, int]:
    """(geomean, shapes, wins) of ``kernel_ratios``."""
    ratios = kernel_ratios(folder, candidate)
    logs = [math.log(s) for s in ratios.values()]
    wins = sum(s >= 1.05 * (1 - 1e-9) for s in ratios.values())
    return (math.exp(sum(logs) / len(logs)) if logs else None), len(logs), wins


def kernel_ratios(folder: Path, candidate: str = "flydsl") -> dict[str, float]:
    """{shape id: best baseline / candidate} over the shapes where the candidate and its fastest usable baseline
    of any kind are both graph-replayed (rule 10) and below every roof (rule 9), in ledger order: what "vs any"
    beside a verdict may rest on. Rule 16 (a partial replay) is not applied here."""
    rows, providers = _raw_rows(folder)
    out = {}
    for shape in _ledger(folder):
        sid = shape["shape_id"]

        def chosen(p):
            rs = rows.get((sid, p), [])
            ok = [r for r in rs if _usable(r)]
            return ok[-1] if ok else (rs[-1] if rs else None)

        c = chosen(candidate)
        base = [b for b in (chosen(p) for p in providers if p != candidate) if b is not None and _usable(b)]
        if c is None or not _usable(c) or not base:
            continue
        b = min(base, key=lambda r: r["median_us"])  # ties: the first in file order (min keeps the first)
        tc, tb = c.get("timing_method"), b.get("timing_method")
        if "eager_event" in (tc, tb) or (tc and tb and tc != tb):
            continue
        if _above_roof(c, shape.get("dtype")) or _above_roof(b, shape.get("dtype")):
            continue
        out[sid] = b["median_us"] / c["median_us"]
    return out
