"""The pages' repeated markup written in Python: the per-shape rows of the speed panel, the points
of the roofline panel (thousands of rows on a large campaign), and the small pieces every page
repeats (``bi``, ``msg``, ``said``, ``facts``, an advice ``finding``: hundreds of Jinja macro calls
a kernel page were its render's hot loop). Each value is escaped as Jinja's autoescape does, so the
bytes are those the templates and macros wrote; the templates call these as globals and only place
them (``install``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

from generator.model import UNKNOWN_LOC
from generator.site import i18n
from generator.site.views.base import DASH


def esc(value: object) -> str:
    """``value`` as autoescaped HTML (markupsafe's ``escape``): markup (``__html__``) as it is,
    anything else escaped."""
    return escape(value)


def bi(en: object, zh: object) -> str:
    """The ``bi`` macro: English and 中文 side by side."""
    return f'<span class="en-only">{esc(en)}</span><span class="zh-only">{esc(zh)}</span>'


def msg(text: str) -> str:
    """The ``msg`` macro: a computed English sentence, with its 中文 when a key matches."""
    z = i18n.zh_msg(text)
    return bi(text, z) if z else esc(text)


def said(en: object, segs) -> str:
    """The ``said`` piece: computed English and, when worded, its 中文 runs (``wording.Seg``), data
    ``translate="no"``; each language shown by site.css."""
    if not segs:
        return esc(en)
    zh = "".join(f'<span translate="no">{esc(s.text)}</span>' if s.data else esc(s.text) for s in segs)
    return f'<span class="l-en">{esc(en)}</span><span class="l-zh" lang="zh-CN">{zh}</span>'


def _fact(f) -> str:
    css = f' class="{esc(f.css)}"' if f.css else ""
    if f.label_zh:
        dt = f"<dt>{bi(f.label, f.label_zh)}</dt>"
    else:
        dt_attr = f' data-i18n="{esc(f.i18n)}"' if f.i18n else ' translate="no"'
        dt = f"<dt{dt_attr}>{esc(f.label)}</dt>"
    if f.href:
        value = f'<a href="{esc(f.href)}">{esc(f.value)}</a>'
    else:
        value = bi(f.value, f.zh) if f.zh else esc(f.value)
    dd_attr = "" if f.zh else ' translate="no"'
    return f"  <div{css}>{dt}<dd{dd_attr}>{value}</dd></div>\n"


def facts(items: Sequence) -> str:
    """The ``facts`` piece: a definition list of ``views.overview.Fact``."""
    return '<dl class="facts">\n' + "".join(_fact(f) for f in items) + "</dl>\n"


def _evidence_item(e) -> str:
    label = ""
    if e.label:
        said_label = said(e.label, e.label_zh) if e.label_zh else f'<span translate="no">{esc(e.label)}</span>'
        label = f'<span class="muted">{said_label}:</span> '
    links = ", ".join(f'<a href="{esc(lk.href)}">{esc(lk.text)}</a>' for lk in e.links)
    text = ""
    if e.text:
        attr = (f' data-i18n="{esc(e.text_key)}"' if e.text_key else
                f' data-zh="{esc(e.text_zh)}"' if e.text_zh else ' translate="no"')
        text = f" <span{attr}>{esc(e.text)}</span>"
    return f'<li>{label}<span translate="no">{links}</span>{text}</li>'


def finding(f) -> str:
    """The ``finding`` piece: one advice finding (``views.advice.FindingView``) with its evidence."""
    flagged = " flagged" if f.flagged else ""
    anchor = f' id="{esc(f.anchor)}"' if f.anchor else ""
    out = [f'<li class="finding{flagged}"{anchor}>\n',
           f'  <div class="finding-head"><strong>{said(f.title, f.title_zh)}</strong>\n']
    if f.share:
        out.append(f'<span class="pill"><span translate="no">{esc(f.share)}</span> '
                   f'<span data-i18n="advice.ofstalls">{esc(i18n.en("advice.ofstalls"))}</span></span>')
    if f.priority:
        p = esc(f.priority)
        out.append(f'<span class="pill prio-{p}" data-i18n="advice.prio.{p}">{p}</span>')
    out.append(f'    <span class="muted small" translate="no">{esc(f.detector)}</span></div>\n')
    if f.summary:
        out.append(f'<p class="summary">{said(f.summary, f.summary_zh)}</p>')
    if f.suggestion:
        out.append(f'<p class="suggestion"><span data-i18n="advice.try">{esc(i18n.en("advice.try"))}</span> '
                   f'{said(f.suggestion, f.suggestion_zh)}</p>')
    if f.evidence:
        items = "".join(_evidence_item(e) for e in f.evidence)
        out.append(f'<details class="evidence"><summary data-i18n="advice.evidence">{esc(i18n.en("advice.evidence"))}'
                   f'</summary><ul>{items}</ul></details>')
    out.append("</li>\n")
    return "".join(out)


def _cell(c) -> str:
    title = f' title="{esc(c.title)}"' if c.title else ""
    title_zh = f' data-zh-title="{esc(c.title_zh)}"' if c.title_zh else ""
    return (f'<td class="num {esc(c.css)}" data-sort="{esc(c.sort)}"{title}{title_zh} translate="no">'
            f'{esc(c.text)}</td>')


def shape_row_html(r) -> str:
    """One ledger shape of the per-shape table (a ``views.speed.ShapeRowView``: its fields are text)."""
    cells = "".join(_cell(c) for c in r.cells)
    failure_full = f' title="{esc(r.failure_full)}"' if r.failure_full else ""
    flags = "".join(f'<div class="flag small">{msg(f)}</div>' for f in r.flags)
    args, stage, model, dtype = esc(r.args), esc(r.stage), esc(r.model), esc(r.dtype)
    weight, best, failure = esc(r.weight), esc(r.best_baseline), esc(r.failure)
    return (f'  <tr id="{esc(r.anchor)}" data-models="{esc(r.models)}">\n'
            f'    <td data-sort="{args}" class="args" translate="no">{args}</td>\n'
            f'    <td data-sort="{stage}" translate="no">{stage}</td>\n'
            f'    <td data-sort="{model}" translate="no">{model}</td>\n'
            f'    <td data-sort="{dtype}" translate="no">{dtype}</td>\n'
            f'    <td class="num" data-sort="{weight}" translate="no">{weight}</td>\n'
            f'{cells}'
            f'    <td data-sort="{best}" translate="no">{best}</td>\n'
            f'    <td class="num {esc(r.outcome_css)}" data-sort="{esc(r.speedup_sort)}" translate="no">'
            f'{esc(r.speedup_text)}</td>\n'
            f'    <td class="failure" data-sort="{failure}"{failure_full}><span translate="no">{failure}'
            f'</span>{flags}</td>\n'
            f'  </tr>\n')


def shape_rows_html(rows: Sequence) -> Markup:
    """Every row of the per-shape table."""
    return Markup("".join(shape_row_html(r) for r in rows))


def _data_cells(cells: Sequence[object]) -> str:
    """Data cells ``<td translate="no">``."""
    return "".join([f'<td translate="no">{esc(x)}</td>' for x in cells])


def roofline_rows_html(points: Sequence[Sequence[str]], bounds_zh: Sequence[object]) -> Markup:
    """The roofline's points: each point's cells, its bound in English and 中文 last (a few bounds
    among thousands of points: each bound's cell written once)."""
    bound_cells: dict[tuple, str] = {}
    out = []
    for p, zh in zip(points, bounds_zh):
        key = (p[-1], zh, type(zh))  # markup and text of the same characters escape differently
        cell = bound_cells.get(key)
        if cell is None:
            cell = bound_cells[key] = f"<td>{bi(p[-1], zh)}</td></tr>"
        out.append(f"<tr>{_data_cells(p[:-1])}{cell}")
    return Markup("".join(out))


# ---------------------------------------------------------------- the captures panel's tables

def stall_rows_html(rows: Sequence) -> Markup:
    """A stall-types table's rows (``views.captures.StallTypeRow``)."""
    return Markup("".join(f'<tr translate="no"><td><span class="swatch {esc(t.css)}"></span>{esc(t.name)}</td>'
                          f'<td class="num">{esc(t.cycles)}</td><td class="num">{esc(t.share)}</td></tr>' for t in rows))


def _line_row(r) -> str:
    loc = (f'<a href="{esc(r.href)}" title="{esc(r.title)}">{esc(r.loc)}</a>' if r.href else
           f'<span title="{esc(r.title)}">{esc(r.loc)}</span>')
    return (f'<tr translate="no"><td class="num">{esc(r.rank)}</td><td class="loc">{loc}</td><td class="num">'
            f'{esc(r.stall)}</td><td class="num">{esc(r.share)}</td><td class="num">{esc(r.rate)}</td>'
            f'<td>{esc(r.dominant)}</td></tr>')


def line_rows_html(rows: Sequence) -> Markup:
    """A top-lines table's rows (``views.captures.LineRow``)."""
    return Markup("".join(_line_row(r) for r in rows))


def _ins_row(i, reason: bool) -> str:
    why = f'<td translate="no">{esc(i.reason)}</td>' if reason else ""
    loc = f'<a href="{esc(i.loc_href)}">{esc(i.loc)}</a>' if i.loc_href else esc(i.loc)
    return (f'<tr translate="no"><td class="num">{esc(i.rank)}</td><td class="num"><a href="{esc(i.href)}">{esc(i.pc)}'
            f'</a></td><td class="num">{esc(i.stall)}</td><td class="num">{esc(i.share)}</td><td>{esc(i.type)}</td>{why}'
            f'<td class="asm">{esc(i.asm)}</td><td class="loc">{loc}</td></tr>')


def ins_rows_html(rows: Sequence, reason: bool = False) -> Markup:
    """A top-instructions table's rows (``views.captures.InsRow``); ``reason``: NCU's stall reason column."""
    return Markup("".join(_ins_row(i, reason) for i in rows))


def _file_row(f) -> str:
    unknown = f.path == UNKNOWN_LOC
    short = msg(f.short) if unknown else esc(f.short)
    page = f' data-page="{esc(f.href)}"' if f.href else ""
    name = (f'<a href="{esc(f.href)}" title="{esc(f.path)}">{short}</a>' if f.href else
            f'<span title="{esc(f.path)}">{short}</span>')
    hottest = (f'<a href="{esc(f.hottest_href)}" data-i18n="cap.hottest">{esc(i18n.en("cap.hottest"))}</a> '
               if f.hottest_href else "")
    note = msg(f.note) if f.note else ""
    no = "" if unknown else ' translate="no"'
    return (f'<tr id="{esc(f.anchor)}"{page}><td class="loc"{no}>{name}</td><td class="num" translate="no">'
            f'{esc(f.stall)}</td><td class="num">{msg(f.lines)}</td><td class="small">{hottest}'
            f'<span class="muted">{note}</span></td></tr>')


def file_rows_html(files: Sequence) -> Markup:
    """A capture's source files (``views.source.FileEntry``): its page, stall, mapped lines, note."""
    return Markup("".join(_file_row(f) for f in files))


# ---------------------------------------------------------------- the overview's kernel rows

def _or_empty(value: object) -> object:
    return "" if value is None else value


def _kernel_name_cell(r) -> str:
    op = (f'<span class="muted small" translate="no">{esc(r.slug)} \u2192 {esc(r.op)}</span>'
          if r.op and r.op != r.slug else "")
    notes = "".join(f'<div class="missing small">{msg(m)}</div>' for m in r.missing)
    notes += "".join(f'<div class="broken small">{msg(b)}</div>' for b in r.broken)
    return (f'        <td data-sort="{esc(r.name)}"><a href="{esc(r.href)}" translate="no">{esc(r.name)}</a>\n'
            f"{op}{notes}        </td>\n")


def _kernel_verdict_cells(r) -> str:
    flags = "".join(f'<div class="flag small">{msg(f)}</div>' for f in r.flags)
    regressed = (f'<div class="regressed small"><a href="history.html#h-{esc(r.slug)}">'
                 f"{bi(r.regression, r.regression_zh)}</a></div>" if r.regression else "")
    sev = r.severity
    severity = (f'<span class="sev sev-{esc(sev["level"])}" data-zh="{esc(sev["level_zh"])}">{esc(sev["level"])}</span>\n'
                f'          <div class="small muted" data-zh="{esc(sev["detail_zh"])}">{esc(sev["detail"])}</div>'
                if sev else DASH)
    disagree = (f'          <div class="flag small disagree" translate="no">\u2260 {esc(r.headline_verdict)}</div>'
                if r.headline_disagrees else "")
    wins = f' data-zh="{esc(r.wins_zh)}"' if r.wins_zh else ' translate="no"'
    return (f'        <td data-sort="{esc(r.verdict_rank)}"><span class="badge {esc(r.verdict_css)}" translate="no">'
            f"{esc(r.verdict_label)}</span>\n{flags}{regressed}</td>\n"
            f'        <td data-sort="{esc(r.severity_sort)}">{severity}</td>\n'
            f'        <td class="num" translate="no" data-sort="{esc(_or_empty(r.geomean))}">{esc(r.geomean_text)}</td>\n'
            f'        <td class="num" data-sort="{esc(_or_empty(r.headline_speedup))}"><span translate="no">'
            f"{esc(r.headline_text_x)}</span>{disagree}</td>\n"
            f'        <td class="num" data-sort="{esc(r.wins_sort)}"><span{wins}>{esc(r.wins_text)}</span></td>\n')


def _kernel_diagnosis_cell(r) -> str:
    sep = '<span class="l-en">, </span><span class="l-zh">\uff0c</span>'
    links = sep.join(f'<a href="{esc(c.href)}">{said(c.text, c.zh_runs)}</a>' for c in r.diagnosis_links)
    bound = r.diagnosis["bound"] if r.diagnosis and r.diagnosis["bound"] else ""
    step = ""
    if r.first_step:
        fs, said_fs = r.first_step, r.first_step_said
        share = (f' <span class="muted" data-zh="{esc(fs["share_zh"])}">({esc(fs["share_text"])})</span>'
                 if fs["share_text"] else "")
        step = (f'<div class="first-step small"><span data-i18n="diag.first">{esc(i18n.en("diag.first"))}</span> '
                f'<a href="{esc(r.href)}{esc(fs["anchor"])}">{said(said_fs.en, said_fs.zh)}</a>{share}</div>')
    return f'        <td class="diag" data-sort="{esc(bound)}">{links}{step}</td>\n'


def _kernel_rest_cells(r) -> str:
    failures = f' data-zh="{esc(r.failures_zh)}"' if r.failures_zh else ' translate="no"'
    name, of, of_zh = r.best_baseline_split
    of = f' <span data-zh="{esc(of_zh)}">{esc(of)}</span>' if of else ""
    limiter = f' data-zh="{esc(r.limiter_zh)}"' if r.limiter_zh else ' translate="no"'
    top_stall = r.top_stall or DASH
    return (f'        <td class="num" translate="no" data-sort="{esc(_or_empty(r.weighted))}">{esc(r.weighted_text)}</td>\n'
            f'        <td class="num{" bad" if r.hard_failures else ""}" data-sort='
            f'"{esc(r.failures_sort if r.failures_sort >= 0 else "")}"><span{failures}>{esc(r.failures_text)}</span></td>\n'
            f'        <td data-sort="{esc(r.best_baseline or "")}"><span translate="no">{esc(name)}</span>{of}</td>\n'
            f'        <td translate="no" data-sort="{esc(r.top_stall or "")}">{esc(top_stall)}</td>\n'
            f'        <td class="num" translate="no" data-sort="{esc(_or_empty(r.stall_ratio))}">{esc(r.stall_ratio_text)}</td>\n'
            f'        <td class="num" translate="no" data-sort="{esc(_or_empty(r.occupancy))}">{esc(r.occupancy_text)}</td>\n'
            f'        <td data-sort="{esc(r.limiter or "")}"><span{limiter}>{esc(r.limiter_text)}</span></td>\n'
            f'        <td translate="no" data-sort="{esc(r.category)}">{esc(r.category)}</td>\n')


def kernel_row_html(r) -> str:
    """One kernel of the overview table (``views.overview.IndexRow``): fifteen cells, sort keys in ``data-sort``."""
    return (f'      <tr class="krow" id="k-{esc(r.slug)}" data-verdict="{esc(r.verdict if r.verdict else "NONE")}" '
            f'data-category="{esc(r.category)}" data-severity="{esc(r.severity_level)}" data-search="{esc(r.search)}" '
            f'data-href="{esc(r.href)}">\n'
            f"{_kernel_name_cell(r)}{_kernel_verdict_cells(r)}{_kernel_diagnosis_cell(r)}{_kernel_rest_cells(r)}"
            f"      </tr>\n")


def kernel_rows_html(rows: Sequence) -> Markup:
    """A category's kernels in the overview table."""
    return Markup("".join(kernel_row_html(r) for r in rows))


def _markup(piece: Callable[..., str]) -> Callable[..., Markup]:
    """A piece as a template global: its HTML marked safe, so autoescape prints it as it is."""
    def as_markup(*args) -> Markup:
        return Markup(piece(*args))
    as_markup.__name__, as_markup.__doc__ = piece.__name__, piece.__doc__
    return as_markup


def install(env) -> None:
    """Jinja globals: the pieces (``bi``, ``msg``, ``said``, ``facts``, ``finding``) and the tables'
    rows (``*_rows_html``)."""
    for piece in (bi, msg, said, facts, finding):
        env.globals[piece.__name__] = _markup(piece)
    for rows in (shape_rows_html, roofline_rows_html, stall_rows_html, line_rows_html, ins_rows_html, file_rows_html,
                 kernel_rows_html):
        env.globals[rows.__name__] = rows
