"""Is the profiled kernel the timed one? (DOMAIN §1.7)

A FlyDSL capture's kernel name carries its compile-time configuration, e.g.
``hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0`` (tile 32x64x256, 2 stages, split-K 14)
or ``mfma_moe1_bs_fp8_f16_cshuffle_t16x256x128_wpe2_abi8`` (tile 16x256x128); a campaign row
carries its own in ``provider_detail``: ``kwargs={'TILE_M': 128, 'TILE_N': 128, 'TILE_K': 64,
'STAGES': 4, 'SPLIT_K': 1, ...}`` or ``tile_m=16 tile_n=256 tile_k=128``. ``check`` compares the
capture with the candidate's timed rows on the keys both carry (tile, stages, split-K).
Pure functions: no file is read here.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Any, Iterable

#: The configuration keys compared, in the order they are said.
KEYS = ("tile", "stages", "split_k")

_NAME_TILE = re.compile(r"(?:^|_)t?(\d+)x(\d+)x(\d+)(?=_|$)")
_NAME_STAGES = re.compile(r"(?:^|_)S(\d+)(?=_|$)")
_NAME_SPLIT = re.compile(r"(?:^|_)SPK(\d+)(?=_|$)")
_KWARGS = re.compile(r"kwargs=(\{[^{}]*\})")
_PAIR = re.compile(r"\b([A-Za-z_]+)\s*=\s*(\d+)\b")
#: Names a detail may give each part of the configuration (case-insensitive).
_TILE_NAMES = (("tile_m", "block_m"), ("tile_n", "block_n"), ("tile_k", "block_k"))
_STAGE_NAMES = ("stages", "num_stages", "lds_stage", "lds_stages")
_SPLIT_NAMES = ("split_k", "splitk")


def capture_config(kernel_name: str | None) -> dict[str, Any] | None:
    """The configuration a FlyDSL kernel name carries (``tile`` "MxNxK", ``stages``, ``split_k``),
    only the parts it names; None when it names none (``kernel_gemm_0``)."""
    name = kernel_name or ""
    out: dict[str, Any] = {}
    m = _NAME_TILE.search(name)
    if m:
        out["tile"] = "x".join(m.groups())
    m = _NAME_STAGES.search(name)
    if m:
        out["stages"] = int(m[1])
    m = _NAME_SPLIT.search(name)
    if m:
        out["split_k"] = int(m[1])
    return out or None


def _detail_values(detail: str) -> dict[str, int]:
    """Integer settings of a ``provider_detail``: its ``kwargs={...}`` dict, else its ``name=N`` pairs."""
    m = _KWARGS.search(detail)
    if m:
        try:
            kw = ast.literal_eval(m[1])
        except (ValueError, SyntaxError):
            kw = None
        if isinstance(kw, dict):
            return {str(k).lower(): v for k, v in kw.items() if isinstance(v, int) and not isinstance(v, bool)}
    return {k.lower(): int(v) for k, v in _PAIR.findall(detail)}


def _first(values: dict[str, int], names: Iterable[str]) -> int | None:
    return next((values[n] for n in names if n in values), None)


def detail_config(detail: str | None) -> dict[str, Any] | None:
    """The configuration a campaign row's ``provider_detail`` carries (same keys as
    ``capture_config``); None when it carries none."""
    if not detail:
        return None
    values = _detail_values(detail)
    out: dict[str, Any] = {}
    tile = [_first(values, names) for names in _TILE_NAMES]
    if all(t is not None for t in tile):
        out["tile"] = "x".join(str(t) for t in tile)
    for key, names in (("stages", _STAGE_NAMES), ("split_k", _SPLIT_NAMES)):
        v = _first(values, names)
        if v is not None:
            out[key] = v
    return out or None


def _differs(capture: dict[str, Any], timed: dict[str, Any]) -> list[str]:
    return [k for k in KEYS if k in capture and k in timed and capture[k] != timed[k]]


def check(kernel_name: str | None, details: Iterable[str | None]) -> dict[str, Any] | None:
    """The configuration check of a capture against the candidate's timed rows' details.

    ``{capture: {...}, timed: [{config, rows}], unread: n, matches, differs}``: ``timed`` lists the
    distinct configurations of the rows (most rows first, then first seen), ``unread`` the rows
    without one. ``matches`` is True when some timed configuration agrees with the capture on every
    key both carry, False when none does (``differs``: the keys on which the closest one
    disagrees), None when nothing can be compared. None when the capture's name carries no
    configuration."""
    cap = capture_config(kernel_name)
    if cap is None:
        return None
    counts: Counter = Counter()
    order: dict[tuple, dict[str, Any]] = {}
    unread = 0
    for d in details:
        cfg = detail_config(d)
        if cfg is None:
            unread += 1
            continue
        key = tuple(sorted(cfg.items()))
        order.setdefault(key, cfg)
        counts[key] += 1
    ranked = sorted(order, key=lambda key: -counts[key])  # stable: first seen among equals
    timed = [{"config": order[key], "rows": counts[key]} for key in ranked]
    comparable = [t["config"] for t in timed if any(k in cap and k in t["config"] for k in KEYS)]
    if not comparable:
        return {"capture": cap, "timed": timed, "unread": unread, "matches": None, "differs": []}
    diffs = [_differs(cap, cfg) for cfg in comparable]
    closest = min(diffs, key=len)
    return {"capture": cap, "timed": timed, "unread": unread, "matches": not closest, "differs": closest}


def differs_by(result: dict[str, Any] | None) -> bool:
    """True when a check found the capture to be another configuration than every timed row's."""
    return bool(result) and result.get("matches") is False
