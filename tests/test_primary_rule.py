"""Why the primary capture is primary: ``Bundle.primary_rule`` (``discover.choose_primary``) is said
beside "primary" on the captures panel and written in the kernel's API document; and the captures
panel keeps AMD ATT's wave words (wave states, one sampled wave over time) off Nsight Compute captures.

Worked from the raw files:
- shared sweep, ``examples/flash_attn_func``: ``source/`` holds input_trace.yaml and input_trace_big.yaml,
  no hotspot_output.txt, so no ``Loading:`` line names a capture; labels big and small (big first);
  ``att_viewer/big`` holds ui_output_agent_38430_dispatch_44 and ui_output_agent_55287_dispatch_44_after_loc_fix:
  sorted by name "...38430..." < "...55287..." (3 < 5), so the after-fix run is the primary only by name order.
- its slice (tests/data/mi350x-slice): the same bundle with one capture, small/ui_output_agent_32235_dispatch_44.
- ``examples/pa/source/hotspot_output.txt``: "Loading: /sgl-workspace/.../att/ui_output_agent_10886_dispatch_209",
  the one capture in ``att_viewer/big`` (whole sweep and slice).
- ``bundles/examples/gemm`` (NVIDIA H200 demo): ``source/`` holds gemm.py and spec_gemm.py (no hotspot_output.txt),
  one capture ``ncu/prefill`` of details.csv, raw.csv, source_sass.csv, source_cuda_sass.csv and provenance.json:
  warp-stall samples per SASS row, no per-wave state file and no single-wave trace.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from generator.analyze.message import Sentence
from generator.model import CaptureRef
from generator.read import discover
from generator.site import i18n
from generator.site.views import base, captures, kernel as kernel_views
from test_render import build_real_site

REPO = Path(__file__).resolve().parent.parent
FLASH = "examples/flash_attn_func/att_viewer"
AFTER_FIX = f"{FLASH}/big/ui_output_agent_55287_dispatch_44_after_loc_fix"
LAST_RULE = "label big, last capture by name"


def _panel(k, row) -> list[captures.CaptureView]:
    page = kernel_views.kernel_page(k, row, base.SiteContext())
    return next(p.data for p in page.panels if p.name == "captures")


def _article(html: str, anchor: str) -> str:
    start = html.index(f'<article class="capture" id="{anchor}">')
    return html[start:html.index("</article>", start)]


# ---------------------------------------------------------------- every rule choose_primary gives has its sentence

def _ref(label: str, name: str, skipped: str | None = None) -> CaptureRef:
    return CaptureRef(path="", rel=f"b/att_viewer/{label}/{name}", name=name, label=label, format="att", skipped=skipped)


def _cap(ref: CaptureRef) -> base.CaptureData:
    return base.CaptureData(label=ref.label, name=ref.name, rel=ref.rel, is_primary=False,
                            status="skipped" if ref.skipped else "ok")


@pytest.mark.parametrize("named, refs, rule, key", [
    ("x_2", [_ref("big", "x_1"), _ref("big", "x_2")], "named by source/hotspot_output.txt", "msg.cap.primary.named"),
    # the named capture is empty (skipped): the fallback picks x_1, the one usable capture
    ("x_2", [_ref("big", "x_1"), _ref("big", "x_2", "empty")], LAST_RULE, "msg.cap.primary.only"),
    (None, [_ref("big", "x_1"), _ref("big", "x_2"), _ref("small", "x_3")], LAST_RULE, "msg.cap.primary.last"),
    (None, [_ref("big", "x_1"), _ref("small", "x_3")], LAST_RULE, "msg.cap.primary.label"),
    (None, [_ref("small", "x_1"), _ref("tiny", "x_3")], "label small, last capture by name", "msg.cap.primary.label"),
    (None, [_ref("", "x_1"), _ref("", "x_2")], "label (none), last capture by name", "msg.cap.primary.last.nolabel"),
    (None, [_ref("big", "x_1", "empty")], "no usable capture", "msg.cap.primary.none"),
])
def test_each_rule_of_choose_primary_has_its_sentence(tmp_path, named, refs, rule, key):
    if named:
        (tmp_path / "source").mkdir()
        (tmp_path / "source" / "hotspot_output.txt").write_text(f"Loading: /w/att/{named}\n")
    _, got = discover.choose_primary(str(tmp_path), refs)
    assert got == rule
    said = captures.primary_rule_sentence(got, [_cap(r) for r in refs])
    assert isinstance(said, Sentence) and said.msg.key == key
    zh = i18n.catalogue("zh")[key]
    assert not re.search(r"[A-Za-z]", re.sub(r"\{[^}]*\}", "", zh)), zh  # Latin only as data
    assert "{label}" not in said and "{file}" not in said


def test_the_capture_given_and_an_unknown_rule():
    assert captures.primary_rule_sentence("the capture given", []).msg.key == "msg.cap.primary.given"
    other = captures.primary_rule_sentence("a rule from elsewhere", [])
    assert other.msg.key == "msg.cap.primary.other" and "a rule from elsewhere" in other
    assert captures.primary_rule_sentence(None, []) == "" and captures.primary_rule_sentence("", []) == ""


# ---------------------------------------------------------------- the real bundles

@pytest.mark.full_sweep
def test_flash_attn_func_says_its_primary_is_chosen_by_name_order(sweep, kernel):
    raw = sweep / "examples" / "flash_attn_func"
    assert not (raw / "source" / "hotspot_output.txt").exists()
    assert sorted(p.name for p in (raw / "att_viewer" / "big").iterdir()) == [
        "ui_output_agent_38430_dispatch_44", "ui_output_agent_55287_dispatch_44_after_loc_fix"]
    k, row = kernel("flash_attn_func")
    assert k.primary_rule == LAST_RULE and len(k.captures) == 4
    views = _panel(k, row)
    assert [v.rel for v in views if v.is_primary] == [AFTER_FIX]
    said = [v.primary_rule for v in views if v.primary_rule]
    assert len(said) == 1 and views[1].primary_rule is said[0] and said[0].msg.key == "msg.cap.primary.last"
    assert said[0] == ("Primary by name only: the bundle has no source/hotspot_output.txt that names a usable capture, "
                       "so of label big "
                       "(big first, else the first label by name) the last capture in name order was taken; "
                       "name order need not be capture order.")
    doc = kernel_views.kernel_json(k, row, 2)
    assert doc["primary_rule"] == LAST_RULE
    assert [c["path"] for c in doc["captures"] if c["primary"]] == [AFTER_FIX]


@pytest.mark.full_sweep
def test_flash_attn_func_page_and_api_carry_the_rule(tmp_path_factory, sweep):
    site = build_real_site(tmp_path_factory, sweep)
    html = (site / "kernels" / "flash_attn_func" / "index.html").read_text(encoding="utf-8")
    primary = _article(html, "c1")
    assert 'data-i18n="cap.primary"' in primary and AFTER_FIX in primary
    assert '<p class="small primary-rule"><span class="en-only">Primary by name only:' in primary
    assert "按名称排序的最后一个采集" in primary
    assert all("primary-rule" not in _article(html, f"c{i}") for i in (0, 2, 3))
    doc = json.loads((site / "api" / "kernels" / "flash_attn_func.json").read_text())
    assert doc["primary_rule"] == LAST_RULE and doc["captures"][1]["primary"] is True


def test_flash_attn_func_small_run_alone_has_one_capture_to_choose(sweep, tmp_path):
    """flash_attn_func as the slice holds it (its small run's capture before the fix, no hotspot_output.txt), made
    from either sweep: the only usable capture is the primary, and the page says so."""
    src, dst = sweep / "examples" / "flash_attn_func", tmp_path / "examples" / "flash_attn_func"
    cap = "att_viewer/small/ui_output_agent_32235_dispatch_44"
    for part in (cap, "compute_viewer", "source"):
        shutil.copytree(src / part, dst / part, ignore=shutil.ignore_patterns("*big*"))
    (b,) = discover.discover(tmp_path).bundles
    assert b.primary_rule == "label small, last capture by name"
    (ref,) = b.captures
    view = captures.primary_rule_sentence(b.primary_rule, [_cap(ref)])
    assert view.msg.key == "msg.cap.primary.only"
    assert view == ("Primary: the only usable capture read (the bundle has no source/hotspot_output.txt that names a "
                    "usable capture).")


def test_pa_primary_is_named_by_its_hotspot_output(sweep, kernel):
    text = (sweep / "examples" / "pa" / "source" / "hotspot_output.txt").read_text()
    assert re.search(r"^Loading: \S+/ui_output_agent_10886_dispatch_209$", text, re.M)
    k, row = kernel("pa")
    assert k.primary_rule == "named by source/hotspot_output.txt"
    views = _panel(k, row)
    assert [v.rel for v in views if v.is_primary] == ["examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209"]
    assert views[0].primary_rule == "Primary: the capture source/hotspot_output.txt names."
    assert kernel_views.kernel_json(k, row, 2)["primary_rule"] == "named by source/hotspot_output.txt"


# ---------------------------------------------------------------- NVIDIA captures: no AMD wave words

def test_ncu_capture_panel_has_no_wave_sections(demo_site):
    raw = REPO / "bundles" / "examples" / "gemm"
    assert sorted(p.name for p in (raw / "ncu" / "prefill").iterdir()) == [
        "details.csv", "provenance.json", "raw.csv", "source_cuda_sass.csv", "source_sass.csv"]
    html = _article((demo_site / "kernels" / "gemm" / "index.html").read_text(encoding="utf-8"), "c0")
    for amd in ('data-i18n="cap.wavestates"', 'data-i18n="cap.nowavestates', 'data-i18n="cap.timeline"',
                "Wave states", "One sampled wave over time", "wave states come from AMD", "not one wave"):
        assert amd not in html, amd
    assert 'data-i18n="cap.stalltypes"' in html and 'data-i18n="cap.occupancy"' in html
    # one capture, no hotspot_output.txt: the only one read
    assert not (raw / "source" / "hotspot_output.txt").exists()
    assert "Primary: the only usable capture read" in html
    doc = json.loads((demo_site / "api" / "kernels" / "gemm.json").read_text())
    assert doc["primary_rule"] == "label prefill, last capture by name"


def test_att_capture_panel_keeps_its_wave_sections(sweep, kernel):
    k, row = kernel("pa")
    view = _panel(k, row)[0]
    assert view.vendor == "amd" and view.wave_sections and view.wave_states and view.timeline is not None
