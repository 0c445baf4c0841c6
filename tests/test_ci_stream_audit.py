"""The CI pages' claims against DOMAIN.md §6 worked by hand from the raw files of ../shared/flydsl-ci (the
audit of 2026-12-07). Each expected number below was recomputed from history.json / runs.json with plain
json and math, apart from the code under test; the fixes it pins:

- the trend chart's "main against the tag" line held the ``pr``-null runs that runs.json marks as
  pull_request events (256 of its 866 points: fix_pipeline, extend_v2_gemm, ... branches drawn as main);
- an op page's "latest" and the devices page's cells were the latest record of any run, on this copy a pull
  request's branch for every series (PR #778 on mi325, #776 on mi355): now the latest push to main;
- the CI op ``gemm`` linked to the sweep's hgemm_splitk (its timing campaign is named ``gemm``), while the
  CI's ``gemm`` runs the preshuffle GEMM and its ``hgemm`` the split-K HGEMM.
"""

from __future__ import annotations

import html
import json
import math
import re
import statistics
from collections import defaultdict

import pytest

from conftest import ON_SLICE
from generator import cli
from test_ci_stream import NEEDS_REAL, stream  # noqa: F401  (fixture)

MI325, MI355, NAVI = "linux-flydsl-mi325-1", "linux-flydsl-mi355-1", "linux-flydsl-navi-2"
GEMM_9728 = "9728x8192x8320_tile64x256x128"


@pytest.fixture(scope="module")
def raw(stream):
    recs = json.loads(stream[0].read_text(encoding="utf-8"))["records"]
    runs = {r["run_id"]: r for r in json.loads(stream[1].read_text(encoding="utf-8"))["runs"]}
    return recs, runs


@pytest.fixture(scope="module")
def site(stream, tmp_path_factory):
    out = tmp_path_factory.mktemp("ci-audit") / "site"
    assert cli.main(["build", "--ci", str(stream[0]), "--ci-runs", str(stream[1]), "--out", str(out), "--quiet"]) == 0
    return out


def key(r):
    return (r["runner"], r["op"], r["shape"], r["dtype"], r["metric"])


def is_push(r, runs) -> bool:
    """DOMAIN §6 health: ``pr`` null, and not a run runs.json marks as a pull_request event."""
    return r.get("pr") is None and runs.get(r["run_id"], {}).get("event") != "pull_request"


def figure(page: str, anchor: str) -> dict:
    m = re.search(r'<script type="application/json" id="[^"]*' + re.escape(anchor) + r'">(.*?)</script>', page, re.S)
    fig = json.loads(html.unescape(m.group(1)))
    return fig.get("figure", fig)


def text(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


@NEEDS_REAL
def test_the_noise_median_is_0_37_percent_not_0_3(raw, site):
    """DOMAIN §6 writes "median 0.3 %": over the 150 series with >= 5 usable PR pairs it is 0.3699 %
    (the mean of the 75th and 76th, 0.3697 % and 0.3700 %); p90 (nearest rank) 2.06 %, worst 13.83 %."""
    recs, _ = raw
    logs = defaultdict(list)
    for r in recs:
        p = r.get("vs_main") or {}
        if r.get("pr") is not None and r["status"] == "ok" and (r.get("value") or 0) > 0 and (p.get("ratio") or 0) > 0:
            logs[key(r)].append(math.log(p["ratio"]))
    noises = sorted(1.4826 * statistics.median([abs(x - statistics.median(v)) for x in v])
                    for v in logs.values() if len(v) >= 5)
    assert len(noises) == 150
    assert round(statistics.median(noises) * 100, 4) == 0.3699
    assert round(noises[134] * 100, 2) == 2.06 and round(noises[-1] * 100, 2) == 13.83
    assert "0.37 % / 2.06 % / 13.83 % (150)" in text((site / "ci/index.html").read_text(encoding="utf-8"))


@NEEDS_REAL
def test_the_tag_line_holds_pushes_to_main_only(raw, site):
    """mi325 gemm 9728 fp8: its pushes read 0.981, 0.985, 0.989 and 0.903 against the tag; the 0.94 of run
    28412606907 (the fix_pipeline branch, a pull_request run with ``pr`` null) is no push to main."""
    recs, runs = raw
    assert runs[28412606907]["event"] == "pull_request" and runs[28412606907]["pr"] is None
    page = (site / "ci/op-linux-flydsl-mi325-1--gemm.html").read_text(encoding="utf-8")
    tag = next(t for t in figure(page, f"s-{GEMM_9728.replace('_', '-')}-fp8-tflops")["data"]
               if t["name"] == "main against the tag")
    assert tag["y"] == [0.981, 0.985, 0.989, 0.903]
    assert tag["x"] == ["2026-06-27T04:24:14Z", "2026-06-28T08:41:44Z", "2026-06-29T12:32:46Z", "2026-06-30T09:02:17Z"]
    # over every figure: 610 points of pushes, none of the 256 of pr-null pull_request runs
    pushes = [r for r in recs if r["metric"] != "speedup" and r.get("pr") is None and r["status"] == "ok"
              and (r.get("value") or 0) > 0 and ((r.get("vs_tag") or {}).get("ratio") or 0) > 0]
    assert len(pushes) == 866 and sum(is_push(r, runs) for r in pushes) == 610
    drawn = 0
    for f in site.glob("ci/op-*.html"):
        body = f.read_text(encoding="utf-8")
        for m in re.finditer(r'<script type="application/json" id="[^"]+">(.*?)</script>', body, re.S):
            fig = json.loads(html.unescape(m.group(1)))
            drawn += sum(len(t["y"]) for t in fig.get("figure", fig)["data"] if t["name"] == "main against the tag")
    assert drawn == 610


@NEEDS_REAL
def test_latest_is_the_latest_push_to_main_not_a_pull_requests_branch(raw, site):
    """The latest record of mi325 gemm 9728 fp8 is PR #778's branch (1348.91); main's latest push,
    run 28429439356 at 3f5846bfcd, measured 1387.42. Every op page's "latest" is main's, recomputed."""
    recs, runs = raw
    page = text((site / "ci/op-linux-flydsl-mi325-1--gemm.html").read_text(encoding="utf-8"))
    assert f"{GEMM_9728} fp8 · TFLOPS noise 1.04 % (21) · latest push to main 1387.42 TFLOPS · 3f5846bfcd · 2026-06-30" in page
    series = defaultdict(list)
    for r in recs:
        series[key(r)].append(r)
    want = {}
    for k, rs in series.items():
        main = [r for r in sorted(rs, key=lambda r: (r["run_id"], r["ts"]))
                if is_push(r, runs) and r["status"] == "ok" and (r.get("value") or 0) > 0]
        if k[4] != "speedup":
            want[k] = f"{main[-1]['value']:g} {k[4]} · {main[-1]['commit'][:10]} · {main[-1]['ts'][:10]}" if main else "—"
    assert sum(v != "—" for v in want.values()) == 168 and len(want) == 220
    seen = 0
    for f in site.glob("ci/op-*.html"):
        body = f.read_text(encoding="utf-8")
        for m in re.finditer(r'<h2[^>]*>(.*?) <span class="muted small">(.*?) · (.*?)</span></h2>\s*<p class="small">'
                             r'.*?<span data-i18n="ci.latest">.*?</span> <span translate="no">(.*?)</span>', body, re.S):
            shape, dtype, metric, latest = map(html.unescape, m.groups())
            k = next(k for k in want if f.name == f"op-{slug(k[0])}--{slug(k[1])}.html" and k[2:] == (shape, dtype, metric))
            assert latest == want[k], (k, latest)
            seen += 1
    assert seen == 220


def slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


@NEEDS_REAL
def test_devices_side_by_side_are_each_runners_latest_push(site):
    """gemm 9728 fp8: mi325 1387.42 and mi355 1955.39, both commit 3f5846bfcd (run 28429439356), not PR
    #778's 1348.91 and PR #776's 1904.37; layernorm on navi from its own latest push, 3552f11d80."""
    page = (site / "ci/devices.html").read_text(encoding="utf-8")
    heads = re.findall(r"<th translate=\"no\">(.*?)</th>", page, re.S)
    assert [text(h).strip() for h in heads] == [f"{MI325} 3f5846bfcd · 2026-06-30 09:02",
                                                f"{MI355} 3f5846bfcd · 2026-06-30 09:24",
                                                f"{NAVI} 3552f11d80 · 2026-06-30 06:40"]
    rows = {tuple(text(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S))
            for row in re.findall(r"<tr>(.*?)</tr>", page.split("<tbody>", 1)[1], re.S)}
    assert ("gemm", GEMM_9728, "fp8 · TFLOPS", "1387.42", "1955.39", "—") in rows
    assert ("layernorm", "32768x8192", "bf16 · TB/s", "3.961", "5.637", "0.51") in rows
    # a flash_attn shape printed as 0.0 TFLOPS is no value
    assert ("flash_attn", "B1S1H4Hkv4D128_causal", "bf16 · TFLOPS", "—", "—", "—") in rows


@NEEDS_REAL
def test_the_health_cards_recomputed(raw, site):
    """Each runner's latest push against the tag (3 x noise, at least the 3 % gate, two printed digits):
    mi325 3 regressions of 46 pairs, mi355 3 of 99 (and 10 improvements), navi none of 3."""
    page = text((site / "ci/index.html").read_text(encoding="utf-8"))
    for frag in ("gemm 9728x8192x8320_tile64x256x128 fp8 0.903x 0.969x", "gemm 9728x8192x8320_tile64x256x128 int8 0.941x 0.970x",
                 "rmsnorm 32768x8192 bf16 0.956x 0.970x", "gemm 5120x5120x8320_tile64x256x128 fp8 0.937x 0.946x",
                 "gemm 9728x8192x8320_tile64x256x128 fp8 0.958x 0.970x",
                 "gemm_async 5120x5120x8320_tile128x256x128_2tg fp8 0.947x 0.956x",
                 "their -3 % flags on PR records / within noise or resolution 103 / 59"):
        assert frag in page, frag
    assert re.search(r"pairs compared 46 · improvements 0", page) and re.search(r"pairs compared 99 · improvements 10", page)


@pytest.mark.full_sweep
def test_ci_ops_link_to_the_kernel_they_run(stream, sweep, tmp_path):
    """The CI's gemm, gemm_async and gemm_fp4_async run test_preshuffle_gemm.py, its hgemm the split-K HGEMM
    and gemm_fp4 fp4_gemm_4wave (FlyDSL scripts/run_benchmark.sh); the sweep's ``gemm`` campaign times
    hgemm_splitk, a name only."""
    if ON_SLICE:
        pytest.skip("needs the whole sweep (preshuffle_gemm and hgemm_splitk)")
    out = tmp_path / "site"
    assert cli.main(["build", str(sweep), "--ci", str(stream[0]), "--ci-runs", str(stream[1]), "--out", str(out),
                     "--quiet", "--jobs", "1"]) == 0

    def panel(slug_):
        page = (out / f"kernels/{slug_}/index.html").read_text(encoding="utf-8")
        part = page.split('<section class="panel" id="ci">', 1)[1].split("</section>", 1)[0]
        return re.findall(r'href="\.\./\.\./ci/(op-[^"]+)"', part)

    assert panel("hgemm_splitk") == [f"op-{slug(r)}--hgemm.html" for r in (MI325, MI355)]
    pre = panel("preshuffle_gemm")
    assert f"op-{slug(MI355)}--gemm.html" in pre and f"op-{slug(MI325)}--gemm-async.html" in pre
    assert len(pre) == 6 and not any("hgemm" in p or "gemm-fp4.html" in p for p in pre)
    gemm = (out / "ci/op-linux-flydsl-mi325-1--gemm.html").read_text(encoding="utf-8")
    assert 'href="../kernels/preshuffle_gemm/index.html"' in gemm and "hgemm_splitk" not in gemm
    assert 'href="../kernels/flash_attn_func/index.html"' in (out / "ci/op-linux-flydsl-mi355-1--flash-attn.html").read_text(encoding="utf-8")


@NEEDS_REAL
def test_a_threshold_that_prints_as_its_ratio_gets_a_fourth_decimal(site):
    """PR #768 on mi355: gemm_async 5120 fp8 reads 0.956 against 3 x its noise (1.4901 %), exp(-0.0447) =
    0.95628: past it by 0.0003 in ln, a regression that printed as "0.956x < 0.956x"; a ratio of 0.97 at the
    3 % gate itself is a tie (not past it: within noise) and keeps three decimals."""
    page = text((site / "ci/pr-768.html").read_text(encoding="utf-8"))
    assert "gemm_async 5120x5120x8320_tile128x256x128_2tg fp8 0.956x 0.9563x" in page
    tie = text((site / "ci/pr-737.html").read_text(encoding="utf-8"))
    assert "flash_attn B16S8192H16Hkv16D128_causal bf16 0.970x 0.970x 3 % gate 0.15 % 266.3 vs 274.4" in tie
