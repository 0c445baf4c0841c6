"""STAND-IN for the reference analyzer (FlyDSL's ``hotspot_analyzer.py``), for timing only.

The real analyzer is not part of this repo. Each shared bundle's ``source/hotspot_output.txt``
shows what one run of it does: a user runs ``python3 hotspot_analyzer.py <capture>`` once per
capture (a fresh interpreter each time), and it prints

* "Loading: <capture dir>", the kernel, instruction count, total cycles and stalls;
* register pressure and occupancy from the ISA text (highest ``vN``/``aN``, a range by its first
  register as the reference counts it, allocation rounded
  to 8, the architecture from its MFMA forms, waves per SIMD) and the instruction mix;
* the stall breakdown by type (DOMAIN §1.2 taxonomy) with bars;
* the top-15 source lines (stall, share, stall/cycles bar, dominant type) and instructions.

This script does that work and nothing more (standard library only, as a stand-alone CLI would
be). It is written by us; its numbers match the reader's (``tests/test_bench_standin.py`` checks
them against the bundles' ``hotspot_output.txt``).

What a run does beyond its printed numbers follows the reference's public source (ROCm/FlyDSL's
``hotspot_analyzer.py``, read, not copied): it keeps one dataclass object per instruction, and it
reads the capture's source map on every run, ``snapshots.json`` and each source file it maps, even
when no snippet is printed (``--detail`` off). Until 2026-12-07 this script skipped both, which made
the peer about a quarter lighter than the reference (issue 41: the shared sweep's 17 captures took
0.69-0.71 s here without them, 0.90-0.93 s with them, in the same loop). It also reads registers and
the instruction mix by the reference's method: four register patterns, each over every instruction's
whole text, and one substring pass per mix entry (``registers``, ``instruction_mix``); until
2026-12-07 one combined pattern over the operands and one pass did it, with the same numbers (issue
41: 0.22-0.24 s against 0.36-0.39 s for the 17 captures' reports in one interpreter, same loop).

    python3 benchmarks/hotspot_standin.py CAPTURE_DIR [--topk 15]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass

#: The reference's register scan: four patterns, each run over an instruction's whole text (a register
#: range counted by its first register), the highest number of each kind kept.
_REG_SCANS = (("v", re.compile(r"\bv(\d+)\b")), ("v", re.compile(r"\bv\[(\d+)")),
              ("a", re.compile(r"\ba(\d+)\b")), ("a", re.compile(r"\ba\[(\d+)")))
_GFX950 = ("v_mfma_scale_f32", "v_mfma_f32_16x16x128", "v_mfma_f32_32x32x64")
#: The instruction mix: each count its own pass over the instructions, a substring test each.
_MIX_MARKS = {"MFMA": ("v_mfma_",), "buffer_load": ("buffer_load",), "buffer_store": ("buffer_store",),
              "ds_read": ("ds_read", "ds_load"), "ds_write": ("ds_write", "ds_store")}
BAR = 30


def classify(asm: str) -> str:
    """Stall type of one instruction (DOMAIN §1.2, first match wins; the reader's ``att.classify``
    is the same rule, and the test compares them on every instruction of the sweep)."""
    a = asm.lower()
    if "s_waitcnt" in a:
        return ("VMEM-wait" if "vmcnt" in a else "LDS/SMEM-wait" if "lgkmcnt" in a
                else "EXP-wait" if "expcnt" in a else "waitcnt")
    for kind, marks in (("barrier", ("s_barrier", "s_wait_idle")), ("VMEM-load", ("buffer_load", "global_load", "flat_load")),
                        ("VMEM-store", ("buffer_store", "global_store")), ("LDS", ("ds_read", "ds_write")),
                        ("SMEM", ("s_load", "s_store")), ("MFMA/FMA", ("v_mfma", "v_fma"))):
        if any(m in a for m in marks):
            return kind
    return "other"


def num(v) -> int:
    return v if isinstance(v, int) else 0


def human(n: float) -> str:
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}K" if n >= 1e3 else f"{n:.0f}"


def bar(frac: float) -> str:
    full = round(max(0.0, min(1.0, frac)) * BAR)
    return "[" + "\u2588" * full + "\u2591" * (BAR - full) + "]"


@dataclass
class Instruction:
    """One instruction row of ``code.json``: ``[asm, _, pc_index, source, _, vaddr, hits, cycles, stall, idle]``."""

    asm: str
    pc_index: int
    source: str
    vaddr: int
    hits: int
    cycles: int
    stall: int
    idle: int


def load_rows(capture: str) -> list[Instruction]:
    """Instruction rows of ``code.json`` (labels and comments skipped), one object each."""
    with open(os.path.join(capture, "code.json")) as fh:
        rows = json.load(fh).get("code", [])
    return [Instruction(r[0], r[2], r[3] or "<unknown>", r[5], num(r[6]), num(r[7]), num(r[8]), num(r[9]))
            for r in rows if len(r) >= 10 and isinstance(r[2], int) and r[2] != 0]


def source_map(capture: str) -> dict[str, list[str]]:
    """Each virtual source path of ``snapshots.json`` (a tree of folders rooted at "/", its leaves the
    copied file names beside it) to that file's lines; {} without the file."""
    path = os.path.join(capture, "snapshots.json")
    if not os.path.isfile(path):
        return {}
    with open(path) as fh:
        tree = json.load(fh)
    files: dict[str, str] = {}
    stack = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for key, val in node.items():
            vpath = prefix if key == "/" else f"{prefix.rstrip('/')}/{key}"
            if isinstance(val, dict):
                stack.append((vpath, val))
            else:
                files[vpath] = val
    out = {}
    for vpath, name in files.items():
        local = os.path.join(capture, name)
        if os.path.isfile(local):
            with open(local, errors="replace") as fh:
                out[vpath] = fh.readlines()
    return out


def registers(rows: list[Instruction]) -> dict:
    """Register pressure and occupancy from the ISA text (the reference's own model and its method:
    ``_REG_SCANS`` over every instruction's text, the architecture from a substring test on each)."""
    high = {"v": -1, "a": -1}
    for r in rows:
        for kind, scan in _REG_SCANS:
            for m in scan.finditer(r.asm):
                high[kind] = max(high[kind], int(m.group(1)))
    high = {"v": high["v"] + 1, "a": high["a"] + 1 if high["a"] > 0 else 0}
    gfx950 = any(mark in r.asm for r in rows for mark in _GFX950)
    alloc = {k: -(-n // 8) * 8 for k, n in high.items()}
    if gfx950:
        occ = min(8, 512 // max(8, alloc["v"] + alloc["a"]))
    else:
        occ = min(8, 256 // max(8, alloc["v"], alloc["a"]))
    return {"arch": "gfx950 (CDNA4)" if gfx950 else "gfx942 (CDNA3)", "high": high, "alloc": alloc, "occ": occ}


def instruction_mix(rows: list[Instruction]) -> dict[str, int]:
    """Instructions per mix entry, one pass over the rows for each (``_MIX_MARKS``), as the reference counts."""
    return {name: sum(1 for r in rows if any(m in r.asm for m in marks)) for name, marks in _MIX_MARKS.items()}


def report(capture: str, topk: int, out) -> None:
    rows = load_rows(capture)
    source_map(capture)  # the reference reads it on every run
    total = sum(r.cycles for r in rows)
    stalls = sum(r.stall for r in rows)
    print(f"\nLoading: {capture}\n", file=out)
    print(f"  Kernel:        {os.path.basename(capture.rstrip('/'))}", file=out)
    print(f"  Instructions:  {len(rows)}\n  Total cycles:  {human(total)}", file=out)
    print(f"  Total stalls:  {human(stalls)}  ({stalls / max(total, 1):.1%} of total cycles)", file=out)

    reg = registers(rows)
    print("\n  Register Pressure & Occupancy", file=out)
    print(f"  Architecture:   {reg['arch']}", file=out)
    for k, name in (("v", "arch_vgpr"), ("a", "accum_vgpr")):
        used = f"~{reg['high'][k]} (alloc {reg['alloc'][k]})" if reg["high"][k] else "0 (not used)"
        print(f"  {name + ':':<16}{used}", file=out)
    if not reg["arch"].startswith("gfx950"):
        print(f"  limiting pool:  {max(reg['alloc'].values())} / 256", file=out)
    print(f"  occupancy:      {reg['occ']} waves/SIMD", file=out)
    mix = instruction_mix(rows)
    print("  Instruction mix:  " + ",  ".join(f"{m}: {n}" for m, n in mix.items()), file=out)

    by_type: dict[str, int] = defaultdict(int)
    lines: dict[str, list] = {}
    ins = []
    for r in rows:
        kind, st, loc = classify(r.asm), r.stall, r.source
        by_type[kind] += st
        ln = lines.setdefault(loc, [0, 0, defaultdict(int)])
        ln[0] += st
        ln[1] += r.cycles
        if st:
            ln[2][kind] += st
        ins.append((st, r.pc_index, kind, r.asm, loc))
    print("\n  Stall Breakdown by Type", file=out)
    for kind, n in sorted(by_type.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:<14}  {human(n):>8}  {bar(n / max(stalls, 1))}  {n / max(stalls, 1):6.1%}", file=out)
    print(f"\n  Top-{topk} Hotspot Source Lines", file=out)
    ranked = sorted(lines.items(), key=lambda kv: -kv[1][0])[:topk]
    for i, (loc, (st, cyc, kinds)) in enumerate(ranked, 1):
        dom = max(kinds.items(), key=lambda kv: kv[1])[0] if kinds else "-"
        print(f"  {i:>3}  {human(st):>8}  {st / max(stalls, 1):7.2%}  {bar(st / max(cyc, 1))}"
              f"  {st / max(cyc, 1):5.1%}  {dom:<12}  {loc[-40:]}", file=out)
    print(f"\n  Top-{topk} Hotspot Instructions", file=out)
    for i, (st, _pc, kind, asm, loc) in enumerate(sorted(ins, key=lambda t: (-t[0], t[1]))[:topk], 1):
        text = asm if len(asm) <= 48 else asm[:47] + "\u2026"
        print(f"  {i:>3}  {human(st):>8}  {st / max(stalls, 1):7.2%}  {kind:<12}  {text:<48}  {loc[-30:]}", file=out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("capture")
    ap.add_argument("--topk", type=int, default=15)
    args = ap.parse_args(argv)
    report(args.capture, args.topk, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
