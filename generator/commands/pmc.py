"""``kernel-atlas pmc FILE...``: L2 / HBM reading of rocprofv3 counter collections."""

from __future__ import annotations

import argparse
import json
import os
import sys

from generator.analyze import pmc
from generator.read import counter_files
from generator.analyze.message import sentence
from generator.errors import InputError
from generator.read import discover, runfiles
from generator.words import deprecated, noun, plural

NAME = "pmc"
HELP = ("L2 hit rate, 32B fraction, HBM bytes and over-fetch from PMC counters (rocprofv3 CSV or rocpd .db, "
        "rocprof-compute pmc_perf.csv).")
ORDER = 40


def add_arguments(p) -> None:
    """FILE... plus the kernel filter, the ideal bytes and the EA channel count."""
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="*_counter_collection.csv files (all pass_N/ files together), rocpd .db "
                        "files, rocprof-compute pmc_perf.csv, or folders holding them")
    p.add_argument("--kernel-contains", dest="kernel", metavar="TEXT",
                   help="only dispatches whose kernel name contains TEXT")
    p.add_argument("--kernel", dest="kernel", action=deprecated("--kernel-contains"), help=argparse.SUPPRESS)
    p.add_argument("--ideal-gb", type=float, metavar="X",
                   help="bytes one dispatch must read, in GB (1e9): enables over-fetch and achieved bandwidth")
    p.add_argument("--ea-channels", type=int, default=pmc.DEFAULT_EA_CHANNELS, metavar="N",
                   help=f"multiplier of the EA0 request counts (default {pmc.DEFAULT_EA_CHANNELS})")
    p.add_argument("--device", metavar="NAME",
                   help="device of the peaks file (e.g. MI300X) to show bandwidth as a share of peak")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def expand_inputs(paths: list[str]) -> list[str]:
    """Files as given; a folder becomes the counter files found inside it."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = counter_files.find_counter_files(p)
            others = sorted(f for k, f in runfiles.find_run_files(p).items() if k != "other_db") if not found else []
            if others:  # run statistics of another tool, no counter: say so, not an error
                print(sentence("msg.pmc.runfilesonly", folder=p, files=", ".join(os.path.basename(f) for f in others)))
                continue
            fmt = None if found else discover.capture_format(os.path.abspath(p))
            if fmt is not None:  # a capture (ATT, Nsight Compute), no counter: say so, not an error
                print(sentence("msg.pmc.captureonly", folder=p, format=fmt.name))
                continue
            if not found:
                raise InputError(p, "no *counter_collection.csv, pmc_perf.csv or .db file in this folder")
            out.extend(found)
        elif not os.path.exists(p):
            raise InputError(p, "no such file")
        else:
            out.append(p)
    return list(dict.fromkeys(out))


def _peak(device: str | None, arch: str | None) -> tuple[float | None, str | None]:
    """Peak TB/s and device name from the peaks file (None when no device is known)."""
    if not device and not arch:
        return None, None
    from generator.analyze import device_peaks

    peaks = device_peaks.load_peaks()
    try:
        dev = device_peaks.select_device(peaks, device=device, arch=arch)
    except InputError:
        if device:
            raise
        return None, None
    return dev.hbm_tbs, dev.name


def _num(x: float) -> str:
    """A counter value: integer with thousands separators when whole."""
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.3f}"


def format_text(r: pmc.PmcResult, arch_peak: bool = False) -> str:
    """The human report of one PmcResult; ``arch_peak``: the peak's device was taken from the file's arch alone
    (gfx942 is MI300X in the peaks file, but an MI308X run says gfx942 too), said beside it."""
    lines = [f"PMC counters: {plural(len(r.files), 'file')}"]
    lines += [f"  {f}" for f in r.files]
    if r.kernel_filter:
        lines.append(f"kernel filter: {r.kernel_filter!r}")
    if r.kernels:
        lines.append(f"{noun(len(r.kernels), 'kernel')}: {', '.join(r.kernels)}")
    per = ", ".join(f"{n} in {f}" for f, n in sorted(r.dispatches_by_file.items()))
    lines.append(f"dispatches matched: {r.dispatches}" + (f" ({per})" if len(r.dispatches_by_file) > 1 else ""))
    c = {k: r.counters[v] for k, v in r.counter_names.items()}
    renamed = [f"{k} = {v}" for k, v in sorted(r.counter_names.items()) if k != v]
    if renamed:
        lines.append(f"counters read as: {', '.join(renamed)}")

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v * 100:.1f} %"

    if pmc.TCC_HIT in c and pmc.TCC_MISS in c:
        hit, miss = c[pmc.TCC_HIT].total, c[pmc.TCC_MISS].total
        lines.append(f"L2 hit rate:      {pct(r.l2_hit_rate)}  (TCC_HIT {_num(hit)} / (TCC_HIT + TCC_MISS) {_num(hit + miss)})")
    if pmc.RDREQ in c:
        rd = c[pmc.RDREQ].total
        rd32 = c[pmc.RDREQ_32B].total if pmc.RDREQ_32B in c else None
        if rd32 is not None:
            lines.append(f"32B fraction:     {pct(r.frac_32b)}  (RDREQ_32B {_num(rd32)} / RDREQ {_num(rd)})")
    if r.hbm_read_bytes is not None:
        how = (pmc.HBM_FORMULAS[r.hbm_formula] if r.hbm_formula != "64B"
               else pmc.HBM_FORMULAS["64B"].replace("EA channels", f"{r.ea_channels} EA channels"))
        lines.append(f"est. HBM read:    {r.hbm_read_bytes / 1e9:.4g} GB  ({how})")
    if r.ideal_bytes is not None:
        n = r.counters[r.counter_names[pmc.RDREQ]].dispatches if pmc.RDREQ in r.counter_names else r.dispatches
        lines.append(f"ideal:            {r.ideal_bytes / 1e9:.4g} GB per dispatch x {n} = {r.ideal_bytes * n / 1e9:.4g} GB")
    if r.over_fetch is not None:
        lines.append(f"over-fetch:       {r.over_fetch:.2f}x")
    if r.kernel_time_ns is not None:
        lines.append(f"kernel time:      {r.kernel_time_ns / 1000:.2f} us (mean of {plural(r.timed_dispatches, 'dispatch')})")
    if r.achieved_gbps is not None:
        extra = ""
        if r.bw_fraction is not None:
            by_arch = f", taken for {r.arch}: --device names the GPU" if arch_peak else ""
            extra = f" = {r.bw_fraction * 100:.1f} % of {r.peak_tbs:g} TB/s ({r.peak_name}{by_arch})"
        lines.append(f"achieved BW:      {r.achieved_gbps:,.1f} GB/s (ideal bytes / kernel time){extra}")
    if r.unknown_counters:
        lines.append("other counters:")
        for n in r.unknown_counters:
            s = r.counters[n]
            if s.derived:  # a ratio or percentage: its sum over dispatches means nothing
                lines.append(f"  {n:<24} mean {_num(round(s.mean, 3))} over {plural(s.dispatches, 'dispatch')} "
                             "(derived counter: averaged, not summed)")
            else:
                lines.append(f"  {n:<24} {_num(s.total)} over {plural(s.dispatches, 'dispatch')} "
                             f"(mean {_num(round(s.mean, 3))})")
    if r.missing:
        lines.append(f"missing counters: {', '.join(r.missing)} "
                     "(collect them in another pass: at most ~4 TCC counters per pass)")
    if r.reading:
        lines.append("reading:")
        lines += [f"  - {t}" for t in r.reading]
    if r.notes:
        lines.append("notes:")
        lines += [f"  - {t}" for t in r.notes]
    return "\n".join(lines) + "\n"


def run(args) -> int:
    """Read, analyze, print; bad files raise InputError (exit 2)."""
    if args.ea_channels < 1:
        raise InputError(None, "--ea-channels must be at least 1")
    if args.ideal_gb is not None and args.ideal_gb < 0:
        raise InputError(None, "--ideal-gb must not be negative")
    files = expand_inputs(args.files)
    if not files:  # every folder given held run statistics only (already said)
        return 0
    ideal = args.ideal_gb * 1e9 if args.ideal_gb is not None else None
    result = pmc.analyze_files(files, args.kernel, ideal, args.ea_channels)
    if result.dispatches == 0:
        where = files[0] if len(files) == 1 else ", ".join(files)
        seen = sorted({k for f in files for k in _kernels(f)})
        if not seen:
            raise InputError(where, "no counter rows (collect them with rocprofv3 --pmc)")
        shown = ", ".join(seen[:6]) + (" ..." if len(seen) > 6 else "")
        raise InputError(where, f"no dispatch of a kernel containing {args.kernel!r} (kernels: {shown})")
    peak_tbs, peak_name = _peak(args.device, result.arch)
    if peak_tbs is not None:
        result.peak_tbs, result.peak_name = peak_tbs, peak_name
        result.reading = pmc.read_metrics(result)
    if args.json:
        json.dump(result.to_json(), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_text(result, arch_peak=peak_tbs is not None and not args.device))
    return 0


def _kernels(path: str) -> set[str]:
    """Kernel names of one counter file (for the no-match message)."""
    try:
        return {s.kernel for s in counter_files.read_counter_file(path)}
    except InputError:
        return set()
