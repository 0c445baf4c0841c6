"""Write each capture's source pages and ISA page (``views.source`` names and builds them).

A row's cells are data (numbers, stall types, code, ISA) under ``<tbody translate="no">``;
its interface words ("3 instructions", an MFMA note) are ``translate="yes"`` and carry their
中文 in ``data-zh`` (``generator.site.i18n``).

The kernel page links into these pages; they are part of the kernel's files in the
manifest, so an unchanged kernel keeps them and a removed kernel loses them.

The rows are the hot loop of the whole build (a listing holds thousands of instructions, a
file hundreds of lines), so they are written here in Python, each value of the bundle's escaped as
Jinja's autoescape does (``esc``; our own numbers, anchors and heat classes hold nothing to escape);
``source.html`` and ``isa.html`` only wrap them.
Measured by ``benchmarks/bench_source_rows.py`` on the shared MI350X sweep (15,983 ISA rows,
287 source lines, the same bytes both ways): the same rows as a Jinja loop take 151 ms of CPU
against 42 ms here (medians of 5), +8.3 % of a cold build's CPU time.
"""

from __future__ import annotations

from markupsafe import Markup

from generator.site import render
from generator.site.escaping import escaped as esc  # each value of the bundle's in a row
from generator.site.views.base import KernelData, SiteContext
from generator.site.views.source import IsaRow, SourceLine, capture_pages

TEMPLATES = {"source": "source.html", "isa": "isa.html"}


def asm_html(i: IsaRow) -> str:
    """An instruction's text; a branch's operand links its target's row on the ISA page (an href of ours,
    ``isa.html#pc<pc>``: nothing to escape)."""
    if i.target is None:
        return esc(i.asm)
    op, _, arg = i.asm.strip().partition(" ")
    return (f'{esc(op)} <a class="branch" href="{i.target_href}" title="pc {i.target}">'
            f'{esc(arg)}</a>')


def _mini_row(i: IsaRow) -> str:
    """One instruction folded under a hot line; its heat, href, pc and stall are ours (``isa_row_html``)."""
    heat = f' class="{i.heat}"' if i.heat else ""
    return f'<tr{heat}><td><a href="{i.href}">{i.pc}</a></td><td>{i.stall}</td><td>{asm_html(i)}</td></tr>'


def mini_isa_html(rows: list[IsaRow]) -> str:
    """The instructions folded under a hot source line (a small table)."""
    return f'<table class="isa-mini"><tbody>{"".join(map(_mini_row, rows))}</tbody></table>'


def source_row_html(line: SourceLine, has_text: bool) -> str:
    """One line of a source page: number, stall, share, dominant type, text and its ISA."""
    text = f"<pre>{esc(line.text)}</pre>" if has_text else ""
    if line.isa:
        isa = (f'<details><summary translate="yes" data-zh="{esc(line.isa_label_zh)}">{esc(line.isa_label)}</summary>'
               f'{mini_isa_html(line.isa)}</details>')
    elif line.isa_href:
        isa = (f'<a class="isa-count" href="{esc(line.isa_href)}" translate="yes" data-zh="{esc(line.isa_label_zh)}">'
               f'{esc(line.isa_label)}</a>')
    else:
        isa = ""
    a = line.anchor  # ours, like the heat class, the number and the cycle and share cells: ``L<n>``, an int,
    # ``fmt_cycles``, ``fmt_pct`` (``views.source._source_lines``): nothing to escape
    heat = f' class="{line.heat}"' if line.heat else ""
    return (f'<tr id="{a}"{heat}><td><a href="#{a}">{line.number}</a></td><td>{line.stall}</td>'
            f'<td>{line.share}</td><td>{esc(line.dominant)}</td><td>{text}{isa}</td></tr>\n')


def source_rows_html(lines: list[SourceLine], has_text: bool) -> Markup:
    """The rows of one stretch of a source page."""
    return Markup("".join(source_row_html(ln, has_text) for ln in lines))


def isa_row_html(i: IsaRow) -> str:
    """One instruction of the ISA listing. Only the cells that hold the bundle's text are escaped (the
    instruction, its type, note and location): the rest are ours and cannot hold ``&<>'"``: the pc (an int),
    its anchor ``pc<pc>``, the heat class ``h1``..``h8``, the cycle counts (``fmt_cycles``: digits, ``.``, K, M)
    and the executions (``str`` of an int), as ``views.source._isa_rows`` writes them (issue 41, with the
    same in the source rows: the rows' 0.069 s -> 0.045 s of a cold build's CPU on the 25-kernel benchmark sweep)."""
    note = (f' <span class="note" title="{esc(i.note_title)}" translate="yes" data-zh="{esc(i.note_zh)}">'
            f'{esc(i.note)}</span>' if i.note else "")
    loc = f'<a href="{esc(i.loc_href)}">{esc(i.loc)}</a>' if i.loc_href else esc(i.loc)
    heat = f' class="{i.heat}"' if i.heat else ""
    return (f'<tr id="{i.anchor}"{heat}><td>{i.pc}</td><td>{i.stall}</td><td>{i.total}</td><td>{i.idle}</td>'
            f'<td>{i.execs}</td><td>{esc(i.type)}</td><td>{asm_html(i)}{note}</td><td>{loc}</td></tr>\n')


def isa_rows_html(rows: list[IsaRow]) -> Markup:
    """Every row of the ISA listing."""
    return Markup("".join(map(isa_row_html, rows)))


def kernel_source_files(k: KernelData, ctx: SiteContext, assets: render.Assets) -> dict[str, bytes]:
    """``kernels/<slug>/src/<capture>/<file>.html`` and ``.../isa.html`` of every analyzed capture."""
    out: dict[str, bytes] = {}
    for ci, c in enumerate(k.captures):
        title = c.name if not c.label or c.label == c.name else f"{c.label} \u00b7 {c.name}"
        for page in capture_pages(ci, c, k, ctx, title):
            if page.kind == "isa":
                rows = {"rows": isa_rows_html(page.isa)}
            else:
                rows = {"blocks": [(b, source_rows_html(b.lines, page.has_text)) for b in page.blocks]}
            out[f"kernels/{k.slug}/{page.rel}"] = render.render_template(TEMPLATES[page.kind], page=page, assets=assets,
                                                                         **rows)
    return out
