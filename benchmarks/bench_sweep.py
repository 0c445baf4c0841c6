"""Print issue 41's budgets on a sweep of the real one's size, each against its peer measured in
the same run (a benchmark, not a test).

The sweep: ``../shared/mi350x-sweep`` (19 kernels, 17 ATT captures) plus linked copies of six of
its kernels under new names, the real sweep's size of 25 kernels and 22 captures
(``scaled_sweep.make_sized_sweep``). Budgets, each line printed with its measure, its peer, the
ratio, the budget and PASS or FAIL:

* cold build (a fresh ``kernel-atlas build`` process, an empty output folder, ``--jobs`` one per
  core) <= 1.2x the reference analyzer's STAND-IN (``hotspot_standin.py``, one fresh interpreter
  per capture, in sequence, over the same 22 captures), the median of the rounds' ratios (each
  round: stand-in, then build);
* no-op rebuild (the same command again, nothing changed) <= 0.4 s, in the build's own process
  (``build_site``) and as a user runs it (a fresh interpreter, imports included), medians; the
  peer printed beside is one stand-in run (a fresh interpreter's floor on this machine);
* peak memory: the largest process of the cold build (itself or a worker) <= 1 GB, beside the
  stand-in's largest;
* the browser (Debian's Chromium, file://, medians of the rounds, each round a fresh context per
  page): the overview's first chart drawn and pa's page's first chart, each <= 2x the hand-made
  page's load (``docs/index.html`` of the shared sweep) in the same round; the bytes the browser
  fetches before the first chart (playwright's request events) for the overview and the heaviest
  kernel page, each <= 3.5x the hand-made page's bytes before its load (plotly.js is not among
  them: the first chart is sketched without it, site.js); the tallest kernel page
  (flash_attn_func) as opened <= 30,000 px.

The machine's load (``os.getloadavg``) is printed at the start and the end: a shared machine's
neighbours slow both sides of a ratio, not always equally, hence the rounds and medians.

    python3 benchmarks/bench_sweep.py [--rounds 5] [--jobs N] [--no-pages]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import bench_build  # noqa: E402  (beside this file)
import bench_pages  # noqa: E402
from scaled_sweep import make_sized_sweep  # noqa: E402

SWEEP = REPO.parent / "shared" / "mi350x-sweep"
BUILD_RATIO, NOOP_S, PEAK_MB = 1.2, 0.4, 1024
CHART_RATIO, BYTES_RATIO, TALLEST_PX = 2.0, 3.5, 30_000
TALLEST, FIRST_CHART = "flash_attn_func", "pa"


def line(what: str, value: str, peer: str, ratio: float | None, budget: str, ok: bool) -> bool:
    """One budget line; returns ``ok``."""
    shown = "" if ratio is None else f"= {ratio:5.2f}x"
    print(f"{what:<44}{value:>12}  vs {peer:<34}{shown:>9}   budget {budget:<8} {'PASS' if ok else 'FAIL'}")
    return ok


def standin_round(captures: list[str]) -> tuple[float, int, float]:
    """The stand-in per capture, in sequence: seconds, its largest process's peak RSS (KiB), and the
    CPU seconds of its processes."""
    peak, cpu = 0, 0.0
    t = time.perf_counter()
    for cap in captures:
        proc = subprocess.Popen([sys.executable, str(bench_build.STANDIN), cap], stdout=subprocess.DEVNULL,
                                env=bench_build.CHILD_ENV)
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"the stand-in failed on {cap}")
        peak = max(peak, usage.ru_maxrss)
        cpu += usage.ru_utime + usage.ru_stime
    return time.perf_counter() - t, peak, cpu


def noop_cli(sweep: Path, out: Path) -> float:
    """Seconds of ``kernel-atlas build`` in a fresh interpreter on an up-to-date site."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "generator", "build", str(sweep), "--out", str(out), "--quiet"],
                   cwd=REPO, check=True, env=bench_build.CHILD_ENV)
    return time.perf_counter() - t


def build_lines(sweep: Path, tmp: Path, rounds: int, jobs: int) -> tuple[bool, Path]:
    """The cold build, no-op rebuild and memory lines; the built site."""
    from generator.site import build

    caps = bench_build.att_captures(sweep)
    out = tmp / "site"
    refs, colds, ratios, ref_peak, ref_cpus = [], [], [], 0, []
    for _ in range(rounds):
        ref, peak, ref_cpu = standin_round(caps)
        ref_cpus.append(ref_cpu)
        ref_peak = max(ref_peak, peak)
        shutil.rmtree(out, ignore_errors=True)
        r = bench_build.cold_build(sweep, out, jobs)
        refs.append(ref)
        colds.append(r)
        ratios.append(r["seconds"] / ref)
    ok = True
    cold = statistics.median(c["seconds"] for c in colds)
    ref = statistics.median(refs)
    print(f"  rounds, cold build / stand-in: {' '.join(f'{x:.2f}x' for x in ratios)}")
    ok &= line(f"cold build ({colds[0]['kernels']} kernels, {colds[0]['jobs']} jobs)", f"{cold:.2f} s",
               f"stand-in, {len(caps)} captures {ref:.2f} s", statistics.median(ratios), f"{BUILD_RATIO}x",
               statistics.median(ratios) <= BUILD_RATIO)
    cpu, ref_cpu = statistics.median(c["cpu"] for c in colds), statistics.median(ref_cpus)
    print(f"  CPU seconds: cold build (itself and its workers) {cpu:.2f} s, stand-in {ref_cpu:.2f} s = {cpu / ref_cpu:.2f}x "
          f"(on a loaded machine the wall ratio tends to this one: no core is free for the workers)")
    in_proc = []
    for _ in range(rounds):
        t = time.perf_counter()
        summary = build.build_site(sweep, out, progress=False)
        in_proc.append(time.perf_counter() - t)
        if not summary.up_to_date:
            raise SystemExit("the no-op rebuild rebuilt something")
    cli = statistics.median(noop_cli(sweep, out) for _ in range(rounds))
    one = statistics.median(standin_round(caps[:1])[0] for _ in range(rounds))  # a fresh interpreter's floor
    noop = statistics.median(in_proc)
    ok &= line("no-op rebuild, in process", f"{noop:.3f} s", f"one stand-in run {one:.3f} s", noop / one,
               f"{NOOP_S} s", noop <= NOOP_S)
    ok &= line("no-op rebuild, kernel-atlas build", f"{cli:.3f} s", f"one stand-in run {one:.3f} s", cli / one,
               f"{NOOP_S} s", cli <= NOOP_S)
    peak = max(max(c["self_kb"], c["child_kb"]) for c in colds) / 1024
    ok &= line("peak memory, largest build process", f"{peak:.0f} MB", f"stand-in's largest {ref_peak / 1024:.0f} MB",
               peak / (ref_peak / 1024), f"{PEAK_MB} MB", peak <= PEAK_MB)
    return ok, out


def page_lines(site: Path, anchor: Path, rounds: int) -> bool:
    """The browser's lines: first charts, bytes per view, the tallest page."""
    from playwright.sync_api import sync_playwright

    heavy = bench_pages.heavy_kernel(site)
    pages = {"anchor": (anchor.resolve().as_uri(), False),
             "overview": ((site / "index.html").resolve().as_uri(), True),
             FIRST_CHART: ((site / "kernels" / FIRST_CHART / "index.html").resolve().as_uri(), True),
             heavy: ((site / "kernels" / heavy / "index.html").resolve().as_uri(), True),
             TALLEST: ((site / "kernels" / TALLEST / "index.html").resolve().as_uri(), True)}
    got: dict[str, list[dict]] = {name: [] for name in pages}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=bench_pages.CHROMIUM, args=bench_pages.ARGS)
        try:
            for name, (address, charts) in pages.items():  # one warm-up load each, not counted
                bench_pages.view(browser, address, charts)
            for _ in range(rounds):
                for name, (address, charts) in pages.items():
                    got[name].append(bench_pages.view(browser, address, charts))
        finally:
            browser.close()
    ok = True
    anchor_load = statistics.median(g["load"] for g in got["anchor"])
    print(f"  hand-made page {anchor}: load {anchor_load:.0f} ms, {got['anchor'][0]['bytes'] / 1e3:.0f} KB "
          f"({', '.join(got['anchor'][0]['requests'])})")
    for name in ("overview", FIRST_CHART):
        ratios = [g["chart"] / a["load"] for g, a in zip(got[name], got["anchor"])]
        chart = statistics.median(g["chart"] for g in got[name])
        ok &= line(f"{name}: first chart drawn", f"{chart:.0f} ms", f"hand-made page's load {anchor_load:.0f} ms",
                   statistics.median(ratios), f"{CHART_RATIO}x", statistics.median(ratios) <= CHART_RATIO)
        live = [g["plotly"] / a["load"] for g, a in zip(got[name], got["anchor"]) if g["plotly"]]
        if live:
            print(f"    interactive (plotly.js drew it): {statistics.median(g['plotly'] for g in got[name] if g['plotly']):.0f} ms"
                  f" = {statistics.median(live):.2f}x the hand-made page's load (no budget)")
    base = got["anchor"][0]["bytes"]
    for name in ("overview", heavy):
        first = got[name][0]
        ok &= line(f"{name}: bytes before the first chart", f"{first['bytes'] / 1e3:.0f} KB",
                   f"hand-made page's {base / 1e3:.0f} KB", first["bytes"] / base, f"{BYTES_RATIO}x",
                   first["bytes"] <= BYTES_RATIO * base)
        print(f"    {len(first['requests'])} requests: {', '.join(first['requests'])}")
    tall = max(g["height"] for g in got[TALLEST])
    ok &= line(f"{TALLEST}: page height as opened", f"{tall:,} px", f"hand-made page {got['anchor'][0]['height']:,} px",
               tall / got["anchor"][0]["height"], f"{TALLEST_PX:,}", tall <= TALLEST_PX)
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep", nargs="?", type=Path, default=SWEEP)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-pages", action="store_true", help="the build's lines only")
    args = ap.parse_args(argv)
    anchor = args.sweep / "docs" / "index.html"
    if not (args.sweep / "examples").is_dir() or not anchor.is_file():
        print(f"no sweep with docs/index.html at {args.sweep}", file=sys.stderr)
        return 2
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"{args.rounds} rounds, medians")
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        pyc = Path(tmp) / "pyc"
        bench_build.warm_bytecode(pyc)
        sweep = make_sized_sweep(args.sweep, Path(tmp) / "sweep")
        print(f"sweep: {args.sweep} at the real one's size (benchmarks/scaled_sweep.py REAL_SIZE), "
              f"{len(bench_build.att_captures(sweep))} captures")
        ok, site = build_lines(sweep, Path(tmp), args.rounds, args.jobs)
        if not args.no_pages:
            ok &= page_lines(site, anchor, args.rounds)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
