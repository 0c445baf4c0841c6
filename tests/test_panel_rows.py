"""The per-shape and roofline rows and the pieces (bi, msg, said, facts, finding) written in Python
give the bytes the per-row templates and the macros gave."""

import dataclasses

from markupsafe import Markup

from generator.site import panel_rows, render
from generator.site.views import advice as advice_views
from generator.site.views import base as base_views
from generator.site.views import captures as captures_views
from generator.site.views import speed as speed_views
from generator.site.views.overview import Fact
from generator.site.views.speed import ProviderCell, ShapeRowView
from generator.site.wording import Seg

# The macros as macros.html held them before they moved to Python (the oracle).
OLD_MACROS = """{% macro bi(en, zh) %}<span class="en-only">{{ en }}</span><span class="zh-only">{{ zh }}</span>{% endmacro %}
{% macro msg(text) %}{% set z = text|zh_msg %}{% if z %}{{ bi(text, z) }}{% else %}{{ text }}{% endif %}{% endmacro %}
{% macro facts(items) %}
<dl class="facts">
{% for f in items %}
  <div{% if f.css %} class="{{ f.css }}"{% endif %}>{% if f.label_zh %}<dt>{{ bi(f.label, f.label_zh) }}</dt>{% else %}<dt{% if f.i18n %} data-i18n="{{ f.i18n }}"{% else %} translate="no"{% endif %}>{{ f.label }}</dt>{% endif %}<dd{% if not f.zh %} translate="no"{% endif %}>{% if f.href %}<a href="{{ f.href }}">{{ f.value }}</a>{% elif f.zh %}{{ bi(f.value, f.zh) }}{% else %}{{ f.value }}{% endif %}</dd></div>
{% endfor %}
</dl>
{% endmacro %}
{% macro said(en, segs) %}{% if segs %}<span class="l-en">{{ en }}</span><span class="l-zh" lang="zh-CN">{% for s in segs %}{% if s.data %}<span translate="no">{{ s.text }}</span>{% else %}{{ s.text }}{% endif %}{% endfor %}</span>{% else %}{{ en }}{% endif %}{% endmacro %}
{% macro finding(f) %}
<li class="finding{% if f.flagged %} flagged{% endif %}"{% if f.anchor %} id="{{ f.anchor }}"{% endif %}>
  <div class="finding-head"><strong>{{ said(f.title, f.title_zh) }}</strong>
    {% if f.share %}<span class="pill"><span translate="no">{{ f.share }}</span> <span data-i18n="advice.ofstalls">{{ _("advice.ofstalls") }}</span></span>{% endif %}
    {% if f.priority %}<span class="pill prio-{{ f.priority }}" data-i18n="advice.prio.{{ f.priority }}">{{ f.priority }}</span>{% endif %}
    <span class="muted small" translate="no">{{ f.detector }}</span></div>
  {% if f.summary %}<p class="summary">{{ said(f.summary, f.summary_zh) }}</p>{% endif %}
  {% if f.suggestion %}<p class="suggestion"><span data-i18n="advice.try">{{ _("advice.try") }}</span> {{ said(f.suggestion, f.suggestion_zh) }}</p>{% endif %}
  {% if f.evidence %}<details class="evidence"><summary data-i18n="advice.evidence">{{ _("advice.evidence") }}</summary><ul>{% for e in f.evidence %}<li>{% if e.label %}<span class="muted">{% if e.label_zh %}{{ said(e.label, e.label_zh) }}{% else %}<span translate="no">{{ e.label }}</span>{% endif %}:</span> {% endif %}<span translate="no">{% for l in e.links %}<a href="{{ l.href }}">{{ l.text }}</a>{% if not loop.last %}, {% endif %}{% endfor %}</span>{% if e.text %} <span{% if e.text_key %} data-i18n="{{ e.text_key }}"{% elif e.text_zh %} data-zh="{{ e.text_zh }}"{% else %} translate="no"{% endif %}>{{ e.text }}</span>{% endif %}</li>{% endfor %}</ul></details>{% endif %}
</li>
{% endmacro %}
"""

# The loops as speed.html and roofline.html held them before the rows moved to Python.
SPEED_LOOP = OLD_MACROS + """  <tbody>
  {% for r in rows %}
  <tr id="{{ r.anchor }}" data-models="{{ r.models }}">
    <td data-sort="{{ r.args }}" class="args" translate="no">{{ r.args }}</td>
    <td data-sort="{{ r.stage }}" translate="no">{{ r.stage }}</td>
    <td data-sort="{{ r.model }}" translate="no">{{ r.model }}</td>
    <td data-sort="{{ r.dtype }}" translate="no">{{ r.dtype }}</td>
    <td class="num" data-sort="{{ r.weight }}" translate="no">{{ r.weight }}</td>
    {% for c in r.cells %}<td class="num {{ c.css }}" data-sort="{{ c.sort }}"{% if c.title %} title="{{ c.title }}"{% endif %}{% if c.title_zh %} data-zh-title="{{ c.title_zh }}"{% endif %} translate="no">{{ c.text }}</td>{% endfor %}
    <td data-sort="{{ r.best_baseline }}" translate="no">{{ r.best_baseline }}</td>
    <td class="num {{ r.outcome_css }}" data-sort="{{ r.speedup_sort }}" translate="no">{{ r.speedup_text }}</td>
    <td class="failure" data-sort="{{ r.failure }}"{% if r.failure_full %} title="{{ r.failure_full }}"{% endif %}><span translate="no">{{ r.failure }}</span>{% for f in r.flags %}<div class="flag small">{{ msg(f) }}</div>{% endfor %}</td>
  </tr>
  {% endfor %}
  </tbody>"""
ROOF_LOOP = OLD_MACROS + """<tbody>{% for p in points %}{% set zh_bound = bounds_zh[loop.index0] %}<tr>{% for x in p[:-1] %}<td translate="no">{{ x }}</td>{% endfor %}<td>{{ bi(p[-1], zh_bound) }}</td></tr>{% endfor %}</tbody>"""


def rows() -> list[ShapeRowView]:
    """A timed row (a tooltip with quotes, a flag with a 中文 key) and a ledger row without cells."""
    cells = [ProviderCell("7.00", "win", 'flydsl "v2" & <fast>', "7.0"),
             ProviderCell("fail", "bad", "", "inf", title_zh="失败")]
    timed = ShapeRowView("shape-1", "{'M': 4096, \"N\": 1}", "prefill", "llama", "bf16", "1", cells, "torch",
                         "1.66x", "1.66", "win", "", "", ["suspect reference check (an independent library fails it"
                                                         " too): torch: max abs err 0.5"], models="llama|qwen")
    ledger = ShapeRowView("shape-2", "M=1", "", "", "fp8", "0.5", [], "", "\u2014", "", "", "oom", "out of memory <1 GiB>",
                          [])
    return [timed, ledger]


def test_shape_rows_are_the_template_bytes():
    env = render.environment()
    want = env.from_string(SPEED_LOOP).render(rows=rows())
    got = "  <tbody>\n" + str(panel_rows.shape_rows_html(rows())) + "  </tbody>"
    want = want.lstrip("\n")  # the macro definitions print nothing
    assert got == want
    assert 'title="flydsl &#34;v2&#34; &amp; &lt;fast&gt;"' in got
    assert "{&#39;M&#39;: 4096, &#34;N&#34;: 1}" in got


def test_roofline_rows_are_the_template_bytes():
    points = [["flydsl", "M=1 & N=2", "12.5", "3.1", "81%", "memory"], ["torch", "M=8", "40", "9.9", "", "compute"]]
    zh = [Markup('<span translate="no">访存</span>'), "计算 <受限>"]
    want = render.environment().from_string(ROOF_LOOP).render(points=points, bounds_zh=zh)
    got = "<tbody>" + str(panel_rows.roofline_rows_html(points, zh)) + "</tbody>"
    want = want.lstrip("\n")
    assert got == want
    assert '<td translate="no">M=1 &amp; N=2</td>' in got
    assert '<span class="zh-only"><span translate="no">访存</span></span>' in got
    assert '<span class="zh-only">计算 &lt;受限&gt;</span>' in got


def test_esc_matches_autoescape():
    for value in ['a"b\'c<d>&e', 3, 1.5, None, Markup("<b>x</b>")]:
        assert panel_rows.esc(value) == str(Markup.escape(value))


def _macro(call: str, **values) -> str:
    """What the old macro printed for ``call`` (``{{ finding(f) }}``...)."""
    return render.environment().from_string(OLD_MACROS + call).render(**values).lstrip("\n")


EVIL = '<script>alert("x")</script> & \'q\''


def test_findings_and_facts_are_the_bytes_of_the_macros(kernel):
    """Every finding and fact of two real kernels (evidence links, 中文 runs, flagged, no share), then
    hostile text in every field."""
    n = 0
    for slug in ("flash_attn_func", "moe_gemm"):
        k, row = kernel(slug)
        ctx = base_views.SiteContext()
        for i, c in enumerate(k.captures):
            for f in c.findings or []:
                v = advice_views.finding_view(f, f"src/c{i}/isa.html")
                assert panel_rows.finding(v) == _macro("{{ finding(f) }}", f=v)
                n += 1
            cv = captures_views.capture_view(i, c, ctx)
            for items in (cv.facts, cv.timeline_facts) + ((cv.occupancy.limits, cv.occupancy.vgpr) if cv.occupancy else ()):
                assert panel_rows.facts(items) == _macro("{{ facts(items) }}", items=items)
                n += len(items)
        s = speed_views._speed_panel(k, row, ctx)
        assert panel_rows.facts(s.facts) == _macro("{{ facts(items) }}", items=s.facts)
    assert n > 100
    segs = [Seg(EVIL), Seg(EVIL, True)]
    ev = advice_views.EvidenceItem(EVIL, EVIL, [advice_views.Link(EVIL, EVIL)] * 2, segs, text_zh=EVIL)
    f = advice_views.FindingView(EVIL, EVIL, EVIL, EVIL, EVIL, EVIL, [ev, dataclasses.replace(ev, label_zh=None, text_key=EVIL),
                                 dataclasses.replace(ev, label="", text="", links=[])], True, EVIL, segs, segs, segs)
    assert panel_rows.finding(f) == _macro("{{ finding(f) }}", f=f)
    bare = dataclasses.replace(f, share="", priority="", summary="", suggestion="", evidence=[], flagged=False, anchor="")
    assert panel_rows.finding(bare) == _macro("{{ finding(f) }}", f=bare)
    items = [Fact(EVIL, EVIL, EVIL, EVIL, EVIL, EVIL, EVIL), Fact(EVIL, Markup("<b>x</b>"), zh=Markup("<i>y</i>")),
             Fact(EVIL, EVIL), Fact(EVIL, EVIL, EVIL, css=EVIL)]
    assert panel_rows.facts(items) == _macro("{{ facts(items) }}", items=items)
    for en, z in ((EVIL, segs), (EVIL, None), (Markup("<b>"), []), (None, None)):
        assert panel_rows.said(en, z) == _macro("{{ said(en, z) }}", en=en, z=z)
    for text in (EVIL, "6 hard failures", "the advice stage failed"):
        assert panel_rows.msg(text) == _macro("{{ msg(t) }}", t=text)


def test_the_pieces_are_template_globals_that_print_as_they_are():
    env = render.environment()
    out = env.from_string("{{ bi(a, b) }}|{{ said(a, z) }}").render(a="<x>", b=Markup("<i>y</i>"), z=[Seg("q", True)])
    assert out == ('<span class="en-only">&lt;x&gt;</span><span class="zh-only"><i>y</i></span>|'
                   '<span class="l-en">&lt;x&gt;</span><span class="l-zh" lang="zh-CN"><span translate="no">q</span></span>')


# The captures panel's row loops as captures.html held them (the oracle of the rows written in Python).
OLD_CAPTURE_ROWS = {
    "stall": '{% for t in rows %}<tr translate="no"><td><span class="swatch {{ t.css }}"></span>{{ t.name }}</td>'
             '<td class="num">{{ t.cycles }}</td><td class="num">{{ t.share }}</td></tr>{% endfor %}',
    "lines": '{% for l in rows %}<tr translate="no"><td class="num">{{ l.rank }}</td><td class="loc">{% if l.href %}'
             '<a href="{{ l.href }}" title="{{ l.title }}">{{ l.loc }}</a>{% else %}<span title="{{ l.title }}">{{ l.loc }}'
             '</span>{% endif %}</td><td class="num">{{ l.stall }}</td><td class="num">{{ l.share }}</td><td class="num">'
             '{{ l.rate }}</td><td>{{ l.dominant }}</td></tr>{% endfor %}',
    "ins": '{% for i in rows %}<tr translate="no"><td class="num">{{ i.rank }}</td><td class="num"><a href="{{ i.href }}">'
           '{{ i.pc }}</a></td><td class="num">{{ i.stall }}</td><td class="num">{{ i.share }}</td><td>{{ i.type }}</td>'
           '{% if nvidia %}<td translate="no">{{ i.reason }}</td>{% endif %}<td class="asm">{{ i.asm }}</td><td class="loc">'
           '{% if i.loc_href %}<a href="{{ i.loc_href }}">{{ i.loc }}</a>{% else %}{{ i.loc }}{% endif %}</td></tr>{% endfor %}',
    "files": '{% for f in rows %}<tr id="{{ f.anchor }}"{% if f.href %} data-page="{{ f.href }}"{% endif %}>{% set short = '
             'msg(f.short) if f.path == "<unknown>" else f.short %}<td class="loc"{% if f.path != "<unknown>" %} '
             'translate="no"{% endif %}>{% if f.href %}<a href="{{ f.href }}" title="{{ f.path }}">{{ short }}</a>{% else %}'
             '<span title="{{ f.path }}">{{ short }}</span>{% endif %}</td><td class="num" translate="no">{{ f.stall }}</td>'
             '<td class="num">{{ msg(f.lines) }}</td><td class="small">{% if f.hottest_href %}<a href="{{ f.hottest_href }}" '
             'data-i18n="cap.hottest">{{ _("cap.hottest") }}</a> {% endif %}<span class="muted">{% if f.note %}'
             '{{ msg(f.note) }}{% endif %}</span></td></tr>{% endfor %}',
}


def _capture_rows_match(cv) -> int:
    """Each table of one capture view written by Python and by the old loops; how many rows."""
    tables = [("stall", cv.stall_types, panel_rows.stall_rows_html(cv.stall_types)),
              ("lines", cv.top_lines, panel_rows.line_rows_html(cv.top_lines)),
              ("ins", cv.top_instructions, panel_rows.ins_rows_html(cv.top_instructions, cv.vendor == "nvidia")),
              ("files", cv.files, panel_rows.file_rows_html(cv.files))]
    if cv.working:
        w = cv.working
        tables += [("stall", w.stall_types, panel_rows.stall_rows_html(w.stall_types)),
                   ("lines", w.top_lines, panel_rows.line_rows_html(w.top_lines)),
                   ("ins", w.top_instructions, panel_rows.ins_rows_html(w.top_instructions))]
    for name, rows, got in tables:
        assert got == _macro(OLD_CAPTURE_ROWS[name], rows=rows, nvidia=cv.vendor == "nvidia"), name
    return sum(len(rows) for _, rows, _ in tables)


def test_capture_tables_are_the_bytes_of_the_loops(kernel):
    """Real captures (working waves, unmapped instructions, framework files) and hostile text."""
    n = 0
    for slug in ("flash_attn_func", "pa_mqa_logits_fp4", "moe_gemm"):
        k, _ = kernel(slug)
        for i, c in enumerate(k.captures):
            n += _capture_rows_match(captures_views.capture_view(i, c, base_views.SiteContext()))
    assert n > 100
    cv = captures_views.capture_view(0, kernel("flash_attn_func")[0].captures[0], base_views.SiteContext())
    evil = dict.fromkeys(("loc", "title", "href", "stall", "share", "rate", "dominant", "asm", "type", "loc_href",
                          "reason", "name", "cycles", "css"), EVIL)
    cv.top_lines = [dataclasses.replace(cv.top_lines[0], **{k: v for k, v in evil.items() if hasattr(cv.top_lines[0], k)}),
                    dataclasses.replace(cv.top_lines[0], href="")]
    cv.top_instructions = [dataclasses.replace(cv.top_instructions[0], **{
        k: v for k, v in evil.items() if hasattr(cv.top_instructions[0], k)}), dataclasses.replace(cv.top_instructions[0], loc_href="")]
    cv.stall_types = [dataclasses.replace(cv.stall_types[0], name=EVIL, cycles=EVIL, share=EVIL, css=EVIL)]
    cv.files = [dataclasses.replace(f, anchor=EVIL, short=EVIL, stall=EVIL, lines=EVIL, note=EVIL, href=h, hottest_href=h)
                for f in cv.files[:1] for h in (EVIL, "")] + [dataclasses.replace(cv.files[0], path="<unknown>", short="(no source location)")]
    cv.vendor = "nvidia"
    assert _capture_rows_match(cv) == 8


# The overview's kernel rows as index.html held them (the oracle of ``kernel_rows_html``).
OLD_KERNEL_ROWS = """      {% for r in g.rows %}
      <tr class="krow" id="k-{{ r.slug }}" data-verdict="{{ r.verdict if r.verdict else 'NONE' }}" data-category="{{ r.category }}" data-severity="{{ r.severity_level }}" data-search="{{ r.search }}" data-href="{{ r.href }}">
        <td data-sort="{{ r.name }}"><a href="{{ r.href }}" translate="no">{{ r.name }}</a>
          {% if r.op and r.op != r.slug %}<span class="muted small" translate="no">{{ r.slug }} → {{ r.op }}</span>{% endif %}
          {% for m in r.missing %}<div class="missing small">{{ msg(m) }}</div>{% endfor %}
          {% for b in r.broken %}<div class="broken small">{{ msg(b) }}</div>{% endfor %}
        </td>
        <td data-sort="{{ r.verdict_rank }}"><span class="badge {{ r.verdict_css }}" translate="no">{{ r.verdict_label }}</span>
          {% for f in r.flags %}<div class="flag small">{{ msg(f) }}</div>{% endfor %}
          {% if r.regression %}<div class="regressed small"><a href="history.html#h-{{ r.slug }}">{{ bi(r.regression, r.regression_zh) }}</a></div>{% endif %}</td>
        <td data-sort="{{ r.severity_sort }}">{% if r.severity %}<span class="sev sev-{{ r.severity.level }}" data-zh="{{ r.severity.level_zh }}">{{ r.severity.level }}</span>
          <div class="small muted" data-zh="{{ r.severity.detail_zh }}">{{ r.severity.detail }}</div>{% else %}—{% endif %}</td>
        <td class="num" translate="no" data-sort="{{ r.geomean if r.geomean is not none else '' }}">{{ r.geomean_text }}</td>
        <td class="num" data-sort="{{ r.headline_speedup if r.headline_speedup is not none else '' }}"><span translate="no">{{ r.headline_text_x }}</span>{% if r.headline_disagrees %}
          <div class="flag small disagree" translate="no">≠ {{ r.headline_verdict }}</div>{% endif %}</td>
        <td class="num" data-sort="{{ r.wins_sort }}"><span{% if r.wins_zh %} data-zh="{{ r.wins_zh }}"{% else %} translate="no"{% endif %}>{{ r.wins_text }}</span></td>
        <td class="diag" data-sort="{{ r.diagnosis.bound if r.diagnosis and r.diagnosis.bound else '' }}">{% for c in r.diagnosis_links %}<a href="{{ c.href }}">{{ said(c.text, c.zh_runs) }}</a>{% if not loop.last %}<span class="l-en">, </span><span class="l-zh">，</span>{% endif %}{% endfor %}
          {% if r.first_step %}<div class="first-step small"><span data-i18n="diag.first">{{ _("diag.first") }}</span> {% set fs = r.first_step_said %}<a href="{{ r.href }}{{ r.first_step.anchor }}">{{ said(fs.en, fs.zh) }}</a>{% if r.first_step.share_text %} <span class="muted" data-zh="{{ r.first_step.share_zh }}">({{ r.first_step.share_text }})</span>{% endif %}</div>{% endif %}</td>
        <td class="num" translate="no" data-sort="{{ r.weighted if r.weighted is not none else '' }}">{{ r.weighted_text }}</td>
        <td class="num{% if r.hard_failures %} bad{% endif %}" data-sort="{{ r.failures_sort if r.failures_sort >= 0 else '' }}"><span{% if r.failures_zh %} data-zh="{{ r.failures_zh }}"{% else %} translate="no"{% endif %}>{{ r.failures_text }}</span></td>
        <td data-sort="{{ r.best_baseline or '' }}">{% set bb = r.best_baseline_split %}<span translate="no">{{ bb[0] }}</span>{% if bb[1] %} <span data-zh="{{ bb[2] }}">{{ bb[1] }}</span>{% endif %}</td>
        <td translate="no" data-sort="{{ r.top_stall or '' }}">{{ r.top_stall or '—' }}</td>
        <td class="num" translate="no" data-sort="{{ r.stall_ratio if r.stall_ratio is not none else '' }}">{{ r.stall_ratio_text }}</td>
        <td class="num" translate="no" data-sort="{{ r.occupancy if r.occupancy is not none else '' }}">{{ r.occupancy_text }}</td>
        <td data-sort="{{ r.limiter or '' }}"><span{% if r.limiter_zh %} data-zh="{{ r.limiter_zh }}"{% else %} translate="no"{% endif %}>{{ r.limiter_text }}</span></td>
        <td translate="no" data-sort="{{ r.category }}">{{ r.category }}</td>
      </tr>
      {% endfor %}
"""


def test_overview_kernel_rows_are_the_bytes_of_the_loop(kernel):
    """Every row of the shared sweep (severity, diagnosis, first step, headline), then a row with a
    regression, a disagreeing headline and hostile text."""
    rows = [kernel(s)[1] for s in ("flash_attn_func", "moe_gemm", "softmax", "hgemm_splitk", "pa_mqa_logits_fp4")]
    assert any(r.severity for r in rows) and any(r.first_step for r in rows) and any(r.diagnosis for r in rows)
    assert str(panel_rows.kernel_rows_html(rows)) == _macro(OLD_KERNEL_ROWS, g={"rows": rows})
    r = rows[0]
    evil = dataclasses.replace(r, slug=EVIL, name=EVIL, op=EVIL, category=EVIL, href=EVIL, search=EVIL, regression=EVIL,
                               regression_zh=EVIL, missing=[EVIL], broken=[EVIL], flags=[EVIL, "1 hard failure"],
                               headline_verdict="LOSS", verdict_css=EVIL, top_stall=None, limiter=EVIL,
                               best_baseline_text="torch (3 of 5)", geomean=None, failures_sort=-1, hard_failures=2,
                               severity=dict.fromkeys(("level", "level_zh", "detail", "detail_zh"), EVIL) | {
                                   "level": "tune", "geomean": 0.5},
                               first_step=None if r.first_step is None else {**r.first_step, "share_text": EVIL, "share_zh": EVIL})
    assert evil.headline_disagrees and evil.best_baseline_split[1]
    assert str(panel_rows.kernel_rows_html([evil])) == _macro(OLD_KERNEL_ROWS, g={"rows": [evil]})
