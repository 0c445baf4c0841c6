"""PMC counters (L2 / HBM): DOMAIN §2 metrics of one kernel from its counter samples.

Three inputs, one sample type (``CounterSample``: one counter value of one dispatch): rocprofv3's
counter collection CSVs, rocpd SQLite databases and rocprof-compute's ``pmc_perf.csv``. Finding and
reading them is ``generator.read.counter_files``'s (the CSV readers live in ``generator.read.counters``);
this module sums the samples of the chosen kernel and reads the metrics in plain language.

Metrics (sums over the dispatches of the chosen kernel, DOMAIN §2)::

    L2 hit rate    = TCC_HIT / (TCC_HIT + TCC_MISS)
    32B fraction   = TCC_EA0_RDREQ_32B / TCC_EA0_RDREQ
    est. HBM read  = ((RDREQ - RDREQ_32B) * 64 + RDREQ_32B * 32) * ea_channels
                     (gfx940-942 with TCC_BUBBLE: rocprof-compute's formula, 128 * BUBBLE +
                     64 * (RDREQ - BUBBLE - RDREQ_32B) + 32 * RDREQ_32B; ``hbm_formula`` says which)
    over-fetch     = est. HBM read / (ideal bytes per dispatch * dispatches with RDREQ)
    achieved BW    = ideal bytes per dispatch / mean kernel time

Derived counters (``L2CacheHit``: ``read.counters.is_derived``) are shown as their mean over the
dispatches, never their sum. Counters of different passes come from different replays, so each counter keeps its
own dispatch count; ratios use per-dispatch means, which equal the plain sums when the
counts agree (the normal case).
"""

from __future__ import annotations

import os
import re
import statistics
from dataclasses import field
from pathlib import Path
from typing import Any

from generator.read.counter_files import find_counter_files, is_sqlite, read_counter_file, rocpd_gpu_arch
from generator.analyze.message import sentence
from generator.errors import InputError
from generator.model import FORMAT_VERSION, record
from generator.read.counters import PASS_MEAN, CounterSample, Samples, is_derived, sibling_arch

TCC_HIT = "TCC_HIT"
TCC_MISS = "TCC_MISS"
RDREQ = "TCC_EA0_RDREQ"
RDREQ_32B = "TCC_EA0_RDREQ_32B"
#: Counters the analysis uses; every other counter is kept and shown as is.
KNOWN_COUNTERS = (TCC_HIT, TCC_MISS, RDREQ, RDREQ_32B)
#: Another name of a known counter: MI100 (gfx908) has one EA interface a channel, and
#: rocprof-compute / Omniperf name its read requests without the index (``TCC_EA_RDREQ_sum``).
ALIASES = {RDREQ: "TCC_EA_RDREQ", RDREQ_32B: "TCC_EA_RDREQ_32B"}

BUBBLE = "TCC_BUBBLE"  # gfx942: TCC read requests of 128 B
DEFAULT_EA_CHANNELS = 2
#: How an est. HBM read byte count was worked out (``PmcResult.hbm_formula``).
HBM_FORMULAS = {
    "64B": "((RDREQ - RDREQ_32B) x 64 + RDREQ_32B x 32) x EA channels",
    "gfx942": "rocprof-compute's gfx942 formula: 128 x TCC_BUBBLE + 64 x (RDREQ - TCC_BUBBLE - RDREQ_32B) "
              "+ 32 x RDREQ_32B",
    "gfx908": "rocprof-compute's gfx908 formula: 64 x (TCC_EA_RDREQ_sum - TCC_EA_RDREQ_32B_sum) "
              "+ 32 x TCC_EA_RDREQ_32B_sum",
}
#: Architectures whose TCC issues 128 B read requests that TCC_BUBBLE counts (MI300: gfx940/941/942).
BUBBLE_ARCHS = ("gfx940", "gfx941", "gfx942")

#: Thresholds of the plain-language reading (DOMAIN §2).
STREAMING_HIT_RATE = 0.05  # below: pure streaming
FULL_LINE_32B_FRACTION = 0.05  # at or below: full 64B lines
OVER_FETCH_OK = (0.95, 1.10)  # inside: no redundant reads
NORMAL_STREAMING_BW = (0.50, 0.60)  # of peak: normal for clean streaming

#: Kernel names of a paged-KV decode (paged attention), the one op where streaming L2 is expected.
PAGED_KV = re.compile(r"pa_decode|paged_?attention|paged_?kv|pa_fwd|paged", re.IGNORECASE)
_INSTANCE = re.compile(r"^(?P<base>.+?)\[(?P<idx>\d+)\]$")


@record
class CounterSum:
    """A counter summed over the matched dispatches."""

    name: str
    total: float
    dispatches: int

    @property
    def mean(self) -> float:
        return self.total / self.dispatches if self.dispatches else 0.0

    @property
    def derived(self) -> bool:
        """A ratio, percentage or rate (``L2CacheHit``): its mean over dispatches, never its sum."""
        return is_derived(self.name)


@record
class PmcResult:
    """DOMAIN §2 metrics of one kernel over one set of counter files."""

    files: list[str]
    kernel_filter: str | None
    kernels: list[str]  # distinct matched kernel names, sorted
    dispatches: int  # distinct (file, dispatch id) pairs matched
    dispatches_by_file: dict[str, int]
    counters: dict[str, CounterSum]  # every counter seen, by name
    counter_names: dict[str, str]  # known counter -> the name it was read from
    missing: list[str]  # known counters absent
    l2_hit_rate: float | None
    frac_32b: float | None
    hbm_read_bytes: float | None
    ea_channels: int
    ideal_bytes: float | None  # per dispatch
    over_fetch: float | None
    kernel_time_ns: float | None  # mean over matched dispatches with timestamps
    timed_dispatches: int
    achieved_gbps: float | None
    peak_tbs: float | None
    peak_name: str | None
    arch: str | None = None
    hbm_formula: str | None = None  # HBM_FORMULAS key of the est. HBM read bytes
    timestamps: dict[str, str] = field(default_factory=dict)  # file -> which pass its kernel times come from
    rows_read: int = 0  # counter samples read from all files, before the kernel filter
    reading: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def unknown_counters(self) -> list[str]:
        """Counters this analysis does not use (kept and shown), sorted."""
        used = set(self.counter_names.values())
        return sorted(n for n in self.counters if n not in used)

    @property
    def bw_fraction(self) -> float | None:
        if self.achieved_gbps is None or not self.peak_tbs:
            return None
        return self.achieved_gbps / (self.peak_tbs * 1000.0)

    def to_json(self) -> dict[str, Any]:
        """The ``pmc --json`` object (sorted, no absolute paths beyond what was given)."""
        return {
            "format_version": FORMAT_VERSION,
            "files": list(self.files),
            "kernel_filter": self.kernel_filter,
            "kernels": list(self.kernels),
            "dispatches": self.dispatches,
            "dispatches_by_file": dict(sorted(self.dispatches_by_file.items())),
            "counters": {
                n: {"total": None if c.derived else c.total, "dispatches": c.dispatches, "mean": c.mean,
                    **({"derived": True} if c.derived else {})}
                for n, c in sorted(self.counters.items())
            },
            "hbm_formula": self.hbm_formula,
            "timestamps": dict(sorted(self.timestamps.items())),
            "counter_names": dict(sorted(self.counter_names.items())),
            "unknown_counters": self.unknown_counters,
            "missing_counters": list(self.missing),
            "l2_hit_rate": self.l2_hit_rate,
            "frac_32b": self.frac_32b,
            "hbm_read_bytes": self.hbm_read_bytes,
            "ea_channels": self.ea_channels,
            "ideal_bytes": self.ideal_bytes,
            "over_fetch": self.over_fetch,
            "kernel_time_ns": self.kernel_time_ns,
            "timed_dispatches": self.timed_dispatches,
            "achieved_gbps": self.achieved_gbps,
            "peak_tbs": self.peak_tbs,
            "peak_name": self.peak_name,
            "bw_fraction": self.bw_fraction,
            "arch": self.arch,
            "rows_read": self.rows_read,
            "reading": list(self.reading),
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------- analysis


def _sum_counters(samples: list[CounterSample]) -> dict[str, CounterSum]:
    """Sum every counter and count the distinct dispatches that reported it."""
    totals: dict[str, float] = {}
    seen: dict[str, set[tuple[str, int]]] = {}
    for s in samples:
        totals[s.counter] = totals.get(s.counter, 0.0) + s.value
        seen.setdefault(s.counter, set()).add((s.source, s.dispatch_id))
    return {n: CounterSum(n, totals[n], len(seen[n])) for n in sorted(totals)}


def _resolve(name: str, counters: dict[str, CounterSum]) -> CounterSum | None:
    """A known counter under its exact name, ``<name>_sum``, or summed ``<name>[i]`` instances."""
    if name in counters:
        return counters[name]
    if f"{name}_sum" in counters:
        return counters[f"{name}_sum"]
    parts = [c for n, c in counters.items() if (m := _INSTANCE.match(n)) and m.group("base") == name]
    if parts:
        return CounterSum(f"{name}[*]", sum(c.total for c in parts), max(c.dispatches for c in parts))
    return None


def hbm_read_bytes(rdreq: float, rdreq_32b: float, ea_channels: int = DEFAULT_EA_CHANNELS) -> float:
    """Estimated HBM read bytes: ((RDREQ - RDREQ_32B) * 64 + RDREQ_32B * 32) * channels."""
    return ((rdreq - rdreq_32b) * 64 + rdreq_32b * 32) * ea_channels


def hbm_read_bytes_gfx942(rdreq: float, rdreq_32b: float, bubble: float) -> float:
    """rocprof-compute's gfx942 L2-Fabric read bytes (analysis_configs/gfx942/1700_L2_cache.yaml):
    ``128 * TCC_BUBBLE + 64 * (RDREQ - TCC_BUBBLE - RDREQ_32B) + 32 * RDREQ_32B`` (the TCC_*_sum
    counters already hold every channel)."""
    return 128 * bubble + 64 * (rdreq - bubble - rdreq_32b) + 32 * rdreq_32b


def ratio(num: float, den: float) -> float | None:
    """num / den, or None when den is 0."""
    return num / den if den else None


def analyze_samples(
    samples: list[CounterSample],
    kernel_substr: str | None = None,
    ideal_bytes: float | None = None,
    ea_channels: int = DEFAULT_EA_CHANNELS,
    peak_tbs: float | None = None,
    peak_name: str | None = None,
    files: list[str] | None = None,
    arch: str | None = None,
) -> PmcResult:
    """DOMAIN §2 metrics over the samples whose kernel name contains ``kernel_substr``."""
    notes: list[str] = []
    all_kernels = sorted({s.kernel for s in samples})
    if kernel_substr:
        chosen = [s for s in samples if kernel_substr in s.kernel]
    else:
        chosen = list(samples)
        if len(all_kernels) > 1:
            notes.append(sentence("msg.pmc.mixed", n=len(all_kernels), flag="--kernel-contains"))
    kernels = sorted({s.kernel for s in chosen})
    if kernel_substr and len(kernels) > 1:
        notes.append(sentence("msg.pmc.summed", n=len(kernels), sub=repr(kernel_substr)))
    if kernel_substr and not chosen and samples:
        shown = ", ".join(all_kernels[:6]) + (" ..." if len(all_kernels) > 6 else "")
        notes.append(sentence("msg.pmc.nodispatch", sub=repr(kernel_substr), shown=shown or "none"))

    by_file: dict[str, set[int]] = {}
    for s in chosen:
        by_file.setdefault(s.source, set()).add(s.dispatch_id)
    dispatches_by_file = {f: len(ids) for f, ids in by_file.items()}
    counters = _sum_counters(chosen)

    used: dict[str, str] = {}
    resolved: dict[str, CounterSum] = {}
    for name in KNOWN_COUNTERS:
        c = _resolve(name, counters) or (_resolve(ALIASES[name], counters) if name in ALIASES else None)
        if c is not None:
            resolved[name] = c
            used[name] = c.name
    missing = [n for n in KNOWN_COUNTERS if n not in resolved]

    hit, miss = resolved.get(TCC_HIT), resolved.get(TCC_MISS)
    l2 = None
    if hit and miss:
        l2 = ratio(hit.mean, hit.mean + miss.mean)
        if l2 is None:
            notes.append(sentence("msg.pmc.nol2", hit=TCC_HIT, miss=TCC_MISS))
        if hit.dispatches != miss.dispatches:
            notes.append(sentence("msg.pmc.cover", hit=TCC_HIT, miss=TCC_MISS,
                                  a=hit.dispatches, b=miss.dispatches))

    rd, rd32 = resolved.get(RDREQ), resolved.get(RDREQ_32B)
    frac = hbm = over = formula = None
    if rd:
        rd32_total = 0.0
        if rd32:
            frac = ratio(rd32.mean, rd.mean)
            if frac is None:
                notes.append(sentence("msg.pmc.nohbm", req=RDREQ))
            rd32_total = rd32.mean * rd.dispatches
        bubble = _resolve(BUBBLE, counters)
        if bubble is not None and (arch or "") in BUBBLE_ARCHS:
            hbm, formula = hbm_read_bytes_gfx942(rd.total, rd32_total, bubble.mean * rd.dispatches), "gfx942"
            used[BUBBLE] = bubble.name
        elif rd.name.startswith(ALIASES[RDREQ] + "_sum"):  # every channel summed already: no multiplier
            hbm, formula = hbm_read_bytes(rd.total, rd32_total, 1), "gfx908"
        else:
            hbm, formula = hbm_read_bytes(rd.total, rd32_total, ea_channels), "64B"
        if not rd32:
            notes.append(sentence("msg.pmc.no32b", req=RDREQ_32B))
        if ideal_bytes is not None:
            over = ratio(hbm, ideal_bytes * rd.dispatches)
            if over is None:
                notes.append(sentence("msg.pmc.noideal"))

    durations = [
        e - b
        for (b, e) in _dispatch_times(chosen).values()
        if b is not None and e is not None and e > b
    ]
    time_ns = statistics.fmean(durations) if durations else None
    if not durations and any(s.start_ns is not None and s.end_ns is not None for s in chosen):
        notes.append(sentence("msg.pmc.notimes"))
    achieved = None
    if ideal_bytes and time_ns:
        achieved = ideal_bytes / time_ns  # bytes per ns == GB/s
    result = PmcResult(
        files=list(files) if files is not None else sorted({s.source for s in samples}),
        kernel_filter=kernel_substr,
        kernels=kernels,
        dispatches=sum(dispatches_by_file.values()),
        dispatches_by_file=dispatches_by_file,
        counters=counters,
        counter_names=used,
        missing=missing,
        l2_hit_rate=l2,
        frac_32b=frac,
        hbm_read_bytes=hbm,
        ea_channels=ea_channels,
        ideal_bytes=ideal_bytes,
        over_fetch=over,
        kernel_time_ns=time_ns,
        timed_dispatches=len(durations),
        achieved_gbps=achieved,
        peak_tbs=peak_tbs,
        peak_name=peak_name,
        arch=arch,
        hbm_formula=formula,
        rows_read=len(samples),
        notes=notes,
    )
    if formula is not None:
        notes.append(sentence(f"msg.pmc.hbm.{formula.lower()}", n=ea_channels))
    result.reading = read_metrics(result)
    return result


def _dispatch_times(samples: list[CounterSample]) -> dict[tuple[str, int], tuple[int | None, int | None]]:
    """Start/end of each (file, dispatch), from its first sample."""
    out: dict[tuple[str, int], tuple[int | None, int | None]] = {}
    for s in samples:
        out.setdefault((s.source, s.dispatch_id), (s.start_ns, s.end_ns))
    return out


def read_metrics(r: PmcResult) -> list[str]:
    """The plain-language reading of DOMAIN §2, one sentence per metric."""
    out: list[str] = []
    if r.l2_hit_rate is not None:
        pct = r.l2_hit_rate * 100
        if r.l2_hit_rate < STREAMING_HIT_RATE:  # expected of a paged-KV decode kernel only
            paged = bool(r.kernels) and all(PAGED_KV.search(k) for k in r.kernels)
            out.append(sentence("msg.pmc.l2.stream.pagedkv" if paged else "msg.pmc.l2.stream", pct=f"{pct:.1f}"))
        # At or above 5 % nothing is read into the rate: it is no proof of re-use (rocprof-compute's vcopy on
        # MI300X, a copy that reads each byte once, over-fetch 1.00, shows 33.4 %); the number stands alone.
    if r.frac_32b is not None:
        pct = r.frac_32b * 100
        bubble = r.counters.get(r.counter_names.get(BUBBLE, "")) if r.hbm_formula == "gfx942" else None
        rd = r.counters.get(r.counter_names.get(RDREQ, ""))
        if r.frac_32b <= FULL_LINE_32B_FRACTION and bubble is not None and rd is not None and rd.mean > 0:
            # gfx942: TCC_BUBBLE counts the 128 B read requests, so the lines are not all 64 B
            out.append(sentence("msg.pmc.32b.ok.128", pct=f"{pct:.1f}", b=f"{100 * bubble.mean / rd.mean:.1f}"))
        elif r.frac_32b <= FULL_LINE_32B_FRACTION:
            out.append(sentence("msg.pmc.32b.ok", pct=f"{pct:.1f}"))
        else:
            out.append(sentence("msg.pmc.32b.bad", pct=f"{pct:.1f}"))
    if r.over_fetch is not None:
        lo, hi = OVER_FETCH_OK
        if lo <= r.over_fetch <= hi:
            out.append(sentence("msg.pmc.of.ok", x=f"{r.over_fetch:.2f}x"))
        elif r.over_fetch > hi:
            out.append(sentence("msg.pmc.of.high", x=f"{r.over_fetch:.2f}x"))
        else:
            out.append(sentence("msg.pmc.of.low", x=f"{r.over_fetch:.2f}x", flag="--ea-channels"))
    elif r.hbm_read_bytes is not None and r.ideal_bytes is None:
        out.append(sentence("msg.pmc.of.noideal", flag="--ideal-gb"))
    if r.bw_fraction is not None:
        pct = r.bw_fraction * 100
        lo, hi = NORMAL_STREAMING_BW
        if r.bw_fraction >= lo:
            out.append(sentence("msg.pmc.bw.ok", pct=f"{pct:.0f}", lo=f"{lo * 100:.0f}", hi=f"{hi * 100:.0f}"))
        else:
            # the figure as the facts print it (0.1 %, not 0 %); no cause said: a kernel that is not streaming
            # (compute-bound, or ideal bytes that miss its traffic) sits below the range for other reasons
            out.append(sentence("msg.pmc.bw.low", pct=f"{pct:.1f}", lo=f"{lo * 100:.0f}", hi=f"{hi * 100:.0f}"))
    return out


def analyze_files(
    paths: list[str],
    kernel_substr: str | None = None,
    ideal_bytes: float | None = None,
    ea_channels: int = DEFAULT_EA_CHANNELS,
    peak_tbs: float | None = None,
    peak_name: str | None = None,
    skip_unusable: bool = False,
) -> PmcResult:
    """Read every counter file (pass_N CSVs and rocpd databases) and analyze them together.

    With ``skip_unusable`` a file that is not a counter file (e.g. a trace-only
    ``results.db``) becomes a note instead of an error.
    """
    samples: list[CounterSample] = []
    notes: list[str] = []
    used: list[str] = []
    stamps: dict[str, str] = {}
    arch = None
    for p in paths:
        try:
            got = read_counter_file(p)
        except InputError as err:
            if not skip_unusable:
                raise
            notes.append(sentence("msg.pmc.skipped", error=err.message))
            continue
        if not got:
            notes.append(sentence("msg.pmc.norows", file=p))
        samples.extend(got)
        used.append(p)
        if isinstance(got, Samples):
            notes.extend(sentence(key, **params) for key, params in got.notes)
            if got.timestamps:
                stamps[p] = got.timestamps
        if arch is None:
            arch = rocpd_gpu_arch(p) if p.endswith(".db") or is_sqlite(p) else sibling_arch(p)
    result = analyze_samples(samples, kernel_substr, ideal_bytes, ea_channels, peak_tbs,
                             peak_name, files=used, arch=arch)
    result.timestamps = stamps
    notes.extend(sentence("msg.pmc.timestamps", file=f) for f, which in stamps.items() if which == PASS_MEAN)
    result.notes = notes + result.notes
    return result


def analyze_bundle_counters(
    bundle_dir: str | os.PathLike,
    kernel_substr: str | None,
    ideal_bytes: float | None = None,
    ea_channels: int = DEFAULT_EA_CHANNELS,
    peak_tbs: float | None = None,
    peak_name: str | None = None,
) -> PmcResult | None:
    """Analyze the counter files of a bundle; None when it holds no counter data.

    File names in the result are relative to the bundle ("/" separated) so pages carry
    no local paths. A file that is not a counter file (a broken or foreign database) is
    skipped with a note; a rocpd database without PMC events (a trace-only
    ``results.db``) is simply not counter data.
    """
    files = find_counter_files(bundle_dir)
    if not files:
        return None
    root = Path(bundle_dir)
    result = analyze_files(files, kernel_substr, ideal_bytes, ea_channels, peak_tbs, peak_name,
                           skip_unusable=True)
    if result.rows_read == 0 and not any(n.startswith("skipped ") for n in result.notes):
        return None
    rel = {f: Path(f).relative_to(root).as_posix() for f in files}
    result.files = [rel.get(f, f) for f in result.files]
    result.dispatches_by_file = {rel.get(f, f): n for f, n in result.dispatches_by_file.items()}
    result.timestamps = {rel.get(f, f): w for f, w in result.timestamps.items()}
    result.notes = [_relativize(n, rel) for n in result.notes]
    return result


def _relativize(text: str, rel: dict[str, str]) -> str:
    for full, short in rel.items():
        text = text.replace(full, short)
    return text
