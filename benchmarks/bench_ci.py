"""Benchmark: a year of the FlyDSL CI stream (issue 38): ``ci --json`` and ``build --ci`` against ``json.load``.

    python benchmarks/bench_ci.py [HISTORY.json] [--times N]      (default ../shared/flydsl-ci/history.json, 20)

Writes, in a temporary folder, the real stream repeated N times (copy k: run ids shifted by k x the
stream's span of run ids, times by k x 21 days, pull request numbers by k x 1,000, so that every copy
is new runs of new pull requests on the same 228 series: about 100,000 records and 70 MB of JSON for
N = 20). Then runs, each in a fresh interpreter, one after the other:

- the peer: ``json.load`` of that file alone;
- ``kernel-atlas ci FILE --json`` (output to /dev/null);
- ``kernel-atlas build --ci FILE --out DIR`` (the stream's site alone);
- ``pandas.json_normalize`` of the records after ``json.load`` (what a DataFrame of the stream costs);

and prints each one's wall time and peak memory (the child's maximum resident set, ``os.wait4``) and
their ratios to the peer.

Why plain objects, not pandas (measured on the 2-core machine shared with other jobs, N = 20: 98,020
records, 56.5 MB written with indent=1): ``json.load`` alone 0.77 s, 235 MB peak; ``ci --json`` 3.41 s (4.4x)
and 382 MB (1.62x); ``build --ci`` 6.39 s (8.3x) and 389 MB (1.65x) for 408 pages; ``json.load`` +
``pandas.json_normalize`` 3.76 s (4.9x) and 392 MB (1.67x). The reading groups records by series and walks
each series in run order with a few medians: building a DataFrame of the stream costs more than the
whole analysis on slotted records (``read.ci_stream.CiRecord``) and as much memory, before computing
anything. (A first version spent 8.4 s of ``build --ci`` finding each pull request's missing runners by
scanning every record per PR; now one pass, ``report.pr_runs``.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT = os.path.join(os.path.dirname(REPO), "shared", "flydsl-ci", "history.json")
SHIFT_DAYS = 21
PR_SHIFT = 1000


def shifted_ts(ts: str, days: int) -> str:
    if not ts:
        return ts
    t = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc) + timedelta(days=days)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def scaled(doc: dict, times: int) -> dict:
    """The stream's records repeated ``times`` times, each copy new runs of new pull requests."""
    recs = doc["records"]
    ids = [r["run_id"] for r in recs if isinstance(r.get("run_id"), int)]
    span = max(ids) - min(ids) + 1
    out = []
    for k in range(times):
        for r in recs:
            c = dict(r)
            c["run_id"] = r["run_id"] + k * span
            c["ts"] = shifted_ts(r.get("ts", ""), k * SHIFT_DAYS)
            if r.get("pr") is not None:
                c["pr"] = r["pr"] + k * PR_SHIFT
            out.append(c)
    return {**{k: v for k, v in doc.items() if k != "records"}, "records": out}


def measure(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("history", nargs="?", default=DEFAULT)
    ap.add_argument("--times", type=int, default=20)
    args = ap.parse_args()
    if not os.path.isfile(args.history):
        raise SystemExit(f"{args.history}: no such file (the real stream is ../shared/flydsl-ci/history.json)")
    with open(args.history, encoding="utf-8") as fh:
        doc = scaled(json.load(fh), args.times)
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "history.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
        n, size = len(doc["records"]), os.path.getsize(path)
        del doc
        print(f"stream: {args.history} x {args.times}: {n:,} records, {size / 1e6:.1f} MB")
        runs = {
            "json.load (peer)": [py, "-c", f"import json; json.load(open({path!r}))"],
            "ci --json": [py, "-m", "generator", "ci", path, "--json"],
            "build --ci": [py, "-m", "generator", "build", "--ci", path, "--out", os.path.join(tmp, "site"), "--quiet"],
            "json.load + pandas.json_normalize": [py, "-c", "import json, pandas; "
                                                  f"pandas.json_normalize(json.load(open({path!r}))['records'])"],
        }
        results = {}
        for name, argv in runs.items():
            try:
                results[name] = measure(argv)
            except SystemExit as err:
                print(f"{name}: not measured ({err})")
        pages = sum(1 for _ in os.scandir(os.path.join(tmp, "site", "ci"))) if os.path.isdir(os.path.join(tmp, "site", "ci")) else 0
    peer_t, peer_m = results["json.load (peer)"]
    print(f"{'':36} {'wall s':>8} {'x peer':>7} {'peak MB':>8} {'x peer':>7}")
    for name, (t, m) in results.items():
        print(f"{name:36} {t:8.2f} {t / peer_t:7.1f} {m:8.0f} {m / peer_m:7.2f}")
    print(f"build --ci wrote {pages} pages under ci/")


if __name__ == "__main__":
    main()
