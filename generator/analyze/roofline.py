"""Roofline: the roof, the arithmetic intensity and a bound label per benchmarked shape.

Units: throughput in TFLOP/s, bandwidth in TB/s (1e12 bytes/s) for peaks and GB/s
(1e9 bytes/s) for benchmark rows, arithmetic intensity (AI) in FLOP per byte.

    ridge point         = peak TFLOP/s / peak TB/s                       (FLOP/byte)
    AI of a shape       = effective_tflops * 1e12 / (effective_gbps * 1e9)
    roof at AI          = min(peak TFLOP/s, AI * peak TB/s)              (TFLOP/s)
    fraction of roof    = effective_tflops / roof at AI
    label               = latency-bound  if fraction < latency_fraction
                          memory-bound   elif AI < ridge point
                          compute-bound  otherwise

Worked example (MI350X: 8.0 TB/s, 2300 bf16 TFLOP/s): ridge = 2300 / 8.0 = 287.5
FLOP/byte. vec_add fp32, n = 67108864, flydsl: 0.404951 TFLOP/s at 4859.41 GB/s ->
AI = 1/12 FLOP/byte, roof = 8.0 / 12 = 0.6667 TFLOP/s, fraction 0.607 -> memory-bound.

Peaks and devices come from ``generator.analyze.device_peaks`` (``generator/data/peaks.toml``
with the sweep configuration's overrides). All functions here are pure: they take dicts and return
dataclasses.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from generator.analyze.device_peaks import (
    Device,
    Peaks,
    _config_raw,
    load_peaks,
    precision_for,
    ridge_point,
    select_device,
)
from generator.analyze.message import sentence
from generator.errors import InputError
from generator.model import record
from generator.read import jsonio
from generator.read.jsonl import kept_fields, results_jsonl

BOUND_LABELS = ("memory-bound", "compute-bound", "latency-bound")


#: A row above this multiple of the device's HBM peak is flagged (VERDICTS rule 9)...
ABOVE_ROOF_FACTOR = 1.10
#: ... and what that means, said wherever it is flagged.
ABOVE_ROOF_TEXT = "exceeds the HBM roof: less work than modelled, or cached"
#: A row above this fraction of its dtype's dense peak is flagged too (VERDICTS rule 9)...
COMPUTE_ROOF_FACTOR = 0.95
#: ... for these dtypes (DOMAIN §5), mapped to the precision whose peak applies.
COMPUTE_ROOF_DTYPES = {"bf16": "bf16", "fp16": "bf16", "fp8": "fp8", "fp8_e4m3": "fp8"}
#: A row timed so is call time (VERDICTS rule 13): its throughput is the call's, not the kernel's.
CALL_METHOD = "eager_event"


#: The message of each reason a point carries no bound (the above-the-roof one is its own sentence).
NO_BOUND_KEYS = {"call_clock": "msg.roof.call", "partial_replay": "msg.roof.partial", "at_floor": "msg.roof.floor"}


@record
class RooflinePoint:
    """One (shape, provider) row placed on the roofline."""

    shape_id: str
    args: str
    provider: str
    dtype: str
    precision: str
    median_us: float | None
    tflops: float
    gbps: float
    ai: float  # FLOP/byte
    bytes_source: str  # "benchmark" (effective_gbps) or "pmc"
    roof_tflops: float
    fraction_of_roof: float
    ridge: float
    bound: str
    above_roof: str = ""  # VERDICTS rule 9: "x.x TB/s exceeds the HBM roof: ..." or ""
    clock: str = "kernel"  # "call" when the row was timed with eager events (VERDICTS rule 13: call time)
    partial: bool = False  # the candidate's row where its graph replay misses work (VERDICTS rule 16)
    floor_us: float | None = None  # set when the row runs below 1.25 x this timing floor (rules 11, 13)

    def no_bound_why(self) -> str:
        """Why this point carries no bound, as a ``Roofline.left_out`` key ("" when it does): ``above_roof``
        (rule 9: less work than modelled, or cached), else ``call_clock`` (rule 13: the time holds the host's
        call, not the kernel's alone), else ``partial_replay`` (rule 16: a graph replay that misses work), else
        ``at_floor`` (rule 11: the harness's fixed cost, not the kernel, sets the time)."""
        return ("above_roof" if self.above_roof else "call_clock" if self.clock == "call"
                else "partial_replay" if self.partial else "at_floor" if self.floor_us is not None else "")

    def no_bound(self) -> str:
        """``no_bound_why`` in words ("" when the point carries a bound)."""
        why = self.no_bound_why()
        if why == "above_roof":
            return self.above_roof
        return sentence(NO_BOUND_KEYS[why], floor=f"{self.floor_us:.2f}") if why == "at_floor" else (
            sentence(NO_BOUND_KEYS[why]) if why else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "shape_id": self.shape_id,
            "args": self.args,
            "provider": self.provider,
            "dtype": self.dtype,
            "precision": self.precision,
            "median_us": self.median_us,
            "tflops": self.tflops,
            "gbps": self.gbps,
            "ai": self.ai,
            "bytes_source": self.bytes_source,
            "roof_tflops": self.roof_tflops,
            "fraction_of_roof": self.fraction_of_roof,
            "ridge": self.ridge,
            "bound": self.bound,
            "above_roof": self.above_roof or None,
            "clock": self.clock,
            "no_bound": self.no_bound() or None,
            "no_bound_why": self.no_bound_why() or None,  # the decision the diagnosis reads (one source)
        }


@record
class Roofline:
    """A roofline for one op: the device, ridge points, placed shapes, skipped rows."""

    device: Device
    latency_fraction: float
    ridges: dict[str, float]  # precision -> FLOP/byte
    points: list[RooflinePoint]
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # (shape, provider, why)
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Number of points per bound label (all labels present, stable order), over the points that carry
        one: not above a roof (VERDICTS rule 9), not on the call clock (rule 13); ``left_out`` counts the others."""
        out = {label: 0 for label in BOUND_LABELS}
        for p in self.points:
            if not p.no_bound():
                out[p.bound] += 1
        return out

    def left_out(self) -> dict[str, int]:
        """Points that carry no bound, by why (``RooflinePoint.no_bound_why``: the first reason that holds)."""
        out = dict.fromkeys(("above_roof", "call_clock", "partial_replay", "at_floor"), 0)
        for p in self.points:
            why = p.no_bound_why()
            if why:
                out[why] += 1
        return out

    def mark_floor(self, floor_us: float | None, factor: float) -> None:
        """VERDICTS rule 11: a row below ``factor`` x the timing floor is timed by the harness's fixed cost (the
        graph replay after an L2 flush), not by its kernel: its fraction of the roof says nothing of the kernel."""
        if not floor_us:
            return
        for p in self.points:
            if p.median_us is not None and p.median_us < factor * floor_us:
                p.floor_us = floor_us

    def mark_call_clock(self) -> None:
        """VERDICTS rule 13: a campaign timed on the call clock only: every row's time holds the host's call."""
        for p in self.points:
            p.clock = "call"

    def mark_partial_replay(self, provider: str) -> None:
        """VERDICTS rule 16: ``provider``'s graph replay misses work, so none of its rows is kernel evidence."""
        for p in self.points:
            if p.provider == provider:
                p.partial = True

    def to_json(self) -> dict[str, Any]:
        return {
            "device": self.device.to_json(),
            "latency_fraction": self.latency_fraction,
            "ridges": dict(sorted(self.ridges.items())),
            "points": [p.to_json() for p in self.points],
            "counts": self.counts(),
            "left_out": self.left_out(),
            "skipped": [
                {"shape_id": s, "provider": p, "reason": why} for s, p, why in self.skipped
            ],
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------- the math


def arithmetic_intensity(tflops: float, gbps: float) -> float | None:
    """FLOP per byte from achieved TFLOP/s and GB/s; None when bandwidth is 0."""
    if not gbps or gbps <= 0:
        return None
    return tflops * 1e12 / (gbps * 1e9)


def ai_from_bytes(flops: float, nbytes: float) -> float | None:
    """FLOP per byte from a FLOP count and a byte count (e.g. PMC HBM bytes)."""
    if not nbytes or nbytes <= 0:
        return None
    return flops / nbytes


def roof_tflops(ai: float, peak_tflops: float, peak_tbs: float) -> float:
    """Attainable TFLOP/s at this AI: min(compute roof, AI * bandwidth roof)."""
    return min(peak_tflops, ai * peak_tbs)


def classify(
    ai: float, tflops: float, peak_tflops: float, peak_tbs: float, latency_fraction: float
) -> tuple[str, float]:
    """Bound label and fraction of the roof reached (rule in the module docstring)."""
    roof = roof_tflops(ai, peak_tflops, peak_tbs)
    fraction = tflops / roof if roof > 0 else 0.0
    if fraction < latency_fraction:
        return "latency-bound", fraction
    if ai < ridge_point(peak_tflops, peak_tbs):
        return "memory-bound", fraction
    return "compute-bound", fraction


# ---------------------------------------------------------------- shapes


def _num(value: Any) -> float | None:
    """A finite float from a CSV/JSON cell, or None."""
    if type(value) is float:  # a JSON number: the text round trip below would give it back
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, bool):
        return None
    try:
        f = float(str(value).strip())
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def _args_text(args: Any) -> str:
    """Shape args as compact JSON text with sorted keys."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return args
    return jsonio.compact(args, sort_keys=True)


def _get(row: Any, key: str) -> Any:
    """A field of a row given as a mapping or as an object with attributes."""
    if isinstance(row, (dict, Mapping)):  # dict first: the ABC check alone is slow
        return row.get(key)
    return getattr(row, key, None)


def _field_getter(row: Any) -> Callable[[str], Any]:
    """``_get`` bound to one row (a dict's own ``get`` when it is one)."""
    return row.get if isinstance(row, dict) else functools.partial(_get, row)


def place_shape(row: Any, device: Device, peaks: Peaks,
                measured_bytes: float | None = None) -> tuple[RooflinePoint | None, str | None, str | None]:
    """Place one benchmark row; returns (point, skip reason, precision note).

    With ``measured_bytes`` (e.g. PMC HBM read bytes of one call) the AI uses the FLOP
    count implied by the row (tflops * median time) over those bytes.
    """
    return _place(_field_getter(row), device, peaks, measured_bytes)


def _place(get: Callable[[str], Any], device: Device, peaks: Peaks,
           measured_bytes: float | None) -> tuple[RooflinePoint | None, str | None, str | None]:
    """``place_shape`` of the row whose fields ``get`` reads."""
    status = str(get("benchmark_status") or "ok").strip()
    if status != "ok":
        return None, f"status {status}", None
    tflops, gbps = _num(get("effective_tflops")), _num(get("effective_gbps"))
    if tflops is None or gbps is None:
        return None, "no effective_tflops/effective_gbps", None
    median_us = _num(get("median_us"))
    source = "benchmark"
    ai = arithmetic_intensity(tflops, gbps)
    if measured_bytes is not None and median_us:
        pmc_ai = ai_from_bytes(tflops * 1e12 * median_us * 1e-6, measured_bytes)
        if pmc_ai is not None:
            ai, source = pmc_ai, "pmc"
    if ai is None:
        return None, "effective_gbps is 0", None
    if tflops <= 0:
        return None, "effective_tflops is 0", None
    precision, note = precision_for(peaks, device, str(get("dtype") or ""))
    peak = device.tflops[precision]
    bound, fraction = classify(ai, tflops, peak, device.hbm_tbs, peaks.latency_fraction)
    point = RooflinePoint(
        shape_id=str(get("shape_id") or ""),
        args=_args_text(get("args")),
        provider=str(get("provider") or ""),
        dtype=str(get("dtype") or ""),
        precision=precision,
        median_us=median_us,
        tflops=tflops,
        gbps=gbps,
        ai=ai,
        bytes_source=source,
        roof_tflops=roof_tflops(ai, peak, device.hbm_tbs),
        fraction_of_roof=fraction,
        ridge=ridge_point(peak, device.hbm_tbs),
        bound=bound,
        above_roof=_above_roof_text(tflops, gbps, str(get("dtype") or ""), device),
        clock="call" if str(get("timing_method") or "").strip() == CALL_METHOD else "kernel",
    )
    return point, None, note


def _above_roof_text(tflops: float, gbps: float, dtype: str, device: Device) -> str:
    """What rule 9 says of a row above a roof (HBM first, then compute), or ""."""
    if gbps > ABOVE_ROOF_FACTOR * device.hbm_tbs * 1000:
        return sentence("msg.roof.above", tbs=f"{gbps / 1000:.1f}")
    peak = device.tflops.get(COMPUTE_ROOF_DTYPES.get(dtype.lower(), ""))
    if peak and tflops > COMPUTE_ROOF_FACTOR * peak:
        return sentence("msg.roof.compute", tflops=f"{tflops:,.0f}")
    return ""


def build_roofline(rows: Iterable[Any], device: Device, peaks: Peaks,
                   measured_bytes: Mapping[str, float] | None = None) -> Roofline:
    """Place every benchmark row (dicts with shape_id, args, provider, dtype, median_us,
    effective_tflops, effective_gbps, benchmark_status) on the device's roofline.

    Rows that did not run or lack throughput go to ``skipped`` with the reason.
    ``measured_bytes`` maps shape_id to PMC bytes per call, replacing the row's bytes.
    Points keep input order.
    """
    points: list[RooflinePoint] = []
    skipped: list[tuple[str, str, str]] = []
    notes: list[str] = []
    measured_bytes = measured_bytes or {}
    for row in rows:
        get = _field_getter(row)
        sid = str(get("shape_id") or "")
        point, why, note = _place(get, device, peaks, measured_bytes.get(sid))
        if point is None:
            skipped.append((sid, str(get("provider") or ""), why or "unusable"))
            continue
        points.append(point)
        if note and note not in notes:
            notes.append(note)
    ridges = {p: device.ridge_point(p) for p in sorted(device.tflops)}
    return Roofline(device=device, latency_fraction=peaks.latency_fraction, ridges=ridges,
                    points=points, skipped=skipped, notes=notes)


# ---------------------------------------------------------------- campaigns

RESULTS_FILES = ("benchmark_results.jsonl", "benchmark_results.csv")
#: The fields of a results row the roofline reads (``campaign_roofline``, ``place_shape``).
ROW_FIELDS = ("shape_id", "args", "provider", "dtype", "arch", "benchmark_status", "median_us",
              "effective_tflops", "effective_gbps", "timing_method")


def read_result_rows(campaign_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """Raw result rows of a campaign folder (JSONL preferred, else CSV), as dicts.

    Only the fields the roofline needs are relied on: shape_id, args, provider, dtype,
    arch, benchmark_status, median_us, effective_tflops, effective_gbps.
    """
    import csv

    folder = Path(campaign_dir)
    for name in RESULTS_FILES:
        path = folder / name
        if not path.is_file():
            continue
        if name.endswith(".jsonl"):
            kept = kept_fields(path, ROW_FIELDS)  # those the build's plan kept when it parsed the file
            if kept is not None:
                return kept
            records = results_jsonl(path)  # parsed once with the scoring of the same file
            if not records or not isinstance(records[-1], InputError):
                return [rec for _, rec in records]
        rows: list[dict[str, Any]] = []
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                if name.endswith(".jsonl"):
                    for lineno, line in enumerate(fh, start=1):
                        if line.strip():
                            try:
                                rows.append(jsonio.loads(line))
                            except ValueError as err:
                                raise InputError(path, f"not JSON: {err}", line=lineno) from None
                else:
                    rows = list(csv.DictReader(fh))
        except OSError as err:
            raise InputError(path, f"cannot read: {err.strerror or err}") from None
        except UnicodeDecodeError:
            raise InputError(path, "not UTF-8 text") from None
        return rows
    return []


def campaign_roofline(campaign_dir: str | os.PathLike, config: Any = None,
                      peaks: Peaks | None = None,
                      measured_bytes: Mapping[str, float] | None = None) -> Roofline | None:
    """The roofline of one campaign folder; None when it has no results file.

    The device comes from the config's ``device``, else from the rows' ``arch`` column
    (gfx950 -> MI350X through ``[arch_device]`` of the peaks file).
    """
    rows = read_result_rows(campaign_dir)
    if not rows:
        return None
    peaks = peaks or load_peaks(config)
    archs = sorted({str(r.get("arch")) for r in rows if r.get("arch")})
    device = select_device(peaks, device=_config_raw(config).get("device"),
                           arch=archs[0] if archs else None)
    result = build_roofline(rows, device, peaks, measured_bytes)
    if len(archs) > 1:
        result.notes.append(sentence("msg.roof.archs", archs=", ".join(archs), device=device.key))
    return result
