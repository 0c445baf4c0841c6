"""The published headline pair and the ``kernels.json`` mapping of bundles to campaigns."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import replace
from typing import Any, Iterable, Mapping

from generator.analyze.message import sentence
from generator.analyze.verdicts.clocks import CALL, PAIR_OTHER_SHAPE, UNCHECKED
from generator.analyze.verdicts.rules import UNTIMED, Thresholds, verdict_of_speedup
from generator.analyze.verdicts.shapes import _fmt_x
from generator.config import SweepConfig
from generator.errors import InputError
from generator.model import record

KERNELS_JSON = os.path.join("docs", "data", "kernels.json")
_CAMPAIGN_URL = re.compile(r"benchmarks/examples/([^/]+)/")


@record
class HeadlinePair:
    """The single (candidate us, baseline us) pair the profiling sweep reports for a kernel."""

    kernel: str  # bundle name
    candidate_us: float | None
    baseline_us: float | None
    baseline_name: str | None
    speedup: float
    verdict: str | None  # WIN / PARITY / HEADROOM of this one ratio; None on the call clock (rule 13)
    jit_kernel: str | None = None  # the profiled kernel's name in the bundle's kernel trace
    clock: str | None = None  # kernel / call / unchecked once the campaign is scored (``clocks.pair_clock``)

    @property
    def text(self) -> str:
        """``7.00 us vs 11.60 us (PyTorch), 1.66x``."""
        x = _fmt_x(self.speedup)
        if self.candidate_us is None or self.baseline_us is None:
            return x  # data alone
        c, b = f"{self.candidate_us:.2f}", f"{self.baseline_us:.2f}"
        if self.baseline_name:
            return sentence("msg.headline.pair", c=c, b=b, name=self.baseline_name, x=x)
        return sentence("msg.headline.pair.bare", c=c, b=b, x=x)

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "candidate_us": self.candidate_us,
            "baseline_us": self.baseline_us,
            "baseline_name": self.baseline_name,
            "speedup": self.speedup,
            "verdict": self.verdict,
            "jit_kernel": self.jit_kernel,
            "clock": self.clock,
        }


def on_clock(pair: HeadlinePair | None, clock: str | None) -> HeadlinePair | None:
    """The pair with its clock (VERDICTS rule 13); a pair on the call clock is a reading, not a verdict:
    it keeps its ratio and loses its verdict word (layernorm's 1.02x is call time, not PARITY)."""
    if pair is None:
        return None
    return replace(pair, clock=clock, verdict=None if clock == CALL else pair.verdict)


def read_kernels_json(path: str | os.PathLike) -> dict[str, Any]:
    """Parse a sweep's ``docs/data/kernels.json`` (``{"kernels": [...], ...}``)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise InputError(path, f"not JSON: {err.msg}", line=err.lineno) from None
    if isinstance(data, list):
        data = {"kernels": data}
    if not isinstance(data, dict) or not isinstance(data.get("kernels", []), list):
        raise InputError(path, "expected an object with a \"kernels\" list")
    return data


def load_kernels_json(sweep_root: str | os.PathLike | None) -> dict[str, Any] | None:
    """The sweep's kernels.json, or None when the sweep has none."""
    if sweep_root is None:
        return None
    path = os.path.join(os.fspath(sweep_root), KERNELS_JSON)
    return read_kernels_json(path) if os.path.isfile(path) else None


def kernel_entries(kernels_json: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The kernel objects of a kernels.json that name their bundle (``example``)."""
    if not kernels_json:
        return []
    return [k for k in kernels_json.get("kernels", []) if isinstance(k, dict) and isinstance(k.get("example"), str)]


def entry_campaign(entry: Mapping[str, Any]) -> str | None:
    """The campaign folder named by an entry's ``multishape.summary_url``."""
    multishape = entry.get("multishape")
    url = multishape.get("summary_url") if isinstance(multishape, dict) else None
    m = _CAMPAIGN_URL.search(url) if isinstance(url, str) else None
    return m.group(1) if m else None


def campaign_for_bundle(bundle_name: str, config: SweepConfig | None = None,
                        kernels_json: Mapping[str, Any] | None = None,
                        campaigns: Iterable[str] | None = None) -> str | None:
    """The campaign (op) of a bundle, or None.

    Order: ``[kernels.<bundle>] campaign`` of the configuration (an empty string means
    "none"); the folder that the bundle's ``multishape.summary_url`` names in
    kernels.json; the bundle's own name. When ``campaigns`` (the names that exist) is
    given, a name outside it gives None.
    """
    known = set(campaigns) if campaigns is not None else None
    configured = config.kernel(bundle_name).campaign if config else None
    if configured is not None:
        op: str | None = configured or None
    else:
        op = next((entry_campaign(e) for e in kernel_entries(kernels_json) if e["example"] == bundle_name), None)
        op = op or bundle_name
    if op is not None and known is not None and op not in known:
        return None
    return op


def bundles_for_campaign(op: str, config: SweepConfig | None = None,
                         kernels_json: Mapping[str, Any] | None = None,
                         bundle_names: Iterable[str] = ()) -> list[str]:
    """Bundles whose campaign is ``op``, among the configured, kernels.json and given names."""
    names = list(config.kernels) if config else []
    names += [e["example"] for e in kernel_entries(kernels_json)]
    names += list(bundle_names)
    return [n for n in dict.fromkeys(names) if campaign_for_bundle(n, config, kernels_json) == op]


def headline_pair(entry: Mapping[str, Any], candidate: str = "flydsl",
                  thresholds: Thresholds = Thresholds()) -> HeadlinePair | None:
    """The headline pair of one kernels.json entry (``<candidate>_us``, ``baseline_us``...)."""
    cand_us = _positive(entry.get(f"{candidate}_us", entry.get("candidate_us")))
    base_us = _positive(entry.get("baseline_us"))
    if cand_us is not None and base_us is not None:
        speedup = base_us / cand_us
    else:
        speedup = _positive(entry.get("speedup_vs_baseline"))
    if speedup is None:
        return None
    name = entry.get("baseline_name")
    return HeadlinePair(
        kernel=str(entry.get("example")),
        candidate_us=cand_us,
        baseline_us=base_us,
        baseline_name=name if isinstance(name, str) and name else None,
        speedup=speedup,
        verdict=verdict_of_speedup(speedup, thresholds),
        jit_kernel=entry["jit_kernel"] if isinstance(entry.get("jit_kernel"), str) and entry["jit_kernel"] else None,
    )


def _positive(value: Any) -> float | None:
    """A positive finite number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def headline_for_campaign(op: str, config: SweepConfig | None = None,
                          kernels_json: Mapping[str, Any] | None = None) -> HeadlinePair | None:
    """The headline pair of the first kernels.json kernel whose campaign is ``op``."""
    config = config or SweepConfig()
    thresholds = Thresholds.from_config(config)
    for entry in kernel_entries(kernels_json):
        if campaign_for_bundle(entry["example"], config, kernels_json) == op:
            pair = headline_pair(entry, config.candidate, thresholds)
            if pair:
                return pair
    return None


def headline_note(headline: HeadlinePair | None, score: "KernelScore") -> str | None:
    """A sentence when the headline pair's verdict differs from the multi-shape verdict; for a pair on
    the call clock, a sentence naming its clock instead (no verdict word: VERDICTS rule 10)."""
    if headline is None or score.verdict == UNTIMED:
        return None
    if headline.clock == CALL:
        if headline.candidate_us is None or score.pair_device_us is None:
            return sentence("msg.headline.note.call.bare", pair=headline.text)
        return sentence("msg.headline.note.call", pair=headline.text, us=f"{headline.candidate_us:.1f}",
                        dev=f"{score.pair_device_us:.1f}")
    clock = _unchecked_note(headline, score) if headline.clock == UNCHECKED else None
    differ = _differ_note(headline, score)
    if clock is not None and differ is not None:
        return sentence("msg.headline.note.both", msg_clock=clock, msg_differ=differ)
    return clock or differ


def _differ_note(headline: HeadlinePair, score: "KernelScore") -> str | None:
    """The pair's verdict against the multi-shape verdict, when they differ."""
    if headline.verdict is None or headline.verdict == score.verdict:
        return None
    said = dict(pair=headline.text, hv=headline.verdict, v=score.verdict)
    if not score.verdict_geomean:
        return sentence("msg.headline.note.nogeo", **said)
    g, n = score.verdict_geomean
    key = "msg.headline.note.ref" if score.verdict_reference_only else "msg.headline.note"
    return sentence(key, **said, n=n, g=_fmt_x(g))


def _unchecked_note(headline: HeadlinePair, score: "KernelScore") -> str:
    """Rule 13: no device timer tells which clock the pair is on; say why (flash_attn_func: its trace times
    the kernel at 92.0 us, the pair 9.9 us: the trace ran another shape)."""
    dev, us = score.pair_device_us, headline.candidate_us
    if dev is None or us is None:
        return sentence("msg.headline.note.unchecked.bare", pair=headline.text, kernel=headline.jit_kernel or "")
    key = "msg.headline.note.unchecked.shape" if us < PAIR_OTHER_SHAPE * dev else "msg.headline.note.unchecked"
    return sentence(key, pair=headline.text, kernel=headline.jit_kernel or "", us=f"{us:.1f}", dev=f"{dev:.1f}")
