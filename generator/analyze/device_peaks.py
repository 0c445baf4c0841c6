"""Device peaks: the peaks file, the configuration's overrides, and the device a sweep runs on.

Peaks live in ``generator/data/peaks.toml`` (editable); the sweep configuration picks
the device (``device = "MI350X"``) and overrides values in a ``[peaks]`` table. This module
reads and validates that file (``read_peaks_file``, ``build_peaks``, ``load_peaks``), picks a
device by name or arch (``select_device``, ``find_device``, ``resolve_device``) and maps a dtype
to the precision whose compute peak applies (``precision_for``). Units: throughput in TFLOP/s,
bandwidth in TB/s (1e12 bytes/s); ``ridge_point`` is peak TFLOP/s / peak TB/s (FLOP/byte).
The roofline itself (``generator.analyze.roofline``) places benchmark rows against these peaks.
"""

from __future__ import annotations

import copy
import os
import tomllib
from dataclasses import field
from pathlib import Path
from typing import Any, Mapping

from generator.analyze.message import sentence
from generator.errors import InputError
from generator.model import record

PEAKS_FILE = Path(__file__).resolve().parent.parent / "data" / "peaks.toml"
PEAKS_FORMAT_VERSION = 1


@record(frozen=True)
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


@record
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


# ---------------------------------------------------------------- the ridge


def ridge_point(peak_tflops: float, peak_tbs: float) -> float:
    """Ridge point in FLOP/byte: peak TFLOP/s / peak TB/s (both per 1e12)."""
    if peak_tbs <= 0:
        raise ValueError("peak bandwidth must be positive")
    return peak_tflops / peak_tbs


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
