"""The interface strings' catalogues (issue 13 point 5): one JSON per language,
``templates/i18n/en.json`` and ``templates/i18n/zh.json``, with the same keys and the same
placeholders; every ``data-i18n`` key a template or a built page uses is in both. Computed text:
every sentence another layer makes for the shared sweep's and the NVIDIA demo's pages is a
``message.Sentence`` (made from its ``msg.`` key; a strict build fails on one that is not), and the
charts carry their 中文 (real figures).
"""

from __future__ import annotations

import json
import pickle
import re
import string
from pathlib import Path

import pytest

from generator.analyze import message
from generator.analyze.message import sentence
from generator.site import i18n, render
from test_render import build_real_site  # same test folder

KEY_ATTR = re.compile(r'data-i18n(?:-placeholder|-title|-aria-label|-alt)?="([^"{]+)"')
CALL = re.compile(r'''\b_\(\s*["']([^"']+)["']\s*\)''')  # _("unit." ~ name) is a prefix, not a key
# keys named in Python: i18n.en/zh/both("k"), i18n.marked("zh", "k"), Fact.of("label", "value"), charts' _t("en", "k")
PY_KEYS = (r'\bi18n\.(?:en|zh|pair|both)\(\s*"([^"]+)"', r'\bi18n\.marked\(\s*"(?:en|zh)",\s*"([^"]+)"',
           r'\bFact\.of\(\s*"([^"]+)"', r'\bFact\.of\(\s*"[^"]+",\s*"([^"]+)"', r'\b_t\(\s*"(?:en|zh)",\s*"([^"]+)"')


def placeholders(s: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(s) if f}


def test_catalogues_have_the_same_keys_and_placeholders():
    en, zh = i18n.catalogue("en"), i18n.catalogue("zh")
    assert sorted(set(en) - set(zh)) == [], "keys missing from zh.json"
    assert sorted(set(zh) - set(en)) == [], "keys missing from en.json"
    for key in en:
        assert en[key].strip() and zh[key].strip(), key
        assert placeholders(en[key]) == placeholders(zh[key]), key


def test_every_key_the_templates_and_views_use_is_in_the_catalogues():
    used: set[str] = set()
    root = render.templates_dir()
    sources = list(root.rglob("*.html")) + list((Path(i18n.__file__).parent).rglob("*.py"))
    for path in sources:
        text = path.read_text(encoding="utf-8")
        used |= set(KEY_ATTR.findall(text)) | set(CALL.findall(text))
        for pattern in PY_KEYS:
            used |= set(re.findall(pattern, text))
    assert used, "no key found"
    assert sorted(used - set(i18n.catalogue("en"))) == []


def test_every_sentence_the_code_makes_has_its_keys():
    """``sentence("msg.x", ...)`` anywhere in the package names a key of both catalogues (a count's
    singular is the catalogue's ``{n:~noun}`` form, not a second key)."""
    made = set()
    for path in Path(message.__file__).resolve().parent.parent.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        made |= set(re.findall(r'\bsentence\(\s*"(msg\.[^"]+)"\s*[,)]', text))  # whole keys, not prefixes
    assert len(made) > 60
    assert sorted(made - set(i18n.catalogue("en"))) == []


def test_every_key_on_the_built_pages_is_in_the_catalogues(tmp_path_factory, sweep):
    site = build_real_site(tmp_path_factory, sweep)
    used: set[str] = set()
    for page in site.rglob("*.html"):
        used |= set(KEY_ATTR.findall(page.read_text(encoding="utf-8")))
    assert {"nav.overview", "panel.speed"} <= used
    assert sorted(used - set(i18n.catalogue("zh"))) == []


# ---------------------------------------------------------------- issue 13 (5), part B: computed text

def test_marked_escapes_the_values_and_keeps_them_out_of_translation():
    assert i18n.marked("zh", "msg.flag.hard", n=6) == '<span translate="no">6</span> 个硬失败'
    assert i18n.marked("zh", "msg.missing.results", op="<b>x</b>") == (
        '计时任务 <span translate="no">&lt;b&gt;x&lt;/b&gt;</span> 有形状台账，但没有基准测试结果')


def test_a_sentence_is_its_english_and_carries_its_message():
    """A sentence is made once, from its message: the English is the catalogue's, the 中文 a rendering of
    the same message (values as data, a nested sentence worded in its turn); nothing is matched back."""
    flag = sentence("msg.flag.scope.lflref", m=9, n=9, g="166.72x", k=9, ref="pytorch")
    assert flag == ("not like-for-like: the best baseline times another scope on 9 of 9 shapes; like-for-like "
                    "166.72x over 9, reference pytorch only")
    assert flag.msg.key == "msg.flag.scope.lflref" and flag.msg.kw["ref"] == "pytorch"
    assert i18n.zh_said_text(sentence("msg.missing.campaign")) == "没有计时任务：没有判定"
    assert i18n.zh_said("a text no message made") == "" and i18n.zh_said_text("a text no message made") == "a text no message made"
    note = sentence("msg.note.skipped", rel="big/x", msg_problem=sentence("msg.skip.att"))
    assert note == "capture big/x skipped: empty shell: no code.json and no wave files"
    assert i18n.zh_said_text(note) == "采集 big/x 已跳过：空壳：没有 code.json，也没有 wave 文件"
    # a nested part that is data (a file name) stays as it is, marked
    assert i18n.zh_said(sentence("msg.broken.failed", msg_what="frobnicate", error="KeyError: x")) == (
        'frobnicate失败：<span translate="no">KeyError: x</span>')
    # it survives the trip to a worker process and through the manifest
    assert pickle.loads(pickle.dumps(note)).msg == note.msg
    back = message.sentence_from_json(json.loads(json.dumps(message.sentence_json(note))))
    assert back == note and back.msg == note.msg and isinstance(back.msg.kw["msg_problem"], message.Sentence)


def test_a_shown_text_without_a_message_fails_a_strict_build(monkeypatch):
    """Under ``i18n.STRICT`` (the tests) a sentence shown without a message key fails the build."""
    monkeypatch.setattr(i18n, "STRICT", True)
    with pytest.raises(ValueError, match="has no message key"):
        i18n.zh_said("capture x: something computed in English")
    assert i18n.zh_said(sentence("msg.missing.bundle")) != ""


def test_every_sentence_the_real_sites_show_has_its_message(monkeypatch, tmp_path, sweep):
    """The shared sweep (else its slice) and the NVIDIA demo build with ``STRICT`` on: every sentence their pages, charts
    and history show was made as a message, and its English is the catalogue's rendering of it."""
    from generator.site import build
    monkeypatch.setattr(i18n, "STRICT", True)
    seen = []
    real = i18n.message_of

    def checked(text):
        m = real(text)
        if m is not None:
            assert str(text) == message.english(m.key, **m.kw), text  # str.format with the plural forms
            seen.append(m.key)
        return m
    monkeypatch.setattr(i18n, "message_of", checked)
    root = Path(__file__).resolve().parent.parent
    sweeps = [p for p in (sweep, root / "bundles") if (p / "examples").is_dir()]
    for i, folder in enumerate(sweeps):
        build.build_site(folder, tmp_path / f"site{i}", progress=False, jobs=1, history_dir=tmp_path / f"h{i}")
    assert len(set(seen)) > 25


def test_the_sentences_copied_from_the_analysis_are_its_own():
    from generator.analyze.roofline import ABOVE_ROOF_TEXT
    from generator.analyze import waves
    from generator.model import WavesSummary
    assert i18n.en("msg.shape.roof", provider="aiter", tbs="9.1") == f"aiter at 9.1 TB/s {ABOVE_ROOF_TEXT}"
    assert i18n.en("msg.roof.above", tbs="9.1") == f"9.1 TB/s {ABOVE_ROOF_TEXT}"
    assert i18n.en("speed.v.roof", n=2, providers="aiter") == (
        "2 rows (aiter) above a roof (HBM or dense compute): less work than modelled, cached, or mismeasured")
    assert i18n.en("speed.cell.roof", tbs="9.1") == f"9.1 TB/s: {ABOVE_ROOF_TEXT}"
    fields = {f: 0 for f in WavesSummary.__dataclass_fields__}
    text = waves.not_representative_text(WavesSummary(**{**fields, "sampled": 4, "working": 0, "early_exit": 4}))
    assert text.msg.key == "msg.notrep" and text.msg.kw == {"n": 4}


def _sentences(k, row, page) -> list[str]:
    """Every sentence of a kernel page that another layer computed in English (shown through msg())."""
    out = list(row.flags) + list(k.missing) + list(k.broken) + list(k.notes)
    for p in page.panels:
        d = p.data
        if p.name == "speed":
            out += [x for x in (d.message, d.headline_note) if x] + list(d.notes) + [f for r in d.shapes for f in r.flags]
        elif p.name == "captures" and not isinstance(d, str):
            for c in d:
                out += [x for x in (c.warning, c.timeline_note) if x] + list(c.notes)
                out += [f.lines for f in c.files] + [f.note for f in c.files if f.note] + (c.occupancy.notes if c.occupancy else [])
        elif p.name == "captures":
            out.append(d)
        elif p.name == "compare":
            out += [x for cmp in d for x in [cmp.title] + cmp.notes]
        elif p.name == "counters":
            out += list(d.reading) + list(d.notes)
        elif p.name == "roofline":
            out += list(d.notes)
    return out


def test_every_computed_sentence_of_the_shared_sweep_has_its_chinese(site_env, kernel):
    from generator.site.views import base as base_views, kernel as kernel_views
    _, plans = site_env
    seen, missing = 0, []
    for slug in sorted(plans):
        k, row = kernel(slug)
        for text in _sentences(k, row, kernel_views.kernel_page(k, row, base_views.SiteContext())):
            seen += 1
            if not isinstance(text, message.Sentence):
                missing.append((slug, text))
    assert missing == [] and seen > 50  # 61 sentences on the slice, more on the whole sweep


def _variants_note(kernel):
    k, _ = kernel("fused_rope_cache")
    return next(n for n in k.captures[0].analysis.occupancy.notes if "compiled variants" in n)


@pytest.mark.full_sweep
def test_capture_notes_have_their_own_keys(kernel):
    """The no-debug-info note and the kernel-trace variant note's dispatch counts (the whole trace)."""
    k, _ = kernel("pa_mqa_logits_fp4")
    note = next(n for c in k.captures for n in c.analysis.notes if n.startswith("no instruction"))
    assert note.msg.key == "msg.cap.nosource"
    assert _variants_note(kernel).msg.kw["desc"] == \
        "VGPR 4, SGPR 32, LDS 0 (1105 dispatches); VGPR 8, SGPR 32, LDS 0 (2656 dispatches)"


def test_the_variants_note_has_its_own_key(kernel):
    """The kernel-trace variant note (fused_rope_cache) is worded by its own key, the kernel's name and the
    variants as data (the slice's trace is cut, so its dispatch counts are the whole sweep test's)."""
    note = _variants_note(kernel)
    assert note.msg.key == "msg.occ.variants.isa.nolds"
    assert {k: v for k, v in note.msg.kw.items() if k != "desc"} == {
        "n": 2, "name": "fused_qk_rope_reshape_and_cache_0", "v": "8", "isa": 12}
    assert note.msg.kw["desc"].startswith("VGPR 4, SGPR 32, LDS 0 (") and "; VGPR 8, SGPR 32, LDS 0 (" in note.msg.kw["desc"]
    assert str(i18n.zh_said(note)).endswith("采用 VGPR <span translate=\"no\">8</span>：唯一与 ISA 相符的变体（未用 LDS，"
                                            "扫描到 <span translate=\"no\">12</span> 个 VGPR）")


def test_every_computed_sentence_of_the_nvidia_demo_has_its_chinese():
    from conftest import gather_env
    from generator.site import gather
    from generator.site.views import base as base_views, kernel as kernel_views, overview as overview_views
    bundles = Path(__file__).resolve().parent.parent / "bundles"
    if not (bundles / "examples").is_dir():
        pytest.skip("the NVIDIA demo sweep (bundles/) is absent")
    env, plans = gather_env(bundles)
    missing, seen = [], 0
    for p in plans.values():
        k, _ = gather.gather_kernel(p, env)
        row = overview_views.index_row(k, base_views.SiteContext())
        page = kernel_views.kernel_page(k, row, base_views.SiteContext())
        ncu = next((x.data for x in page.panels if x.name == "ncu"), None)
        texts = _sentences(k, row, page) + ([ncu.bottleneck, ncu.root_cause, ncu.locality] + [s.key_issue for s in ncu.stages]
                                            if ncu else [])
        seen += len(texts)
        missing += [(p.slug, t) for t in texts if t and t != "\u2014" and not isinstance(t, message.Sentence)]
    assert missing == [] and seen > 30


def test_charts_carry_their_chinese_with_the_real_figures(kernel, sweep):
    from generator.site import charts
    from generator.site.views import overview as overview_views
    # the kernels whose campaigns the slice and the sweep both hold whole: the same figures in both
    rows = [kernel(s)[1] for s in ("pa", "vec_add", "quant", "moe_blockscale")]
    fig = charts.speedup_overview(overview_views.order_rows(rows), 1.05, 0.95)
    assert fig["layout"]["xaxis"]["title"]["text"] == "speedup vs the comparable baseline (log; > 1: candidate faster)"
    assert fig["zh"]["layout"] == {"xaxis.title.text": "相对可比基线的加速比（对数；> 1：候选更快）"}
    zh = fig["zh"]["traces"]
    assert zh["0"]["name"] == "形状" and fig["data"][0]["name"] == "shapes"
    # every translated trace exists, and the hover keeps plotly's placeholders (quant and vec_add have 5
    # shapes each at the timing floor, expected/verdicts.json: the floor's trace); the ratio beside the
    # verdict word is the row's text (never rounded across a threshold, issue 40)
    assert all(int(i) < len(fig["data"]) for i in zh)
    at = {t["name"]: str(i) for i, t in enumerate(fig["data"])}
    assert zh[at["shapes at the timing floor"]]["hovertemplate"] == "%{y}：%{x:.2f}x，处于计时下限（不计入）<extra>单个形状</extra>"
    assert zh[at["HEADROOM"]]["hovertemplate"] == ("%{y}<br>判定比值 %{customdata[4]}（%{customdata[3]}），对比任意基线胜出 "
                                                   "%{customdata[0]}%{customdata[2]}<extra>%{customdata[1]}</extra>")
    # moe_blockscale is a HEADROOM from the profiled pair, not like-for-like and above the roof
    # (expected/verdicts.json): its hover flags in 中文, its wins as "N 个中 M 个"
    ref = json.loads((sweep / "expected" / "verdicts.json").read_text())["moe_blockscale"]
    assert (ref["verdict"], ref["verdict_basis"], ref["not_like_for_like"], len(ref["above_roof"])) == ("HEADROOM", "pair", True, 2)
    head = next(i for i, t in enumerate(fig["data"]) if t["name"] == "HEADROOM")
    moe = fig["data"][head]["y"].index("MoE Block-Scale (2-stage)")
    moe_row = kernel("moe_blockscale")[1]
    assert (moe_row.n_measured, moe_row.wins) == (ref["n_measured"], ref["wins"])
    # its replay misses work (rule 16): no wins over kernel-clock shapes to say; aiter's fused call times routing and
    # sorting too (another scope): no launch overhead read from it (rule 13)
    assert ref["graph_partial"] and zh[str(head)]["customdata"][moe][0] == "\u2014"
    assert zh[str(head)]["customdata"][moe][2].startswith("<br>口径不一致：")
    assert "<br>2 行超出屋顶（HBM 或稠密算力）<br>" in zh[str(head)]["customdata"][moe][2]
    assert "<br>图重放漏掉了部分工作：候选者的图时间不作为内核证据<br>" in zh[str(head)]["customdata"][moe][2]
    assert zh[str(head)]["customdata"][moe][2].endswith("调用对比 aiter 为 +43.5 us，但它的调用还计入了其他工作：无法从中读出启动开销")
    assert zh[str(head)]["customdata"][moe][3].startswith("依据性能分析中的配对")
    assert fig["data"][head]["customdata"][moe][2].startswith("<br>not like-for-like")
    # pa's shapes: its 12 measured shapes (expected/verdicts.json's pa_decode n_measured)
    n = json.loads((sweep / "expected" / "verdicts.json").read_text())["pa_decode"]["n_measured"]
    k, row = kernel("pa")
    shapes = charts.shape_speedups([sh for sh in k.score.shapes if sh.measured], 1.05, 0.95)
    assert shapes["layout"]["xaxis"]["title"]["text"] == f"measured shapes, slowest to fastest ({n})"
    assert shapes["zh"]["layout"]["xaxis.title.text"] == f"已测形状，从最慢到最快（{n}）"
    # pa_decode's 2 shapes whose gluon row runs above 8.8 TB/s (rule 9) under their own entry (issue 31)
    assert {t["name"] for t in shapes["zh"]["traces"].values()} <= {"胜出", "持平", "落后", "超出屋顶（不作判定）"}
    assert "超出屋顶（不作判定）" in {t["name"] for t in shapes["zh"]["traces"].values()}
    # the args texts the speed table worked out give the chart its own figure, slowest shape first
    measured = [sh for sh in k.score.shapes if sh.measured]
    assert charts.shape_speedups(measured, 1.05, 0.95, [sh.args_text for sh in measured]) == shapes
    slowest = min(measured, key=lambda sh: sh.speedup)
    marks = [t for t in shapes["data"] if t["mode"] == "markers" and 1 in t["x"]][0]
    assert marks["customdata"][0][0] == slowest.args_text and slowest.args_text.startswith("batch=")  # the ledger's args
    stalls = charts.stall_types(k.primary.analysis.stall_by_type)
    assert (stalls["layout"]["xaxis"]["title"]["text"], stalls["zh"]["layout"]["xaxis.title.text"]) == ("stall cycles", "停顿周期")
    assert stalls["data"][0]["y"] == list(k.primary.analysis.stall_by_type)[::-1]  # stall types stay as they are


def test_history_figure_and_regression_in_chinese():
    from generator.site.views import history as history_views
    from generator.sweeps.history_series import HistoryPoint, history_chart_data
    pts = [HistoryPoint("s1", "aaa111", "2026-05-01", 1.10, 1.02, "WIN", "Vec"),
           HistoryPoint("s2", "bbb222", "2026-05-02", 0.80, 1.02, "HEADROOM", "Vec", profiled_commit="ccc333")]
    fig = history_chart_data({"vec": pts})["vec"]
    zh = history_views.figure_zh(fig)
    assert zh["layout"] == {"xaxis.title.text": "测量", "yaxis.title.text": "判定比值（x）"}
    line = next(i for i, t in enumerate(fig["data"]) if t["name"] == "verdict ratio")
    assert fig["data"][line]["text"][1] == ("s2 @ bbb222 (profiled at ccc333)<br>2026-05-02<br>verdict ratio 0.800x "
                                            "(noise ±2.0%)<br>HEADROOM")
    assert zh["traces"][str(line)]["text"][1] == "s2 @ bbb222（剖析于 ccc333）<br>2026-05-02<br>判定比值 0.800x（噪声 ±2.0%）<br>HEADROOM"
    mark = {"ratio": 0.8, "verdict": "WIN → HEADROOM", "from": "s1", "commit": "bbb222", "confirmed": False}
    assert history_views.regression_text(mark) == "regressed -20.0% (WIN → HEADROOM) since s1 (at bbb222), unconfirmed"
    assert history_views.regression_zh(mark) == ('回退 <span translate="no">-20.0%</span>（<span translate="no">WIN → HEADROOM'
                                                 '</span>），自 <span translate="no">s1</span> 起（提交 <span translate="no">'
                                                 'bbb222</span>），未确认')


def test_coverage_tooltip_in_both_languages(kernel):
    from generator.site.views import base as base_views, coverage as coverage_views
    row = kernel("pa")[1]
    view = coverage_views.coverage_view([row], base_views.SiteContext())
    model, cell = next((r.model, c) for r in view.rows for c in r.cells if c)
    c = cell.counts
    assert c["shapes"] > 0
    assert cell.title.startswith(f"{model}: {c['shapes']} shapes, {c['measured']} measured "
                                 f"({c['kernel_clock']} on the kernel clock), {c['won']} won")
    assert cell.title_zh.startswith(f"{model}：{c['shapes']} 个形状，已测 {c['measured']} 个"
                                    f"（其中 {c['kernel_clock']} 个在内核时钟上），胜 {c['won']} 个")


def test_nsight_compute_sentences_translate_with_their_nested_clauses():
    from generator.analyze.ncu_summary import REASON_KEYS, REASON_TEXT, TITLE_KEYS, TITLES
    assert all(i18n.en(REASON_KEYS[r]) == t for r, t in REASON_TEXT.items())
    assert all(i18n.en(TITLE_KEYS[k]) == t for k, t in TITLES.items())
    issue = sentence("msg.ncu.issue.at", share="27", msg_reason=sentence(REASON_KEYS["stall_barrier"]), loc="k.py:12")
    rc = sentence("msg.ncu.rc.latency", dram="55.3 %", tc="0.4 %", high="60", msg_issue=issue,
                  msg_occ=sentence("msg.ncu.occ.limited", occ="50.0 %", theo="100.0 %",
                                   msg_lim=sentence("ncu.limits.1", msg_a=sentence("ncu.res.registers"))))
    assert rc == (f"Neither DRAM (55.3 %) nor the tensor pipe (0.4 %) reaches 60 % of peak, so warps wait on latency rather "
                  f"than on a saturated unit. 27 % of stalled samples wait for {REASON_TEXT['stall_barrier']} at k.py:12 and "
                  f"achieved occupancy is 50.0 % (theoretical 100.0 %, limited by registers); more independent work per SM "
                  f"(occupancy, ILP, pipelining) is the lever.")
    assert i18n.zh_said_text(rc) == (
        "DRAM（55.3 %）和张量流水线（0.4 %）都没有达到峰值的 60 %，warp 在等延迟，而不是等某个饱和的单元。"
        "27 % 的停顿采样在等待CTA 屏障处的其他 warp（位于 k.py:12），且实际占用率为 50.0 %（理论值 100.0 %，受 寄存器 限制）；"
        "关键是让每个 SM 有更多独立的工作（占用率、ILP、流水化）。")
    html = i18n.zh_said(rc)
    assert '<span translate="no">k.py:12</span>' in html and "CTA 屏障处的其他 warp" in html and "sibling" not in html


def test_forms_fill_as_string_formatter_does():
    """``message.FORMS`` fills a string by ``str.format``, its English forms worked out first (issue 41): the
    same text as ``string.Formatter`` reading them, braces, specs and forms mixed, and every catalogue string."""

    class Slow(string.Formatter):
        def format_field(self, value, spec):
            return message.form(value, spec)

    cases = [("{n:~wait} {{n}} {x:.2f}, {n:~~has~have} {k:#}", {"n": 1, "x": 2.5, "k": 3}),
             ("{a:>4}|{b!r}|{c[0]}|{n:~vmcnt(0)~vmcnt(0)}", {"a": "x", "b": "y", "c": ["z"], "n": "2,069"}),
             ("{n:~row} of {m:~row}", {"n": 1, "m": 2}), ("{}", None)]
    for lang in ("en", "zh"):
        for s in message.catalogue(lang).values():
            names = {name for _, name, _, _ in string.Formatter().parse(s) if name}
            cases.append((s, {name: 2 for name in names}))
    for template, kw in cases:
        if kw is None:
            with pytest.raises(IndexError):
                message.FORMS.format(template)
            continue
        try:
            want = Slow().format(template, **kw)
        except (ValueError, TypeError):
            continue  # a spec the value 2 does not take
        assert message.FORMS.format(template, **kw) == want, template
