"""The per-shape and roofline rows written in Python give the bytes the per-row templates gave."""

from markupsafe import Markup

from generator.site import panel_rows, render
from generator.site.views.speed import ProviderCell, ShapeRowView

# The loops as speed.html and roofline.html held them before the rows moved to Python.
SPEED_LOOP = """{% from "macros.html" import msg %}
  <tbody>
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
ROOF_LOOP = """{% from "macros.html" import bi %}<tbody>{% for p in points %}{% set zh_bound = bounds_zh[loop.index0] %}<tr>{% for x in p[:-1] %}<td translate="no">{{ x }}</td>{% endfor %}<td>{{ bi(p[-1], zh_bound) }}</td></tr>{% endfor %}</tbody>"""


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
    assert got == want
    assert 'title="flydsl &#34;v2&#34; &amp; &lt;fast&gt;"' in got
    assert "{&#39;M&#39;: 4096, &#34;N&#34;: 1}" in got


def test_roofline_rows_are_the_template_bytes():
    points = [["flydsl", "M=1 & N=2", "12.5", "3.1", "81%", "memory"], ["torch", "M=8", "40", "9.9", "", "compute"]]
    zh = [Markup('<span translate="no">访存</span>'), "计算 <受限>"]
    want = render.environment().from_string(ROOF_LOOP).render(points=points, bounds_zh=zh)
    got = "<tbody>" + str(panel_rows.roofline_rows_html(points, zh)) + "</tbody>"
    assert got == want
    assert '<td translate="no">M=1 &amp; N=2</td>' in got
    assert '<span class="zh-only"><span translate="no">访存</span></span>' in got
    assert '<span class="zh-only">计算 &lt;受限&gt;</span>' in got


def test_esc_matches_autoescape():
    for value in ['a"b\'c<d>&e', 3, 1.5, None, Markup("<b>x</b>")]:
        assert panel_rows.esc(value) == str(Markup.escape(value))
