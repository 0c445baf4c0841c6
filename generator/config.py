"""The sweep configuration: ``kernel-atlas.toml`` at the sweep root, every key optional.

Read with the standard library's ``tomllib``. Without the file every default below
applies: candidate ``flydsl``, thresholds 1.05 / 0.95, same-name matching between
bundles and campaigns (or what ``docs/data/kernels.json`` says), provenance read
from the benchmark results. Example::

    title = "FlyDSL kernels on MI350X"
    candidate = "flydsl"          # provider whose speed is judged
    reference = "pytorch"         # reference provider (flag `reference_only`)
    device = "MI350X"             # device whose peaks the roofline uses

    [thresholds]
    win = 1.05                    # geomean >= win: WIN
    headroom = 0.95               # geomean < headroom: HEADROOM; between: PARITY

    [weighting]
    keys = ["baseline_time_weight", "traffic_weight"]   # first key set on a shape wins

    [kernels.pa]                  # one table per bundle (examples/<name>/)
    campaign = "pa_decode"        # its campaign folder (benchmarks/examples/<campaign>/); "" = none
    name = "Paged-Attn Decode"
    category = "attention"

    [campaigns.attn_fwd]          # one table per campaign (benchmarks/examples/<op>/)
    candidate = "flydsl_auto"     # the provider judged there (default: flydsl, else auto)
    clock = "call"                # its times' clock (VERDICTS rule 13; default: what the files say)
    supersedes = "attn_fwd_v1"    # an older campaign of the same op: shown, linked, not counted

    [provenance]                  # shown as-is; overrides what the results say
    gpu = "AMD Instinct MI350X"
    rocm = "7.2.0"

    [peaks]                       # overrides for the roofline stage (generator.analyze.device_peaks)
    hbm_tbs = 7.2

    [history]
    keep = 20                     # sweeps kept in the history

    [verdicts]
    floor_us = 12.8               # the harness's timing floor (VERDICTS rule 11; default: measured)
    replay_cost_us = 7.76         # the graph replay's fixed cost beside a verdict (default: measured)

    [severity]                    # how far a HEADROOM geomean sits from parity
    near = 0.90                   # geomean >= near: "near" (tune the last shapes)
    tune = 0.75                   # tune <= geomean < near: "tune"; below tune: "rewrite"

Unknown keys are kept in ``SweepConfig.raw`` (other stages read their own sections
there); keys this module knows are type-checked, and a bad value or a TOML syntax
error is an ``InputError`` naming the file (and the line for syntax errors).
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import field
from typing import Any

from generator.errors import InputError
from generator.model import record

CONFIG_NAME = "kernel-atlas.toml"

DEFAULT_CANDIDATE = "flydsl"
DEFAULT_REFERENCE = "pytorch"
DEFAULT_WIN = 1.05
DEFAULT_HEADROOM = 0.95
DEFAULT_WEIGHT_KEYS = ("baseline_time_weight", "traffic_weight")
DEFAULT_SEVERITY_NEAR = 0.90
DEFAULT_SEVERITY_TUNE = 0.75

_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)")


@record
class KernelSettings:
    """What ``[kernels.<bundle>]`` says about one kernel (all optional)."""

    campaign: str | None = None
    name: str | None = None
    category: str | None = None


@record
class SweepConfig:
    """The parsed ``kernel-atlas.toml`` (or the defaults when there is none).

    ``raw`` is the whole parsed document, unknown keys included, so that other
    stages (roofline: ``device`` and ``[peaks]``; history: ``[history]``) read their
    own sections. ``path`` is None when the defaults are in use.
    """

    path: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    title: str | None = None
    candidate: str = DEFAULT_CANDIDATE
    reference: str | None = None  # None: the campaign's baseline_matrix.yaml, else "pytorch"
    win: float = DEFAULT_WIN
    headroom: float = DEFAULT_HEADROOM
    weight_keys: tuple[str, ...] = DEFAULT_WEIGHT_KEYS
    kernels: dict[str, KernelSettings] = field(default_factory=dict)
    provenance: dict[str, str] = field(default_factory=dict)
    device: str | None = None
    peaks: dict[str, Any] = field(default_factory=dict)
    history_keep: int | None = None
    severity_near: float = DEFAULT_SEVERITY_NEAR
    severity_tune: float = DEFAULT_SEVERITY_TUNE
    floor_us: float | None = None  # None: the lowest usable time of the sweep (VERDICTS rule 11)
    replay_cost_us: float | None = None  # None: measured on the sweep's libraries ("Numbers beside a verdict")
    op_candidates: dict[str, str] = field(default_factory=dict)  # [campaigns.<op>] candidate
    op_clocks: dict[str, str] = field(default_factory=dict)  # [campaigns.<op>] clock: "kernel" | "call"
    op_supersedes: dict[str, str] = field(default_factory=dict)  # [campaigns.<op>] supersedes = "<older op>"

    @property
    def superseded(self) -> dict[str, str]:
        """Older op -> the op that supersedes it (shown, linked, not counted)."""
        return {old: new for new, old in sorted(self.op_supersedes.items())}

    @property
    def campaigns(self) -> dict[str, str]:
        """Bundle name -> campaign name, for the bundles whose campaign is configured."""
        return {b: k.campaign for b, k in sorted(self.kernels.items()) if k.campaign}

    def kernel(self, name: str) -> KernelSettings:
        """Settings of one bundle (or campaign) name; empty settings when not configured."""
        return self.kernels.get(name) or KernelSettings()


def load_config(sweep_root: str | os.PathLike | None) -> SweepConfig:
    """Read ``kernel-atlas.toml`` at the sweep root; the defaults when it is absent."""
    if sweep_root is None:
        return SweepConfig()
    path = os.path.join(os.fspath(sweep_root), CONFIG_NAME)
    if not os.path.isfile(path):
        return SweepConfig()
    return read_config(path)


def read_config(path: str | os.PathLike) -> SweepConfig:
    """Parse one configuration file (any name)."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
    except OSError as err:
        raise InputError(path, f"cannot read configuration: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        msg = str(err)
        m = _TOML_LINE.search(msg)
        problem = _TOML_LINE.sub("", msg).strip() or "invalid TOML"
        raise InputError(path, f"invalid TOML: {problem}", line=int(m.group(1)) if m else None) from None
    return config_from_dict(raw, path)


def config_from_dict(raw: dict[str, Any], path: str | None = None) -> SweepConfig:
    """Build and type-check a ``SweepConfig`` from a parsed TOML document."""
    where = path or CONFIG_NAME
    thresholds = _table(raw, "thresholds", where)
    weighting = _table(raw, "weighting", where)
    history = _table(raw, "history", where)
    severity = _table(raw, "severity", where)
    verdicts = _table(raw, "verdicts", where)
    cfg = SweepConfig(
        path=path,
        raw=raw,
        title=_str(raw, "title", where),
        candidate=_str(raw, "candidate", where) or DEFAULT_CANDIDATE,
        reference=_str(raw, "reference", where),
        win=_number(thresholds, "win", where, "thresholds.win", DEFAULT_WIN),
        headroom=_number(thresholds, "headroom", where, "thresholds.headroom", DEFAULT_HEADROOM),
        weight_keys=_str_list(weighting, "keys", where, "weighting.keys", DEFAULT_WEIGHT_KEYS),
        kernels=_kernels(raw, where),
        provenance=_str_table(raw, "provenance", where),
        device=_str(raw, "device", where),
        peaks=dict(_table(raw, "peaks", where)),
        history_keep=_int(history, "keep", where, "history.keep"),
        floor_us=_number(verdicts, "floor_us", where, "verdicts.floor_us", 1.0) if "floor_us" in verdicts else None,
        replay_cost_us=(_number(verdicts, "replay_cost_us", where, "verdicts.replay_cost_us", 0.0)
                        if "replay_cost_us" in verdicts else None),
        op_candidates=_op_candidates(raw, where),
        op_clocks=_op_settings(raw, where, "clock", CLOCKS),
        op_supersedes=_op_settings(raw, where, "supersedes"),
    )
    # defaults follow a lower headroom threshold, so that [thresholds] alone stays valid
    cfg.severity_near = _number(severity, "near", where, "severity.near", min(DEFAULT_SEVERITY_NEAR, cfg.headroom))
    cfg.severity_tune = _number(severity, "tune", where, "severity.tune", min(DEFAULT_SEVERITY_TUNE, cfg.severity_near))
    if not 0 < cfg.headroom <= cfg.win:
        raise InputError(where, f"thresholds need 0 < headroom <= win (got headroom {cfg.headroom}, win {cfg.win})")
    if not cfg.severity_tune <= cfg.severity_near <= cfg.headroom:
        raise InputError(where, f"severity needs tune <= near <= thresholds.headroom (got tune {cfg.severity_tune}, "
                                f"near {cfg.severity_near}, headroom {cfg.headroom})")
    return cfg


def _op_candidates(raw: dict[str, Any], where: str) -> dict[str, str]:
    """``[campaigns.<op>] candidate``: the provider judged in one campaign (op -> provider)."""
    out = {}
    for op, spec in _table(raw, "campaigns", where).items():
        if not isinstance(spec, dict):
            raise InputError(where, f"[campaigns.{op}] must be a table, got {type(spec).__name__}")
        candidate = _str(spec, "candidate", where, f"campaigns.{op}.candidate")
        if candidate:
            out[str(op)] = candidate
    return out


#: The clocks ``[campaigns.<op>] clock`` may name (VERDICTS rule 13).
CLOCKS = ("kernel", "call")


def _op_settings(raw: dict[str, Any], where: str, key: str, allowed: tuple[str, ...] = ()) -> dict[str, str]:
    """``[campaigns.<op>] <key>`` as op -> value (a string, one of ``allowed`` when given)."""
    out = {}
    for op, spec in _table(raw, "campaigns", where).items():
        value = _str(spec, key, where, f"campaigns.{op}.{key}") if isinstance(spec, dict) else None
        if value and allowed and value not in allowed:
            raise InputError(where, f"campaigns.{op}.{key} must be one of {', '.join(allowed)}, got {value!r}")
        if value:
            out[str(op)] = value
    return out


def _table(raw: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    """A sub-table, {} when absent."""
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise InputError(where, f"[{key}] must be a table, got {type(value).__name__}")
    return value


def _str(raw: dict[str, Any], key: str, where: str, label: str | None = None) -> str | None:
    """An optional string value."""
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(where, f"{label or key} must be a string, got {value!r}")
    return value


def _number(raw: dict[str, Any], key: str, where: str, label: str, default: float) -> float:
    """An optional positive finite number."""
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise InputError(where, f"{label} must be a positive number, got {value!r}")
    return float(value)


def _int(raw: dict[str, Any], key: str, where: str, label: str) -> int | None:
    """An optional non-negative integer."""
    value = raw.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise InputError(where, f"{label} must be a non-negative integer, got {value!r}")
    return value


def _str_list(raw: dict[str, Any], key: str, where: str, label: str,
              default: tuple[str, ...]) -> tuple[str, ...]:
    """An optional list of strings."""
    value = raw.get(key)
    if value is None:
        return default
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(where, f"{label} must be a list of strings, got {value!r}")
    return tuple(value)


def _str_table(raw: dict[str, Any], key: str, where: str) -> dict[str, str]:
    """A table of scalar values, rendered as strings."""
    out = {}
    for k, v in _table(raw, key, where).items():
        if isinstance(v, (dict, list)):
            raise InputError(where, f"{key}.{k} must be a string, got a {type(v).__name__}")
        out[k] = v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)
    return out


def _kernels(raw: dict[str, Any], where: str) -> dict[str, KernelSettings]:
    """The ``[kernels.<name>]`` tables."""
    out = {}
    for name, table in _table(raw, "kernels", where).items():
        if not isinstance(table, dict):
            raise InputError(where, f"kernels.{name} must be a table, got {table!r}")
        out[name] = KernelSettings(
            campaign=_str(table, "campaign", where, f"kernels.{name}.campaign"),
            name=_str(table, "name", where, f"kernels.{name}.name"),
            category=_str(table, "category", where, f"kernels.{name}.category"),
        )
    return out
