"""Print the site build's budgets on the shared MI350X sweep (a benchmark, not a test).

Budgets (issue 5): full build <= 10 s wall on 2 cores, rebuild with no change <= 1 s,
whole site <= 25 MB, overview <= 300 KB without the shared plotly file, no raw trace
file copied into the site. Times are compared with the analysis alone (discover +
analyze every capture) measured in the same run.

    python3 benchmarks/bench_build.py [SWEEP]      # default ../shared/mi350x-sweep
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from generator.analyze import analysis
from generator.site import build
from generator.read import discover  # noqa: E402  (after the sys.path line)

RAW = re.compile(r"(code|filenames|snapshots|occupancy|realtime|wstates\d)\.json$|se\d+_sm\d+_sl\d+_wv\d+\.json$"
                 r"|\.(csv|yaml|db|ncu-rep|txt)$")


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def verdict(ok: bool) -> str:
    return "ok " if ok else "OVER"


def main() -> int:
    sweep = Path(sys.argv[1] if len(sys.argv) > 1 else REPO.parent / "shared" / "mi350x-sweep")
    if not (sweep / "examples").is_dir():
        print(f"no sweep at {sweep}", file=sys.stderr)
        return 2
    cores = os.cpu_count() or 1
    if hasattr(os, "sched_setaffinity") and cores > 2:
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:2]))
    ncores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    print(f"sweep: {sweep}  ({ncores} cores used)")

    t_analysis, results = timed(lambda: analysis.analyze_sweep(discover.discover(sweep)))
    print(f"analysis alone (discover + {len(results)} captures):  {t_analysis:6.2f} s")

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        t_full, s = timed(build.build_site, sweep, out, progress=False)
        print(f"full build ({s.kernels} kernels):                 {t_full:6.2f} s   "
              f"= {t_full / t_analysis:4.1f}x the analysis   budget 10 s  {verdict(t_full <= 10)}")
        t_again, s2 = timed(build.build_site, sweep, out, progress=False)
        print(f"rebuild, no change (in process):         {t_again:6.2f} s   "
              f"= {t_again / t_full:5.1%} of a full build   budget 1 s  {verdict(t_again <= 1 and s2.up_to_date)}")
        t_cli, proc = timed(subprocess.run, [sys.executable, "-m", "generator", "build", str(sweep), "--out", str(out),
                                             "--quiet"], cwd=REPO, capture_output=True)
        print(f"rebuild, no change (kernel-atlas build): {t_cli:6.2f} s   (with interpreter start-up; rc {proc.returncode})")
        t_force, _ = timed(build.build_site, sweep, out, progress=False, force=True)
        print(f"forced rebuild, same bytes:              {t_force:6.2f} s   (every kernel re-rendered, nothing rewritten)")

        files = [p for p in out.rglob("*") if p.is_file()]
        total = sum(p.stat().st_size for p in files)
        plotly = sum(p.stat().st_size for p in files if p.name.startswith("plotly."))
        overview = (out / "index.html").stat().st_size
        raw = [p.relative_to(out).as_posix() for p in files if RAW.search(p.name)]
        print(f"whole site: {total / 1e6:6.2f} MB in {len(files)} files (plotly.js {plotly / 1e6:.2f} MB)   "
              f"budget 25 MB  {verdict(total <= 25e6)}")
        print(f"overview index.html: {overview / 1e3:6.1f} KB (plotly.js not counted)   budget 300 KB  "
              f"{verdict(overview <= 300e3)}")
        print(f"raw trace files copied: {len(raw)}   {verdict(not raw)}" + (f"  {raw[:5]}" if raw else ""))
        biggest = sorted(files, key=lambda p: -p.stat().st_size)[:5]
        print("largest files: " + ", ".join(f"{p.relative_to(out).as_posix()} {p.stat().st_size / 1e6:.2f} MB"
                                              for p in biggest))
        sweep_bytes = sum(p.stat().st_size for p in sweep.rglob("*") if p.is_file())
        print(f"site / sweep size: {total / sweep_bytes:.1%} ({sweep_bytes / 1e6:.0f} MB of input)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
