"""Make ``tests/data/mi350x-slice/``: a small, trimmed slice of the real shared sweep, so that a
clone without ``../shared`` beside it can run most of the tests.

    python3 tests/data/make_slice.py [SWEEP]      # SWEEP defaults to ../shared/mi350x-sweep

The slice keeps the sweep's layout and copies files unchanged (the numbers the tests assert are the
real ones): four bundles small enough to carry (``fused_rope_cache``, ``hgemm_splitk``, ``pa``,
``vec_add``: their code.json, wave files, agent info, hotspot_output.txt and kernel trace; a trace
above 1 MB is cut to the first 10 dispatches of each kernel, and the bulky ``*_results.json`` are
left out; the rows of the captured dispatches stay), flash_attn_func's small run (its capture before the
source-location fix, four waves; the big run's agent info and input left out too), five campaigns (four timed, one with a
ledger only; the results CSV beside the JSONL for vec_add alone), ``docs/data/kernels.json``, the
``expected/`` files cut down to what the slice holds, and a ``kernel-atlas.toml`` that sets the whole
sweep's timing floor (VERDICTS rule 11: one harness, one floor; the lowest usable time is in a campaign
the slice leaves out), so that the slice's campaigns score as in the sweep. Everything else stays in
``../shared``: tests that need it are marked ``full_sweep`` and skip without it.
About 4.1 MB; the same sweep gives the same bytes. The slice is data, never edited by hand: rerun
this script.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SLICE = os.path.join(HERE, "mi350x-slice")
DEFAULT_SWEEP = os.path.join(HERE, "..", "..", "..", "shared", "mi350x-sweep")
#: Whole bundles (examples/<name>/) and campaigns (benchmarks/examples/<op>/) copied.
BUNDLES = ("fused_rope_cache", "hgemm_splitk", "pa", "vec_add")
#: Kernel traces cut to their first rows of each kernel name (fused_rope_cache's holds 10,836 dispatches).
TRACE_ROWS_PER_KERNEL = 10
TRACE_BYTES = 1_000_000  # traces above this size are trimmed; the others are copied whole
CAMPAIGNS = ("attention_prefill", "moe_blockscale", "pa_decode", "quant", "vec_add")
#: Parts of bundles too big to carry whole: flash_attn_func's small run, before the source-location fix
#: (the capture after it holds twice the waves; the tests comparing the two need the whole sweep).
BUNDLE_PARTS = {"flash_attn_func": ("att_viewer/small/ui_output_agent_32235_dispatch_44",
                                   "compute_viewer", "source")}
#: Files of those parts that belong to runs the slice leaves out (flash_attn_func's big run).
PARTS_LEFT_OUT = ("big_agent_info.csv", "input_trace_big.yaml")
#: Campaigns whose results CSV is kept beside the JSONL (the others carry the JSONL alone).
CAMPAIGN_CSV = ("vec_add",)
#: Bulky files no test of the slice reads.
LEFT_OUT = ("big_results.json", "small_results.json")
#: The expected/ files: those keyed by capture path keep the slice's captures, verdicts.json its campaigns.
EXPECTED_BY_PATH = ("occupancy.json", "wave_states.json")


def copy_tree(src: str, dest: str, leave_out: tuple[str, ...] = ()) -> None:
    """Copy a folder (files writable, in sorted order), leaving out ``LEFT_OUT``; kernel traces trimmed."""
    for folder, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(folder, src)
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for name in sorted(files):
            if name in LEFT_OUT or name in leave_out:
                continue
            if name.endswith("kernel_trace.csv") and os.path.getsize(os.path.join(folder, name)) > TRACE_BYTES:
                trim_trace(os.path.join(folder, name), os.path.join(dest, rel, name), captured_dispatches(src))
            else:
                shutil.copyfile(os.path.join(folder, name), os.path.join(dest, rel, name))


def captured_dispatches(bundle: str) -> set[str]:
    """The dispatch ids a bundle's captures name (``ui_output_agent_<PID>_dispatch_<N>[_suffix]``)."""
    found = set()
    for _folder, dirs, _files in os.walk(os.path.join(bundle, "att_viewer")):
        for d in dirs:
            parts = d.split("_")
            if d.startswith("ui_output_agent_") and len(parts) > 5 and parts[4] == "dispatch":
                found.add(parts[5])
    return found


def trim_trace(src: str, dest: str, keep: set[str] = frozenset()) -> None:
    """A rocprofv3 kernel trace with the first ``TRACE_ROWS_PER_KERNEL`` rows of each kernel name and
    the rows of the dispatch ids in ``keep`` (lines kept as they are, in file order)."""
    with open(src, encoding="utf-8", newline="") as fh:
        lines = fh.read().splitlines(keepends=True)
    header, rows = lines[:1], lines[1:]
    names = next(csv.reader(header))
    column, dispatch = names.index("Kernel_Name"), names.index("Dispatch_Id")
    seen: dict[str, int] = {}
    kept = []
    for line, cells in zip(rows, csv.reader(rows)):
        name = cells[column] if len(cells) > column else ""
        seen[name] = seen.get(name, 0) + 1
        if seen[name] <= TRACE_ROWS_PER_KERNEL or (len(cells) > dispatch and cells[dispatch] in keep):
            kept.append(line)
    with open(dest, "w", encoding="utf-8", newline="") as fh:
        fh.write("".join(header + kept))


#: Campaigns whose bundle (and so its kernel trace, the headline pair's device timer) the slice leaves out.
TRACELESS = ("moe_blockscale", "quant")


def without_device_timer(expected: dict) -> dict:
    """A campaign's expected numbers without its bundle's kernel trace: no device timer, so its headline
    pair's clock is unchecked (VERDICTS rule 13); the verdict does not change (both pairs are ``kernel``)."""
    return {**expected, "pair_device_us": None, "pair_clock": "unchecked"}


def write_json(path: str, doc: dict) -> None:
    """JSON with sorted keys (the same input gives the same bytes)."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
        fh.write("\n")


def sweep_floor(sweep: str) -> float:
    """The lowest usable ``median_us`` of every campaign of the whole sweep (status ok, not incorrect)."""
    times = []
    root = os.path.join(sweep, "benchmarks", "examples")
    for op in sorted(os.listdir(root)):
        path = os.path.join(root, op, "benchmark_results.jsonl")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as fh:
                rows = [json.loads(line) for line in fh if line.strip()]
            times += [r["median_us"] for r in rows if r.get("benchmark_status") == "ok"
                      and r.get("correct") is not False and (r.get("median_us") or 0) > 0]
    return min(times)


def write_config(out: str, floor: float) -> None:
    """The slice's kernel-atlas.toml: the whole sweep's timing floor."""
    with open(os.path.join(out, "kernel-atlas.toml"), "w", encoding="utf-8") as fh:
        fh.write("# Made by tests/data/make_slice.py: the whole sweep's timing floor (VERDICTS rule 11), so that\n"
                 "# the slice's campaigns score as they do in the sweep.\n"
                 f"[verdicts]\nfloor_us = {floor!r}\n")


def make_slice(sweep: str, out: str = SLICE) -> int:
    """Write the slice of ``sweep`` into ``out`` (replaced); return its size in bytes."""
    if not os.path.isdir(os.path.join(sweep, "examples")):
        raise SystemExit(f"make_slice: {sweep}: not a sweep (no examples/)")
    shutil.rmtree(out, ignore_errors=True)
    for name in BUNDLES:
        copy_tree(os.path.join(sweep, "examples", name), os.path.join(out, "examples", name))
    for name, parts in BUNDLE_PARTS.items():
        for part in parts:
            copy_tree(os.path.join(sweep, "examples", name, part), os.path.join(out, "examples", name, part),
                      PARTS_LEFT_OUT)
    for op in CAMPAIGNS:
        copy_tree(os.path.join(sweep, "benchmarks", "examples", op), os.path.join(out, "benchmarks", "examples", op),
                  () if op in CAMPAIGN_CSV else ("benchmark_results.csv",))
    os.makedirs(os.path.join(out, "docs", "data"))
    shutil.copyfile(os.path.join(sweep, "docs", "data", "kernels.json"), os.path.join(out, "docs", "data", "kernels.json"))
    os.makedirs(os.path.join(out, "expected"))
    for name in EXPECTED_BY_PATH:
        with open(os.path.join(sweep, "expected", name), encoding="utf-8") as fh:
            doc = json.load(fh)
        write_json(os.path.join(out, "expected", name),
                   {k: v for k, v in doc.items() if os.path.isdir(os.path.join(out, k))})
    with open(os.path.join(sweep, "expected", "verdicts.json"), encoding="utf-8") as fh:
        verdicts = json.load(fh)
    write_json(os.path.join(out, "expected", "verdicts.json"),
               {k: without_device_timer(v) if k in TRACELESS else v for k, v in verdicts.items() if k in CAMPAIGNS})
    write_config(out, sweep_floor(sweep))
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)


if __name__ == "__main__":
    size = make_slice(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SWEEP))
    print(f"{os.path.relpath(SLICE)}: {size / 1e6:.2f} MB")
