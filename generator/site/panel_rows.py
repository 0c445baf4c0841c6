"""The long tables of the kernel page written in Python: the per-shape rows of the speed panel
and the points of the roofline panel (thousands of rows on a large campaign; per-row template
calls were the kernel page's hot loop). Each value is escaped as Jinja's autoescape does, so the
bytes are those the templates wrote; ``speed.html`` and ``roofline.html`` only place them.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from generator.site import i18n


try:  # markupsafe's own C escaping of a str (what escape() does inside), 4x the replaces below
    from markupsafe._speedups import _escape_inner as _escape_str
except ImportError:  # another markupsafe: the same five replacements in Python
    def _escape_str(s: str) -> str:
        return (s.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
                .replace("'", "&#39;").replace('"', "&#34;"))


#: A plain ``str`` (never markup, never a number) as autoescaped HTML, without ``esc``'s checks:
#: the hot rows' text fields, called straight into markupsafe's C code.
esc_str = _escape_str


def esc(value: object) -> str:
    """``value`` as autoescaped HTML: markup (``__html__``) as it is, anything else escaped."""
    if type(value) is not str:
        if hasattr(value, "__html__"):
            return value.__html__()
        value = str(value)
    return _escape_str(value)


def bi(en: object, zh: object) -> str:
    """The ``bi`` macro: English and 中文 side by side."""
    return f'<span class="en-only">{esc(en)}</span><span class="zh-only">{esc(zh)}</span>'


def msg(text: str) -> str:
    """The ``msg`` macro: a computed English sentence, with its 中文 when a key matches."""
    z = i18n.zh_msg(text)
    return bi(text, z) if z else esc(text)


def _cell(c) -> str:
    title = f' title="{esc(c.title)}"' if c.title else ""
    title_zh = f' data-zh-title="{esc(c.title_zh)}"' if c.title_zh else ""
    return f'<td class="num {esc(c.css)}" data-sort="{esc(c.sort)}"{title}{title_zh} translate="no">{esc(c.text)}</td>'


def shape_row_html(r) -> str:
    """One ledger shape of the per-shape table (a ``views.speed.ShapeRowView``)."""
    cells = "".join(_cell(c) for c in r.cells)
    failure_full = f' title="{esc(r.failure_full)}"' if r.failure_full else ""
    flags = "".join(f'<div class="flag small">{msg(f)}</div>' for f in r.flags)
    return (f'  <tr id="{esc(r.anchor)}" data-models="{esc(r.models)}">\n'
            f'    <td data-sort="{esc(r.args)}" class="args" translate="no">{esc(r.args)}</td>\n'
            f'    <td data-sort="{esc(r.stage)}" translate="no">{esc(r.stage)}</td>\n'
            f'    <td data-sort="{esc(r.model)}" translate="no">{esc(r.model)}</td>\n'
            f'    <td data-sort="{esc(r.dtype)}" translate="no">{esc(r.dtype)}</td>\n'
            f'    <td class="num" data-sort="{esc(r.weight)}" translate="no">{esc(r.weight)}</td>\n'
            f'{cells}'
            f'    <td data-sort="{esc(r.best_baseline)}" translate="no">{esc(r.best_baseline)}</td>\n'
            f'    <td class="num {esc(r.outcome_css)}" data-sort="{esc(r.speedup_sort)}" translate="no">'
            f'{esc(r.speedup_text)}</td>\n'
            f'    <td class="failure" data-sort="{esc(r.failure)}"{failure_full}><span translate="no">{esc(r.failure)}'
            f'</span>{flags}</td>\n'
            f'  </tr>\n')


def shape_rows_html(rows: Sequence) -> Markup:
    """Every row of the per-shape table."""
    return Markup("".join(shape_row_html(r) for r in rows))


def roofline_rows_html(points: Sequence[Sequence[str]], bounds_zh: Sequence[object]) -> Markup:
    """The roofline's points: each point's cells, its bound in English and 中文 last."""
    return Markup("".join(
        "<tr>" + "".join(f'<td translate="no">{esc(x)}</td>' for x in p[:-1]) + f"<td>{bi(p[-1], zh)}</td></tr>"
        for p, zh in zip(points, bounds_zh)))


def install(env) -> None:
    """Jinja globals: ``shape_rows_html`` and ``roofline_rows_html``."""
    env.globals["shape_rows_html"] = shape_rows_html
    env.globals["roofline_rows_html"] = roofline_rows_html
