"""Small truths a newcomer tripped on (issue 23, 7), on the real sweep's pages and in hand-worked
cases: the open diamond explained, categories as their owners write them."""

from __future__ import annotations

import json
import re

import pytest

from generator.analyze.kernels import KernelRef, category_labels
from generator.site import charts
from test_render import build_real_site  # same test folder


def _ref(name: str, category: str | None) -> KernelRef:
    return KernelRef(slug=name.lower(), name=name, category=category, bundle=None, op=None, campaign_dir=None, entry=None)


def test_categories_take_the_spelling_of_their_kernels_names():  # hand-made names: each rule once
    refs = [_ref("FP8 Row-Scale GEMM", "gemm"), _ref("HGEMM Split-K", "gemm"), _ref("MoE GEMM (2-stage)", "gemm"),
            _ref("MoE Block-Scale (2-stage)", "moe"), _ref("Fused RoPE + KV-Cache", "rope"),
            _ref("Flash Attention", "attention"), _ref("LayerNorm", "norm"), _ref("Vector Add", None)]
    assert category_labels(refs) == {"gemm": "GEMM", "moe": "MoE", "rope": "RoPE", "attention": "attention",
                                     "norm": "norm"}


def test_the_overview_names_categories_as_their_owners_do(tmp_path_factory, sweep):
    # docs/data/kernels.json gives op_category gemm, moe, rope; the names say GEMM, MoE, RoPE
    kj = json.loads((sweep / "docs" / "data" / "kernels.json").read_text())
    cats = {k["op_category"] for k in kj["kernels"]}
    assert {"gemm", "moe", "rope", "attention"} <= cats
    # the kernels the sweep holds (a bundle or a campaign of the entry's name), their categories in
    # order, each spelled as a name writes the word when not plain lower case after its first letter:
    # whole sweep attention, elementwise, GEMM ("FP8 Row-Scale GEMM"), MoE, norm, quant, reduction, RoPE;
    # the slice attention, elementwise, gemm (its one gemm kernel is "HGEMM Split-K"), MoE, quant, RoPE
    held = [k for k in kj["kernels"]
            if (sweep / "examples" / k["example"]).is_dir() or (sweep / "benchmarks" / "examples" / k["example"]).is_dir()]
    spelled = {w.lower(): w for k in held for w in re.findall(r"[A-Za-z0-9]+", k["name"])
               if w.lower() == k["op_category"] and w[1:] != w[1:].lower()}
    # attention_prefill, a ledger no kernels.json entry names, is uncategorized (last)
    assert (sweep / "benchmarks" / "examples" / "attention_prefill").is_dir()
    assert "attention_prefill" not in {k["example"] for k in kj["kernels"]}
    want = [spelled.get(c, c) for c in sorted({k["op_category"] for k in held})] + ["uncategorized"]
    site = build_real_site(tmp_path_factory, sweep)
    html = (site / "index.html").read_text(encoding="utf-8")
    heads = re.findall(r'class="group-head"><th colspan="17"><span class="group-label"><span translate="no">([^<]+)</span>', html)
    assert heads == want and {"GEMM", "MoE", "RoPE"} & set(heads)
    gemm = spelled.get("gemm", "gemm")
    assert f'<option value="gemm" translate="no">{gemm}</option>' in html  # the filter's value stays the data's
    kernel = (site / "kernels" / "hgemm_splitk" / "index.html").read_text(encoding="utf-8")
    assert f'/ <span translate="no">{gemm}</span></p>' in kernel
    assert "text-transform: capitalize" not in next(site.glob("static/site.*.css")).read_text()


def test_open_diamonds_are_explained_and_outlined_in_their_verdict_color(tmp_path_factory, sweep):
    site = build_real_site(tmp_path_factory, sweep)
    html = (site / "index.html").read_text(encoding="utf-8")
    kernels = json.loads((site / "api" / "index.json").read_text())["kernels"]
    flagged = {k["name"]: k["verdict"] for k in kernels
               if k["verdict_basis"] not in (None, "shapes") or "not_like_for_like" in k["flags"]}
    # decided by the headline pair, not like-for-like (VERDICTS rules 8 and 12); the slice holds one of the campaigns
    whole = {("MoE GEMM (2-stage)", "moe_gemm"): "WIN", ("MoE Block-Scale (2-stage)", "moe_blockscale"): "HEADROOM",
             ("Fused RoPE + KV-Cache", "fused_rope_cache"): "BLOCKED"}
    held = {n: v for (n, op), v in whole.items() if (sweep / "benchmarks" / "examples" / op).is_dir()}
    assert flagged == held and held
    assert 'data-i18n="chart.overview.open">Open diamond: a flagged verdict, decided by other evidence' in html
    fig = json.loads(re.search(r'<script type="application/json" id="fig-overview-speedups">(.*?)</script>', html, re.S)[1])
    seen = set()
    for trace in fig["data"][1:]:
        if trace.get("name") not in charts.VERDICT_COLORS:
            continue
        color = charts.VERDICT_COLORS[trace["name"]]
        for name, symbol, width in zip(trace["y"], trace["marker"]["symbol"], trace["marker"]["line"]["width"]):
            assert trace["marker"]["line"]["color"] == color
            assert (symbol, width) == (("diamond-open", 2.5) if name in flagged else ("diamond", 1)), name
            seen.add(name)
    assert {n for n, v in flagged.items() if v != "BLOCKED"} <= seen  # a BLOCKED verdict has no ratio to plot


def reference_top_line(sweep, bundle: str) -> tuple[str, str]:
    """(file name, line) of the reference analyzer's top hotspot source line (``source/hotspot_output.txt``)."""
    ref = (sweep / "examples" / bundle / "source" / "hotspot_output.txt").read_text()
    top = re.search(r"Top-15 Hotspot Source Lines.*?\n\s+1\s+\S+\s+\S+%.*?(\S+\.py):(\d+)\n", ref, re.S)
    return top[1].rsplit("/", 1)[-1], top[2]


def test_the_jump_to_the_hottest_line_says_which_decorator_line_it_skips(tmp_path_factory, sweep):
    # the reference analyzer's top line of pa's primary capture is the decorator line the advice flags
    name, line = reference_top_line(sweep, "pa")
    assert (name, line) == ("pa_decode_fp8.py", "1170")
    site = build_real_site(tmp_path_factory, sweep)
    html = (site / "kernels" / "pa" / "index.html").read_text(encoding="utf-8")
    jump = re.search(r'<a class="jump" href="([^"]+)"[^>]*>[^<]*</a> <span class="muted small jump-note">'
                     r'<span class="l-en">([^<]*)</span><span class="l-zh"', html)
    assert jump[2] == (f"(skips {name}:{line}, the hotter entry/catch-all line: the advice flags its stalls as a "
                       "debug-info artifact)")  # no source snapshot shows a decorator there (audit3)
    assert not jump[1].endswith(f"#L{line}")
    src = (site / "kernels" / "pa" / jump[1].split("#")[0]).read_text(encoding="utf-8")
    assert f"(skips {name}:{line}, the hotter entry/catch-all line" in src


def test_a_jump_to_a_real_hottest_line_says_nothing_more(tmp_path_factory, sweep):
    # the reference analyzer's top line of vec_add's capture is a body line (test_vec_add.py:28, 83.67 % of
    # the stalls, VMEM-wait): the jump goes there and says nothing more
    name, line = reference_top_line(sweep, "vec_add")
    assert (name, line) == ("test_vec_add.py", "28")
    site = build_real_site(tmp_path_factory, sweep)
    vec = (site / "kernels" / "vec_add" / "index.html").read_text(encoding="utf-8")
    assert f'<a class="jump" href="src/c0/{name}.html#L{line}"' in vec and "jump-note" not in vec


def _branch_targets_from_code_json(path) -> dict[int, int]:
    """{pc_index: target pc_index} of a capture's branches, worked out here from code.json's columns
    (ISA, _, LineNumber, Source, Codeobj, Vaddr): target address = Vaddr + 4 + 4 x signed SIMM16."""
    rows = [r for r in json.loads(path.read_text())["code"] if isinstance(r[2], int) and r[2] > 0]
    by_addr = {r[5]: r[2] for r in rows}
    out = {}
    for r in rows:
        op, _, arg = r[0].partition(" ")
        if op == "s_branch" or op.startswith("s_cbranch_"):
            simm = int(arg.split()[0])
            out[r[2]] = by_addr[r[5] + 4 + 4 * (simm - 65536 if simm >= 32768 else simm)]
    return out


@pytest.mark.parametrize("slug, branches", [("pa", 6), ("hgemm_splitk", 11)])
def test_isa_branch_operands_link_their_target_instruction(tmp_path_factory, sweep, slug, branches):
    site = build_real_site(tmp_path_factory, sweep)
    expected = [_branch_targets_from_code_json(p)
                for p in sorted((sweep / "examples" / slug / "att_viewer").glob("*/ui_output_agent_*/code.json"))]
    pages = sorted((site / "kernels" / slug / "src").glob("c*/isa.html"))
    assert pages and len(pages) == len([e for e in expected if e])
    for page in pages:
        html = page.read_text(encoding="utf-8")
        linked = {int(pc): int(t) for pc, t in re.findall(
            r'<tr id="pc(\d+)"[^>]*>(?:<td>[^<]*</td>){6}<td>s_c?branch\w* <a class="branch" href="isa\.html#pc(\d+)"', html)}
        assert linked in expected and len(linked) >= branches, page  # pa: 6 branches, e.g. pc 140 -> 179
        assert all(f'<tr id="pc{t}"' in html for t in linked.values())


def test_analyze_shortens_source_paths_at_a_separator(sweep, capsys):
    from generator import cli
    from generator.site.text_report import tail

    assert cli.main(["analyze", str(sweep / "examples" / "pa"), "--primary"]) == 0
    out = capsys.readouterr().out
    # every source path the capture maps to (code.json's Source column), as written
    code = next((sweep / "examples" / "pa" / "att_viewer").glob("*/ui_output_agent_*/code.json"))
    paths = {r[3] for r in json.loads(code.read_text())["code"] if isinstance(r[3], str) and r[3]}
    shown = re.findall(r"(\S*pa_decode_fp8\.py:\d+)", out)
    assert len(shown) >= 30  # the top lines and the top instructions
    for s in shown:
        full = next(p for p in paths if p.endswith(s.lstrip("\u2026")))
        assert s == full or (s.startswith("\u2026/") and full.endswith(s[1:])), s
    # the reference analyzer cut this one mid-word ("rkspace/FlyDSL-lab/..."); we cut at "/"
    assert "rkspace/" not in out and "\u2026/FlyDSL-lab/kernels/pa_decode_fp8.py:1170" in out
    # hand-worked widths: the file and line stay whole even when wider than the column
    assert tail("/a/bb/ccc.py:1", 14) == "/a/bb/ccc.py:1"
    assert tail("/a/bb/ccc.py:1", 11) == "\u2026/ccc.py:1"
    assert tail("/a/bb/ccc.py:1", 13) == "\u2026/bb/ccc.py:1"  # 13 with the ellipsis
    assert tail("/a/bb/ccc.py:1", 5) == "\u2026/ccc.py:1"
    assert tail("no_separator_at_all.py:12", 10) == "no_separator_at_all.py:12"


def test_a_vgpr_total_rounded_up_by_the_granule_says_the_sum_it_comes_from(tmp_path_factory, sweep):
    expected = json.loads((sweep / "expected" / "occupancy.json").read_text())
    pa = next(v for k, v in expected.items() if k.startswith("examples/pa/"))
    arch = max(pa["isa_vgpr"], pa["csv_vgpr"] or 0)
    assert (arch, pa["accum"], pa["total"]) == (176, 12, 192)  # 188 rounded up to a multiple of 8
    html = (build_real_site(tmp_path_factory, sweep) / "kernels" / "pa" / "index.html").read_text(encoding="utf-8")
    assert (f'<span class="en-only">{pa["total"]} of 512 (one pool: arch {arch} + accum {pa["accum"]} = '
            f'{arch + pa["accum"]}, allocated in blocks of 8)</span>') in html
