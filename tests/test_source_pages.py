"""The source and ISA rows written in Python (``generator.site.source_pages``): real values from
the shared sweep, and the same bytes as the per-row Jinja templates they replace."""

from __future__ import annotations

import dataclasses

import markupsafe
import pytest

from generator.site import render, source_pages
from generator.site.views import base as base_views
from generator.site.views import source as source_views

# The rows as Jinja templates (the oracle: the Python functions write the same bytes; the first
# version of this module replaced exactly these templates, without the 中文 attributes; the ISA
# row has since gained the idle column, DOMAIN §1.1, and a branch operand's link to its target, issue 23 (7)).
ASM = ('{% if i.target is not none %}{{ i.asm.strip().partition(" ")[0] }} <a class="branch" href="{{ i.target_href }}" '
       'title="pc {{ i.target }}">{{ i.asm.strip().partition(" ")[2] }}</a>{% else %}{{ i.asm }}{% endif %}')
OLD_SOURCE_ROW = (
    '<tr id="{{ l.anchor }}"{% if l.heat %} class="{{ l.heat }}"{% endif %}><td><a href="#{{ l.anchor }}">{{ l.number }}</a>'
    '</td><td>{{ l.stall }}</td><td>{{ l.share }}</td><td>{{ l.dominant }}</td><td>{% if has_text %}<pre>{{ l.text }}</pre>'
    '{% endif %}{% if l.isa %}<details><summary translate="yes" data-zh="{{ l.isa_label_zh }}">{{ l.isa_label }}</summary><table class="isa-mini"><tbody>{% for i in l.isa %}'
    '<tr{% if i.heat %} class="{{ i.heat }}"{% endif %}><td><a href="{{ i.href }}">{{ i.pc }}</a></td><td>{{ i.stall }}</td>'
    '<td>' + ASM + '</td></tr>{% endfor %}</tbody></table></details>{% elif l.isa_href %}<a class="isa-count" '
    'href="{{ l.isa_href }}" translate="yes" data-zh="{{ l.isa_label_zh }}">{{ l.isa_label }}</a>{% endif %}</td></tr>\n')
OLD_ISA_ROW = (
    '<tr id="{{ i.anchor }}"{% if i.heat %} class="{{ i.heat }}"{% endif %}><td>{{ i.pc }}</td><td>{{ i.stall }}</td>'
    '<td>{{ i.total }}</td><td>{{ i.idle }}</td><td>{{ i.execs }}</td><td>{{ i.type }}</td><td>' + ASM + '{% if i.note %} <span class="note" '
    'title="{{ i.note_title }}" translate="yes" data-zh="{{ i.note_zh }}">{{ i.note }}</span>{% endif %}</td><td>{% if i.loc_href %}<a href="{{ i.loc_href }}">'
    '{{ i.loc }}</a>{% else %}{{ i.loc }}{% endif %}</td></tr>\n')


#: flash_attn_func's small run before the source-location fix: the one flash capture both the slice and
#: the whole sweep hold (the sweep's c2, after the big runs; the slice's c0)
FLASH_SMALL = "small/ui_output_agent_32235_dispatch_44"


def _pages(kernel, slug, ci=0, rel=None):
    """The source and ISA pages of a kernel's capture ``ci``, or of the capture whose folder ends with ``rel``."""
    k, _ = kernel(slug)
    if rel is not None:
        ci = next(i for i, c in enumerate(k.captures) if c.rel.endswith(rel))
    return source_views.capture_pages(ci, k.captures[ci], k, base_views.SiteContext(), "t")


def test_the_hottest_vec_add_instruction_row(kernel):
    isa = next(p for p in _pages(kernel, "vec_add") if p.kind == "isa")
    row = next(r for r in isa.isa if r.pc == 18)
    assert source_pages.isa_row_html(row) == (
        '<tr id="pc18" class="h8"><td>18</td><td>1.73M</td><td>1.73M</td><td></td><td>632</td><td>VMEM-wait</td>'
        '<td>s_waitcnt vmcnt(0)</td><td><a href="test_vec_add.py.html#L28">test_vec_add.py:28</a></td></tr>\n')


def test_the_hottest_vec_add_line_folds_its_seven_instructions(kernel):
    page = next(p for p in _pages(kernel, "vec_add") if p.rel == "src/c0/test_vec_add.py.html")
    line = next(ln for b in page.blocks for ln in b.lines if ln.number == 28)
    html = source_pages.source_row_html(line, page.has_text)
    assert html.startswith('<tr id="L28" class="h8"><td><a href="#L28">28</a></td><td>1.76M</td><td>83.7%</td>'
                           '<td>VMEM-wait</td><td><details><summary translate="yes" data-zh="7 条指令">7 instructions</summary>')
    assert '<tr class="h8"><td><a href="isa.html#pc18">18</a></td><td>1.73M</td><td>s_waitcnt vmcnt(0)</td></tr>' in html
    assert html.count("<tr") == 8 and html.endswith("</details></td></tr>\n")


def test_python_rows_are_the_bytes_of_the_templates_they_replace(kernel):
    env = render.environment()
    src_t, isa_t = env.from_string(OLD_SOURCE_ROW), env.from_string(OLD_ISA_ROW)
    n = notes = 0
    # MFMA notes, cold mapped lines, folded stretches: flash's small capture (2,069 instructions) and
    # hgemm_splitk's, held whole by the slice and the sweep alike
    for slug, rel in (("flash_attn_func", FLASH_SMALL), ("hgemm_splitk", None)):
        for p in _pages(kernel, slug, rel=rel):
            for i in p.isa:
                assert source_pages.isa_row_html(i) == isa_t.render(i=i)
                n += 1
                notes += bool(i.note)
            for b in p.blocks:
                assert source_pages.source_rows_html(b.lines, p.has_text) == "".join(
                    src_t.render(l=ln, has_text=p.has_text) for ln in b.lines)
                n += len(b.lines)
    assert n > 2000 and notes > 0
    # hostile text: escaped exactly as autoescape does
    evil = '<script>alert("x")</script> & \'q\''
    row = source_views.IsaRow(1, "pc1", "isa.html#pc1", evil, evil, "h1", "1", "2", "3", evil, evil, evil, evil)
    assert source_pages.isa_row_html(row) == isa_t.render(i=row)
    for value in (evil, "", "&amp;", 3, markupsafe.Markup("<b>x</b>")):  # text, a number, markup
        assert source_pages.esc(value) == str(markupsafe.escape(value))
    line = source_views.SourceLine(7, "L7", evil, "h2", "5", "1%", evil, [row], evil, "")
    assert source_pages.source_row_html(line, True) == src_t.render(l=line, has_text=True)
    cold = dataclasses.replace(line, isa=[], isa_href=evil)
    assert source_pages.source_row_html(cold, False) == src_t.render(l=cold, has_text=False)


def test_interface_words_carry_their_chinese_and_data_stays_untranslated(kernel):
    # flash's small capture, whole in the slice: code.json (ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit,
    # Latency, Stall, Idle) has 2,069 instruction rows whose Stall column sums to 107,884 cycles; pc 788 is
    # v_mfma_f32_32x32x16_bf16; flash_attn_func.py:567 maps to pc 287 alone (s_and_b32, 0 stall)
    pages = _pages(kernel, "flash_attn_func", rel=FLASH_SMALL)
    parts = [p for p in pages if p.kind == "isa"]  # the listing in parts of 1,200 instructions (issue 34)
    # each part says the stall of the instructions it lists: pcs 1-1199 hold 61,140, pcs 1200-2069 46,744 (audit9)
    assert (sum(len(p.isa) for p in parts), [p.stall for p in parts]) == (2069, ["61.1K", "46.7K"])
    mfma = next(r for p in parts for r in p.isa if r.pc == 788)
    # its latency is not in DOMAIN §1.4's table but inferred from the 32x32 tile: the note says so (audit9)
    assert (mfma.note, mfma.note_zh) == ("32-cycle MFMA (inferred)", "32 周期的 MFMA（推断）")
    assert ' translate="yes" data-zh="32 周期的 MFMA（推断）">32-cycle MFMA (inferred)</span>' in source_pages.isa_row_html(mfma)
    page = next(p for p in pages if p.rel.endswith("/flash_attn_func.py.html"))
    cold = next(ln for b in page.blocks for ln in b.lines if ln.number == 567)
    assert (cold.isa_label, cold.isa_label_zh, cold.isa_href) == ("1 instruction", "1 条指令", "isa.html#pc287")
    assert source_pages.source_row_html(cold, page.has_text).endswith(
        '<a class="isa-count" href="isa.html#pc287" translate="yes" data-zh="1 条指令">1 instruction</a></td></tr>\n')


def test_a_folded_stretch_says_how_many_cold_lines_in_both_languages():
    lines = [source_views.SourceLine(n, f"L{n}", "", "", "", "", "", [], "", "") for n in range(1, 61)]
    blocks = source_views.fold(lines, {49})  # line 50 is hot: 1-46 fold, 47-53 shown, 54-60 shown (7 <= FOLD_MIN)
    assert [(b.cold, len(b.lines)) for b in blocks] == [(True, 46), (False, 14)]
    assert blocks[0].summary == "\u2026 46 cold lines (1\u201346)"
    assert blocks[0].summary_zh == "\u2026 46 行无停顿代码（第 1\u201346 行）"


def test_compiled_templates_are_kept_between_runs_and_a_bad_cache_costs_only_time(tmp_path, monkeypatch, kernel):
    import jinja2

    def env(cache):
        return jinja2.Environment(loader=jinja2.FileSystemLoader(str(render.templates_dir())), bytecode_cache=cache,
                                  autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)

    page = next(p for p in _pages(kernel, "vec_add") if p.kind == "isa")
    ctx = dict(page=page, assets=render.load_assets(), rows=source_pages.isa_rows_html(page.isa), _=str, zh=str)
    first = env(render._TemplateCache(str(tmp_path))).get_template("isa.html").render(**ctx)
    cached = sorted(tmp_path.iterdir())
    assert len(cached) == 2  # isa.html and base.html, compiled once
    again = env(render._TemplateCache(str(tmp_path))).get_template("isa.html").render(**ctx)
    assert again == first and "s_waitcnt vmcnt(0)" in first
    for f in cached:
        f.write_bytes(b"not a compiled template")
    assert env(render._TemplateCache(str(tmp_path))).get_template("isa.html").render(**ctx) == first
    monkeypatch.delenv("KERNEL_ATLAS_TEMPLATE_CACHE", raising=False)
    assert render.template_cache() is None  # off unless asked: nothing written outside the output folder
    monkeypatch.setenv("KERNEL_ATLAS_TEMPLATE_CACHE", str(tmp_path / "tc"))
    assert isinstance(render.template_cache(), render._TemplateCache) and (tmp_path / "tc").is_dir()
