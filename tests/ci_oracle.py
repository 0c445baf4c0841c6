"""DOMAIN.md §6 worked from the raw records (plain dicts of history.json), apart from the code under test:
each expected value in a few lines, as the contract words it."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict


def records(path) -> list[dict]:
    return json.loads(open(path, encoding="utf-8").read())["records"]


def key(r):
    return (r["runner"], r["op"], r["shape"], r["dtype"], r["metric"])


def series(recs):
    out = defaultdict(list)
    for r in recs:
        out[key(r)].append(r)
    return out


def pair_ok(r, b):
    p = r.get(b) or {}
    return r["status"] == "ok" and (r.get("value") or 0) > 0 and (p.get("ratio") or 0) > 0


def noise(rs):
    logs = [math.log(r["vs_main"]["ratio"]) for r in rs if r.get("pr") is not None and pair_ok(r, "vs_main")]
    if len(logs) < 5:
        return None
    m = statistics.median(logs)
    return 1.4826 * statistics.median([abs(x - m) for x in logs])


def decimals(x):
    text = repr(float(x))
    frac = text.split(".")[1] if "." in text and "e" not in text else "0"
    return 0 if frac.rstrip("0") == "" else len(frac.rstrip("0"))


def unit(rs):
    vals = [v for r in rs for v in (r.get("value"), (r.get("vs_main") or {}).get("baseline"),
                                    (r.get("vs_tag") or {}).get("baseline")) if isinstance(v, (int, float))]
    return 10.0 ** -max([decimals(v) for v in vals] + [0])


def kind(r, b, rs):
    """'regression', 'improvement', 'within_noise' or None (no usable pair)."""
    if not pair_ok(r, b):
        return None
    n, ratio = noise(rs), r[b]["ratio"]
    t = max(math.log(1 / 0.97), 3 * n if n is not None else 0)
    steps = round(abs(r["value"] - r[b]["baseline"]) / unit(rs))
    if abs(math.log(ratio)) > t and steps >= 2:
        return "regression" if ratio < 1 else "improvement"
    return "within_noise"


def latest(rs):
    top = max((r["run_id"], r["ts"]) for r in rs)
    return [r for r in rs if (r["run_id"], r["ts"]) == top]


def pr_checks(recs):
    """{(pr, runner): {kind: {(op, shape, dtype, metric): ratio}}} of each PR's latest run per runner."""
    ser, groups, out = series(recs), defaultdict(list), {}
    for r in recs:
        if r.get("pr") is not None:
            groups[(r["pr"], r["runner"])].append(r)
    for g, rs in groups.items():
        out[g] = defaultdict(dict)
        for r in latest(rs):
            k = kind(r, "vs_main", ser[key(r)]) if r["metric"] != "speedup" else None
            if k:
                out[g][k][key(r)[1:]] = r["vs_main"]["ratio"]
    return out


def health(recs, runs):
    """{runner: {(op, shape, dtype, metric): ratio}} regressed against the tag in its latest push to main."""
    pulls = {r["run_id"] for r in runs if r["event"] == "pull_request"}
    ser, groups = series(recs), defaultdict(list)
    for r in recs:
        if r.get("pr") is None and r["run_id"] not in pulls:
            groups[r["runner"]].append(r)
    return {runner: {key(r)[1:]: r["vs_tag"]["ratio"] for r in latest(rs)
                     if r["metric"] != "speedup" and kind(r, "vs_tag", ser[key(r)]) == "regression"}
            for runner, rs in groups.items()}


def speedups(recs):
    """{(runner, op, shape, dtype): (ratio, verdict, (lo, hi) of the last 5)} from aiter_us / flydsl_us."""
    out = {}
    for k, rs in series(recs).items():
        if k[4] != "speedup":
            continue
        rs = sorted(rs, key=lambda r: (r["run_id"], r["ts"]))
        q = [r["extra"]["aiter_us"] / r["extra"]["flydsl_us"] for r in rs]
        verdict = "WIN" if q[-1] >= 1.05 else "PARITY" if q[-1] >= 0.95 else "HEADROOM"
        out[k[:4]] = (round(q[-1], 3), verdict, (round(min(q[-5:]), 3), round(max(q[-5:]), 3)))
    return out


def inverted(recs):
    return [r for r in recs if r["metric"] == "speedup"
            and abs(r["value"] - r["extra"]["flydsl_us"] / r["extra"]["aiter_us"]) <= 0.02]


def flags(recs):
    """(their flags on PR records, of which within noise or resolution or without a usable pair)."""
    ser = series(recs)
    fl = [r for r in recs if r.get("pr") is not None and r.get("regression")]
    return len(fl), sum(kind(r, "vs_main", ser[key(r)]) != "regression" for r in fl)
