"""Thousands of kernels (issue 25): no depth that grows with the sweep, memory flat in the
number of kernels. The kernels are the real sweep's, linked many times under new names (as
``benchmarks/bench_build.py --scale N`` does)."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from generator.analyze import advice, analysis, message
from generator.read import discover
from generator.site import build, deferred, wording
from test_render import built_site  # noqa: F401  (the real site, built once per session)

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
import scaled_sweep  # noqa: E402  (benchmarks/scaled_sweep.py: the linked copies)

N_KERNELS = 10_000


def _pa_findings(sweep):
    """The real findings of pa's primary capture and its expected verdict and geomean."""
    expected = json.loads((sweep / "expected" / "verdicts.json").read_text())["pa_decode"]
    bundle = next(b for b in discover.discover(sweep).bundles if b.name == "pa")
    prim = next(r for r in analysis.analyze_bundle(bundle) if r.is_primary)
    found = advice.advise(prim.analyses[0], advice.AdviceContext(bundle=bundle))
    return found, expected["verdict"], expected["verdict_geomean"][0]  # the ratio the verdict rests on


def test_a_sweep_finding_over_ten_thousand_kernels_words_and_serializes(sweep):
    """pa's real VGPR limit shared by 10,000 kernels: one flat list of members, so the message
    serializes, reads back and words in English and 中文 far above the recursion limit."""
    found, verdict, geomean = _pa_findings(sweep)
    per_kernel = {f"pa_x{i:05d}": (found, verdict, geomean) for i in range(N_KERNELS)}
    vgpr = next(sf for sf in advice.sweep_findings(per_kernel) if sf.key == "limiter:VGPR")
    assert len(vgpr.kernels) == N_KERNELS > sys.getrecursionlimit()
    doc = vgpr.messages["text"].to_json()
    text = json.dumps(doc)  # the site's JSON: no RecursionError
    assert message.from_json(json.loads(text)) == vgpr.messages["text"]
    en = wording.plain("en", vgpr.messages["text"])
    assert en == vgpr.text
    # worked by hand: pa's detail "2 waves/SIMD, free 24 VGPRs"; its top-ranked finding is not the VGPR
    # limit, so the limit holds none of the headroom (issue 21.4: each kernel's gap counted once)
    assert en.startswith("VGPR-bound occupancy: pa_x00000 (2 waves/SIMD, free 24 VGPRs); pa_x00001 (")
    assert en.count("; ") == N_KERNELS - 1
    assert en.endswith("pa_x09999 (2 waves/SIMD, free 24 VGPRs). It is the first step of no HEADROOM kernel.")
    zh = wording.plain("zh", vgpr.messages["text"])
    assert zh.startswith("占用率受 VGPR 限制：pa_x00000（每 SIMD 2 个 wave，可释放 24 个 VGPR）；pa_x00001（")
    assert zh.count("；") == N_KERNELS - 1
    assert zh.endswith("pa_x09999（每 SIMD 2 个 wave，可释放 24 个 VGPR）。它不是任何 HEADROOM 内核的第一步。")


def test_a_flat_list_keeps_its_separator_through_json():
    """An ``Items`` list names its separator; a plain list keeps the catalogue's ``finding.sep``."""
    m = message.msg("advice.sweep.body", members=message.Items(("a", "b"), "advice.sweep.sep"), tail=["x", "y"])
    doc = m.to_json()
    assert doc == ["advice.sweep.body", {"members": {"list": ["a", "b"], "sep": "advice.sweep.sep"},
                                         "tail": {"list": ["x", "y"]}}]
    assert message.from_json(doc) == m
    assert wording.plain("en", doc) == "a; b.x, y"
    assert wording.plain("zh", doc) == "a；b。x、y"


# A build in a fresh interpreter, serial (one process gathers, renders and keeps everything), that
# prints its exit status and its peak RSS in KiB.
PROBE = """
import resource, sys
from generator import cli
rc = cli.main(["build", sys.argv[1], "--out", sys.argv[2], "--jobs", "1", "--quiet", "--force"])
print(rc, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kb(sweep_dir, out) -> int:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(sweep_dir), str(out)], cwd=REPO, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=600)
    rc, kb = proc.stdout.split()
    assert rc == "0", proc.stderr
    return int(kb)


def test_three_times_the_kernels_peak_within_ten_percent_of_one(sweep, tmp_path):
    """The real sweep linked 3 times (57 kernels) against linked once (19), both serial: each
    kernel's pages are written as it is made and only its row stays, so the peak hardly moves
    (it grew ~1.2 MB per kernel when every kernel's files were held until the end)."""
    one = scaled_sweep.make_scaled_sweep(sweep, tmp_path / "x1", 1)
    three = scaled_sweep.make_scaled_sweep(sweep, tmp_path / "x3", 3)
    peak1, peak3 = _peak_kb(one, tmp_path / "site1"), _peak_kb(three, tmp_path / "site3")
    kernels = json.loads((tmp_path / "site3" / "kernel-atlas-manifest.json").read_text())["items"]
    assert len(kernels) == 3 * len(json.loads((tmp_path / "site1" / "kernel-atlas-manifest.json").read_text())["items"])
    assert {"pa", "pa_x1", "pa_x2", "pa_decode_x2"} - set(kernels) == {"pa_decode_x2"}  # paired by the toml
    assert peak3 <= 1.10 * peak1, (peak1, peak3)


def _moved(site: Path) -> dict[str, str]:
    text = (site / deferred.DATA_FILE).read_text(encoding="utf-8")
    head = "window.KA_DEFERRED = "
    assert text.startswith(head) and text.endswith(";\n")
    return json.loads(text[len(head):-2])


def test_an_overview_beyond_one_page_keeps_the_first_page_and_moves_the_rest(sweep, built_site, tmp_path,
                                                                           monkeypatch):
    """The real kernels (19; 8 on the slice) in pages of 5 (a page size set by hand: the real sweep is smaller
    than one page): index.html holds the first 5 rows in table order, index-data.js the others and the parts
    that grow with the sweep, each put where its placeholder stands; every kernel is listed once."""
    monkeypatch.setattr(deferred, "PAGE_ROWS", 5)
    out = tmp_path / "site"
    build.build_site(sweep, out, progress=False)
    html = (out / "index.html").read_text(encoding="utf-8")
    moved = _moved(out)
    slugs = set(json.loads((out / "kernel-atlas-manifest.json").read_text())["items"])
    inline = re.findall(r'<tr class="krow" id="k-([^"]+)"', html)
    later = re.findall(r'<tr class="krow" id="k-([^"]+)"', "".join(v for k, v in moved.items() if k.startswith("rows-")))
    pages = sorted((out / "kernels").glob("*/index.html"))  # one kernel page per kernel
    assert len(slugs) == len(pages) > 5
    assert len(inline) == 5 and len(later) == len(pages) - 5 and sorted(inline + later) == sorted(slugs)
    one_file = re.findall(r'<tr class="krow" id="k-([^"]+)"', (built_site / "index.html").read_text(encoding="utf-8"))
    assert inline + later == one_file  # the table's order
    assert set(re.findall(r'<template data-deferred="([^"]+)"></template>', html)) == set(moved)
    assert {"coverage", "reading", "disagreements", "fig-overview-speedups", "fig-overview-headline"} <= set(moved)
    assert 'id="pager" data-page-size="5"' in html
    assert f'<span id="page-at" translate="no">1 / {math.ceil(len(pages) / 5)}</span>' in html
    assert html.index('<script src="index-data.js">') < html.index('<script src="static/site.')
    assert "index-data.js" in json.loads((out / "kernel-atlas-manifest.json").read_text())["files"]


def test_an_overview_of_one_page_is_one_file(built_site):
    """The real sweep (19 kernels; 8 on the slice) is below one page: nothing is moved out, no pager."""
    html = (built_site / "index.html").read_text(encoding="utf-8")
    assert not (built_site / deferred.DATA_FILE).exists()
    assert "data-deferred" not in html and 'id="pager"' not in html
    assert len(re.findall(r'<tr class="krow"', html)) == len(list((built_site / "kernels").glob("*/index.html")))


#: VERDICTS' order of news, best first (the overview's display order; generator.site.views.base.VERDICT_RANK)
NEWS = ("WIN", "PARITY", "HEADROOM", "BLOCKED", "UNTIMED", None)


def test_the_first_page_of_the_real_sweep_orders_by_verdict_ratio(built_site):
    """The table's rows (the paged overview keeps the first five inline) in display order, worked from each
    row's own fields in api/index.json: category (uncategorized last), verdict (best news first), verdict
    ratio (highest first), name. The whole sweep's first five (flash_attn_func, pa, vec_add, moe_gemm,
    fp8_gemm_rowscale) are pinned in test_browser.test_the_whole_sweep_has_its_pages_charts_and_rows."""
    rows = re.findall(r'<tr class="krow" id="k-([^"]+)"', (built_site / "index.html").read_text(encoding="utf-8"))
    api = json.loads((built_site / "api" / "index.json").read_text())["kernels"]
    want = sorted(api, key=lambda r: (r["category"] == "uncategorized", r["category"], NEWS.index(r["verdict"]),
                                      -(r["verdict_value"] or 0.0), r["name"].lower(), r["slug"]))
    assert rows == [r["slug"] for r in want] and len(rows) == len(list((built_site / "kernels").glob("*/index.html")))
    assert rows == [r["slug"] for r in api]  # api/index.json lists them in the table's order
    # the slice: pa (0.54x) before flash_attn_func (no campaign there); the whole sweep: flash_attn_func 0.87x before pa
    assert rows.index("pa") < 5 and rows.index("flash_attn_func") < 5



@pytest.mark.full_sweep
def test_the_real_size_sweep_has_the_real_sweeps_kernels_and_captures(sweep, tmp_path):
    """Issue 41's benchmark sweep (``scaled_sweep.make_sized_sweep``): the shared sweep's 13 bundles
    and 18 campaigns plus four bundles and five campaigns linked once more, 25 kernels and 22 ATT
    captures (the code.json files under the bundles' att_viewer/, counted on disk), as the real sweep."""
    from generator.analyze import kernels, verdicts
    from generator.config import load_config

    real = scaled_sweep.make_sized_sweep(sweep, tmp_path / "real")
    bundles = sorted(p.name for p in (real / "examples").iterdir())
    campaigns = sorted(p.name for p in (real / "benchmarks" / "examples").iterdir())
    assert len(bundles) == 17 and len(campaigns) == 23
    assert {b for b in bundles if b.endswith("_x1")} == {"pa_x1", "pa_mqa_logits_fp4_x1", "moe_gemm_x1", "layernorm_x1"}
    captures = [p for b in bundles for p in (real / "examples" / b / "att_viewer").glob("*/*/code.json")]
    assert len(captures) == 22
    found = discover.discover(real)
    refs = kernels.pair_kernels(found, load_config(found.root), verdicts.load_kernels_json(found.root))
    assert len(refs) == 25 and {"pa_x1", "paged_attention_x1", "fp8_gemm_rowscale_x1"} <= {r.slug for r in refs}
