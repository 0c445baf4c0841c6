"""The benchmark's STAND-IN for the reference analyzer does what the reference's output shows,
with the same numbers (``benchmarks/hotspot_standin.py``; ``bench_build.py`` times it)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
import pytest

from generator.read import att, discover

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))
import hotspot_standin  # noqa: E402


def _primary(sweep: Path, bundle: str) -> tuple[str, str]:
    """The capture a bundle's hotspot_output.txt was made from, and that output."""
    ref = (sweep / "examples" / bundle / "source" / "hotspot_output.txt").read_text(encoding="utf-8")
    name = re.search(r"Loading: \S*/(ui_output_agent_\S+)", ref).group(1)
    cap = next(c.path for c in discover.discover(sweep / "examples" / bundle).bundles[0].captures
               if c.path.rstrip("/").endswith(name))
    return cap, ref


def test_the_standin_prints_the_references_numbers_for_vec_add(sweep):
    cap, ref = _primary(sweep, "vec_add")
    out = subprocess.run([sys.executable, str(BENCH / "hotspot_standin.py"), cap], capture_output=True,
                         text=True, check=True).stdout
    for line in ("Instructions:  22", "Total cycles:  3.73M", "Total stalls:  2.10M  (56.3% of total cycles)",
                 "Architecture:   gfx942 (CDNA3)", "arch_vgpr:      ~9 (alloc 16)", "accum_vgpr:     0 (not used)",
                 "limiting pool:  16 / 256", "occupancy:      8 waves/SIMD"):
        assert line in out and line in ref, line
    assert "MFMA: 0,  buffer_load: 2,  buffer_store: 1,  ds_read: 0,  ds_write: 0" in out
    assert re.search(r"VMEM-wait\s+1\.73M .* 82\.3%", out) and re.search(r"VMEM-wait\s+1\.73M .* 82\.3%", ref)
    top = [ln for ln in out.splitlines() if re.match(r"\s+1\s+\d", ln)]
    assert "1.76M   83.67%" in top[0] and "VMEM-wait" in top[0] and top[0].endswith("test_vec_add.py:28")
    assert "1.73M   82.25%  VMEM-wait" in top[1] and "s_waitcnt vmcnt(0)" in top[1]


def test_the_standin_reads_register_pressure_as_the_reference_does(sweep):
    # every bundle whose reference output names a capture of the sweep
    seen = 0
    for bundle in sorted(p.name for p in (sweep / "examples").iterdir() if (p / "source" / "hotspot_output.txt").is_file()):
        cap, ref = _primary(sweep, bundle)
        buf = io.StringIO()
        hotspot_standin.report(cap, 15, buf)
        for key in ("Architecture:", "arch_vgpr:", "accum_vgpr:", "occupancy:"):
            want = re.search(rf"{key}\s+(.+)", ref).group(1).strip()
            assert re.search(rf"{key}\s+(.+)", buf.getvalue()).group(1).strip() == want, (bundle, key)
        seen += 1
    assert seen == len(list((sweep / "examples").glob("*/source/hotspot_output.txt"))) > 0  # 11 in the sweep


def test_the_standin_counts_the_instruction_mix_as_the_reference_does(sweep):
    # the reference's "Instruction mix" lines, every bundle that has its output
    seen = 0
    for ref_file in sorted((sweep / "examples").glob("*/source/hotspot_output.txt")):
        cap, ref = _primary(sweep, ref_file.parent.parent.name)
        want = re.search(r"MFMA: (\d+),\s+buffer_load: (\d+),\s+buffer_store: (\d+)\s+ds_read: (\d+),\s+ds_write: (\d+)",
                         re.sub(r"\s+", " ", ref)).groups()
        got = hotspot_standin.instruction_mix(hotspot_standin.load_rows(cap))
        assert tuple(str(n) for n in got.values()) == want, ref_file
        seen += 1
    assert seen == len(list((sweep / "examples").glob("*/source/hotspot_output.txt"))) > 0  # 11 in the sweep


def test_the_standins_taxonomy_is_the_readers(sweep):
    asms: set[str] = set()
    for b in discover.discover(sweep).bundles:
        for c in b.captures:
            if c.format == "att" and (Path(c.path) / "code.json").is_file():
                asms |= {row.asm for row in hotspot_standin.load_rows(c.path)}
    assert len(asms) > 1000
    assert all(hotspot_standin.classify(a) == att.classify(a) for a in asms)


def test_the_standin_reads_the_source_map_as_the_reference_does():
    # ROCprof Compute Viewer's own capture (tests/data): snapshots.json maps four virtual paths, and only
    # kernel.cpp's copy lies beside it; the shared sweep's captures map paths whose copies were stripped
    cap = Path(__file__).resolve().parent / "data" / "rcv_pcsampling"
    files = hotspot_standin.source_map(str(cap))
    (path,) = files  # the recorded virtual path, rooted at "/" as the tree is
    assert path.startswith("/") and path.endswith("rocprofiler-sdk/build/kernel.cpp")
    assert files[path] == (cap / "source_2_kernel.cpp").read_text(errors="replace").splitlines(True)
