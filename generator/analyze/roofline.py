"""Roofline: device peaks, ridge point, and a bound label per benchmarked shape.

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

A point carries no bound (``no_bound`` says why, ``counts`` leaves it out, ``left_out`` counts it) when
its row runs above a roof (VERDICTS rule 9), was timed on the call clock (``eager_event``, rule 13), or
is the candidate's where its graph replay misses work (rule 16, ``mark_partial_replay``), or runs below
1.25 x the timing floor (rule 11, ``mark_floor``: the harness's fixed cost sets that time).

Peaks live in ``generator/data/peaks.toml`` (editable); the sweep configuration picks
the device (``device = "MI350X"``) and overrides values in a ``[peaks]`` table. All
functions here are pure: they take dicts and return dataclasses.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from generator.analyze.message import sentence
from generator.errors import InputError
from generator.read import jsonio
from generator.read.jsonl import results_jsonl

PEAKS_FILE = Path(__file__).resolve().parent.parent / "data" / "peaks.toml"
PEAKS_FORMAT_VERSION = 1

BOUND_LABELS = ("memory-bound", "compute-bound", "latency-bound")


@dataclass(frozen=True)
class Device:
    """Peak figures of one device (one entry of peaks.toml)."""

    key: str
    name: str
    vendor: str
    arch: str
    cus: int
    hbm_tbs: float
    tflops: dict[str, float]
    lds_kib_per_cu: float | None = None

    def peak_tflops(self, precision: str) -> float:
        """Dense peak of one precision (KeyError when the device lacks it)."""
        return self.tflops[precision]

    def ridge_point(self, precision: str) -> float:
        """FLOP per byte where the memory roof meets this precision's compute roof."""
        return ridge_point(self.tflops[precision], self.hbm_tbs)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "vendor": self.vendor,
            "arch": self.arch,
            "cus": self.cus,
            "hbm_tbs": self.hbm_tbs,
            "tflops": dict(sorted(self.tflops.items())),
            "lds_kib_per_cu": self.lds_kib_per_cu,
        }


@dataclass
class Peaks:
    """The whole peaks table after configuration overrides."""

    devices: dict[str, Device]
    arch_device: dict[str, str]
    precision: dict[str, str]
    default_precision: str
    latency_fraction: float
    source: str = "peaks.toml"
    raw_devices: dict[str, Any] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)  # applied to the chosen device


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


@dataclass
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


@dataclass
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


def ridge_point(peak_tflops: float, peak_tbs: float) -> float:
    """Ridge point in FLOP/byte: peak TFLOP/s / peak TB/s (both per 1e12)."""
    if peak_tbs <= 0:
        raise ValueError("peak bandwidth must be positive")
    return peak_tflops / peak_tbs


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


# ---------------------------------------------------------------- peaks file


def _merge(base: dict, over: Mapping) -> dict:
    """Deep-merge ``over`` into a copy of ``base`` (tables merge, values replace)."""
    out = copy.deepcopy(base)
    for key, val in over.items():
        if isinstance(val, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], val)
        else:
            out[key] = copy.deepcopy(val)
    return out


#: Parsed peaks files by (path, size, modification time): a build loads the peaks once per
#: kernel and campaign, and parsing the TOML each time cost ~0.1 s a build.
_PARSED: dict[tuple[str, int, int], dict[str, Any]] = {}


def read_peaks_file(path: str | os.PathLike | None = None) -> dict[str, Any]:
    """Parse a peaks TOML file (the packaged one by default) into a plain dict (a fresh copy:
    the caller may change it)."""
    path = Path(path) if path is not None else PEAKS_FILE
    try:
        st = os.stat(path)
        key = (os.fspath(path), st.st_size, st.st_mtime_ns)
        if key not in _PARSED:
            with open(path, "rb") as fh:
                _PARSED[key] = tomllib.load(fh)
        return copy.deepcopy(_PARSED[key])
    except OSError as err:
        raise InputError(path, f"cannot read peaks file: {err.strerror or err}") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(path, f"not valid TOML: {err}") from None


def _device(key: str, raw: Mapping[str, Any], where: str) -> Device:
    """Validate one device table."""
    try:
        tflops = {str(k): float(v) for k, v in dict(raw.get("tflops") or {}).items()}
        hbm = float(raw["hbm_tbs"])
        dev = Device(
            key=key,
            name=str(raw.get("name") or key),
            vendor=str(raw.get("vendor") or ""),
            arch=str(raw.get("arch") or ""),
            cus=int(raw.get("cus") or 0),
            hbm_tbs=hbm,
            tflops=tflops,
            lds_kib_per_cu=(
                float(raw["lds_kib_per_cu"]) if raw.get("lds_kib_per_cu") is not None else None
            ),
        )
    except KeyError as err:
        raise InputError(where, f"device {key!r} lacks {err.args[0]!r}") from None
    except (TypeError, ValueError) as err:
        raise InputError(where, f"device {key!r} has a bad value: {err}") from None
    if dev.hbm_tbs <= 0 or not dev.tflops or any(v <= 0 for v in dev.tflops.values()):
        raise InputError(where, f"device {key!r} needs hbm_tbs > 0 and positive tflops")
    return dev


def build_peaks(raw: Mapping[str, Any], config_peaks: Mapping[str, Any] | None = None,
                source: str = "peaks.toml") -> Peaks:
    """Peaks from a parsed peaks file, with the config's ``[peaks]`` overrides applied.

    ``config_peaks`` keys: ``devices`` (tables merged into the device list),
    ``classify``, ``precision``, ``arch_device`` (merged), anything else overrides a
    field of whichever device is chosen later (e.g. ``hbm_tbs = 7.2``,
    ``tflops = {bf16 = 2000}``): see ``select_device``.
    """
    raw = dict(raw)
    version = raw.get("format_version", PEAKS_FORMAT_VERSION)
    if version != PEAKS_FORMAT_VERSION:
        raise InputError(source, f"peaks format_version {version!r} is not supported (this tool "
                                 f"reads {PEAKS_FORMAT_VERSION}); copy the packaged peaks.toml and edit it")
    over = dict(config_peaks or {})
    for table in ("devices", "classify", "precision", "arch_device"):
        if table in over:
            if not isinstance(over[table], Mapping):
                raise InputError(source, f"[peaks.{table}] must be a table")
            raw[table] = _merge(dict(raw.get(table) or {}), over.pop(table))
    devices_raw = dict(raw.get("devices") or {})
    devices = {k: _device(k, v, source) for k, v in sorted(devices_raw.items())}
    if not devices:
        raise InputError(source, "no [devices.*] table")
    if over:  # check the overrides now, on every device, so a typo fails early
        for key, dev_raw in devices_raw.items():
            _device(key, _merge(dev_raw, over), "[peaks] in the configuration")
    precision = {str(k): str(v) for k, v in dict(raw.get("precision") or {}).items()}
    default_precision = precision.pop("default_precision", "bf16")
    classify_raw = dict(raw.get("classify") or {})
    try:
        latency_fraction = float(classify_raw.get("latency_fraction", 0.25))
    except (TypeError, ValueError):
        raise InputError(source, "classify.latency_fraction must be a number") from None
    return Peaks(
        devices=devices,
        arch_device={str(k): str(v) for k, v in dict(raw.get("arch_device") or {}).items()},
        precision=precision,
        default_precision=default_precision,
        latency_fraction=latency_fraction,
        source=source,
        raw_devices=devices_raw,
        overrides=over,
    )


def _config_raw(config: Any) -> dict[str, Any]:
    """The raw dict of a loaded config object (``.raw``) or a plain dict; {} for None."""
    if config is None:
        return {}
    raw = getattr(config, "raw", config)
    return dict(raw) if isinstance(raw, Mapping) else {}


def load_peaks(config: Any = None, path: str | os.PathLike | None = None) -> Peaks:
    """Peaks of the packaged file (or ``path``) with the configuration's overrides.

    ``config`` is the object of ``generator.config.load_config`` (its ``.raw`` dict is
    read) or a plain dict with optional keys ``device`` and ``peaks``.
    """
    cfg = _config_raw(config)
    key = _peaks_key(path, cfg.get("peaks") or {})
    if key in _LOADED:
        return _LOADED[key]
    raw = read_peaks_file(path)
    source = "peaks.toml" if path is None else os.path.basename(str(path))
    peaks_over = cfg.get("peaks") or {}
    if not isinstance(peaks_over, Mapping):
        raise InputError("config", "[peaks] must be a table")
    peaks = build_peaks(raw, peaks_over, source=source)
    if key is not None:
        while len(_LOADED) >= 8:
            del _LOADED[next(iter(_LOADED))]
        _LOADED[key] = peaks
    return peaks


#: Peaks built by ``load_peaks``, by peaks file (path, size, modification time) and the overrides'
#: text: a build asks for the same ones per kernel, campaign and capture. Shared: read-only.
_LOADED: dict[tuple, Peaks] = {}


def _peaks_key(path: str | os.PathLike | None, overrides: Any) -> tuple | None:
    """The ``_LOADED`` key of a peaks file with these overrides; None when the file cannot be read."""
    path = Path(path) if path is not None else PEAKS_FILE
    try:
        st = os.stat(path)
    except OSError:
        return None
    return os.fspath(path), st.st_size, st.st_mtime_ns, repr(overrides)


def select_device(peaks: Peaks, device: str | None = None, arch: str | None = None) -> Device:
    """The named device, else the one mapped to ``arch``; InputError when neither works.

    Names match a device key or its full name, case-insensitively ("mi350x",
    "AMD Instinct MI350X"). The configuration's field overrides (``[peaks]``
    ``hbm_tbs = ...``) are applied to the device returned.
    """
    return _with_overrides(peaks, _pick_device(peaks, device, arch))


def find_device(peaks: Peaks, name: str) -> Device | None:
    """The device a GPU name means: its key or full name, or a name that holds its key
    as a word (``"NVIDIA H200"`` -> H200_SXM when only one key matches); else None."""
    want = name.strip().lower()
    for key, dev in peaks.devices.items():
        if want in (key.lower(), dev.name.lower()):
            return _with_overrides(peaks, dev)
    words = set(want.replace("-", " ").split())
    hits = [dev for key, dev in peaks.devices.items() if key.lower().split("_")[0] in words]
    return _with_overrides(peaks, hits[0]) if len(hits) == 1 else None


def _pick_device(peaks: Peaks, device: str | None, arch: str | None) -> Device:
    if device:
        want = device.strip().lower()
        for key, dev in peaks.devices.items():
            if want in (key.lower(), dev.name.lower()):
                return dev
        raise InputError(
            peaks.source, f"unknown device {device!r} (known: {', '.join(sorted(peaks.devices))})"
        )
    if arch:
        key = peaks.arch_device.get(arch)
        if key and key in peaks.devices:
            return peaks.devices[key]
        for dev in peaks.devices.values():
            if dev.arch == arch:
                return dev
        raise InputError(peaks.source, f"no device for arch {arch!r}: add one or set `device`")
    raise InputError(peaks.source, "no device chosen: set `device` in the config or give an arch")


def _with_overrides(peaks: Peaks, dev: Device) -> Device:
    """The device with the configuration's field overrides applied."""
    if not peaks.overrides:
        return dev
    return _device(dev.key, _merge(peaks.raw_devices[dev.key], peaks.overrides), "[peaks]")


def resolve_device(config: Any = None, arch: str | None = None,
                   peaks: Peaks | None = None) -> Device:
    """The device of a sweep: config ``device`` first, else by arch (gfx950 -> MI350X)."""
    peaks = peaks or load_peaks(config)
    return select_device(peaks, device=_config_raw(config).get("device"), arch=arch)


def precision_for(peaks: Peaks, device: Device, dtype: str | None) -> tuple[str, str | None]:
    """Compute-peak precision for a dtype, plus a note when it fell back."""
    dt = (dtype or "").strip().lower()
    prec = peaks.precision.get(dt)
    if prec and prec in device.tflops:
        return prec, None
    fallback = peaks.default_precision if peaks.default_precision in device.tflops else sorted(device.tflops)[0]
    if prec:
        return fallback, sentence("msg.roof.noprec", prec=prec, device=device.key, fallback=fallback)
    return fallback, sentence("msg.roof.nomap", dtype=dtype or "?", fallback=fallback)


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
