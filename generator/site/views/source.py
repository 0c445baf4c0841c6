"""Source and ISA pages of a capture (coverage.py's model: one page per source file).

The kernel page keeps the summary (stall map, top lines and instructions, occupancy,
advice); each capture's source files and its full ISA listing are pages of their own,
next to the kernel page. URL rule, written here once (the kernel page, the advice
evidence, the source and ISA pages all call ``SourceIndex``; ``site.js`` reads the hrefs
from the page and never builds one)::

    kernels/<slug>/src/<capture>/<file>.html#L<n>   line n of one source file
    kernels/<slug>/src/<capture>/isa.html#pc<pc>    instruction pc of the full ISA listing

A long listing is split into parts (issue 23: no page over 1 MB): instruction ``pc`` lives on
``isa.html`` when ``pc // ISA_PART_PCS`` is 0, else on ``isa-<pc // ISA_PART_PCS + 1>.html``
(``isa_page``); every link into the listing is made by that rule, and each part lists the
others with their first and last pc (``site.js`` forwards an ``isa.html#pc<pc>`` made
elsewhere to its part by that list, naming no rule of its own).

``<capture>`` is the capture's anchor on the kernel page (``c0``, ``c1``...: its place
in the bundle's sorted capture list). ``<file>`` is the file's base name with every
character outside ``[A-Za-z0-9_.-]`` replaced by ``_``, leading dots dropped and cut to
60 characters (``/ws/kernels/flash_attn_func.py`` -> ``flash_attn_func.py``). When two
files of a capture would get the same name, or a name is reserved (``isa``, ``index``,
empty, or ``isa-<n>``), each such file gets ``-<first 8 hex digits of sha256(its full path)>``
appended. So the name is deterministic, collision-free, holds no directory and no
absolute path, and a hostile file name cannot leave the folder or inject markup.

Framework files (``site-packages``, FlyDSL's own ``python_packages`` modules: the
advice's ``is_framework_path``) are listed on the kernel page but get no page unless
they hold a hot line (a top line or a top instruction's line, of all waves or of the
working waves, or the jump target), so every link the kernel page makes resolves.

On a source page each line shows its heat; a hot line (one that stalls) carries its
instructions folded under it; a stretch of more than ``FOLD_MIN`` cold lines away from
hot ones (``CONTEXT`` lines kept on each side) is folded ("... 120 cold lines").
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import field
from typing import Any

from generator.analyze.advice.view import is_framework_path
from generator.analyze.isa import branch_targets
from generator.analyze.message import sentence
from generator.model import UNKNOWN_LOC, record
from generator.analyze.message import msg
from generator.site import i18n, wording
from generator.site.text_report import fmt_cycles, split_loc
from generator.site.views.base import TOP_K, CaptureData, KernelData, SiteContext, display_names, fmt_pct, heat

SRC_DIR = "src"
ISA_PAGE = "isa.html"
RESERVED = frozenset({"isa", "index", ""})
_RESERVED_PART = re.compile(r"isa-\d+")
#: Instructions (a range of pcs) per ISA page: a row weighs about 210 bytes and stands about 21 px
#: tall on the real sweep, so a full part is about 250 KB and 25,500 px as opened, under the 1 MB and
#: 30,000 px a page may take (issue 34: flash_attn_func's 2,069 instructions make two pages).
ISA_PART_PCS = 1200
MAX_NAME = 60
#: Lines kept visible on each side of a hot line; cold runs longer than FOLD_MIN are folded.
CONTEXT = 3
FOLD_MIN = 8
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def capture_anchor(ci: int) -> str:
    """The capture's anchor on the kernel page and its folder under ``src/``: ``c<i>``."""
    return f"c{ci}"


def isa_href(ci: int) -> str:
    """The ISA listing of capture ``ci``, relative to the kernel page: ``src/c<i>/isa.html``."""
    return f"{SRC_DIR}/{capture_anchor(ci)}/{ISA_PAGE}"


def isa_page(pc: int | None = None) -> str:
    """The ISA page holding instruction ``pc`` (the listing's first page without one)."""
    part = 0 if pc is None else max(pc, 0) // ISA_PART_PCS
    return ISA_PAGE if part == 0 else f"isa-{part + 1}.html"


def isa_pc_href(isa: str, pc: int) -> str:
    """A link to instruction ``pc``, from a link to the listing (``src/c1/isa.html``)."""
    folder = isa[: len(isa) - len(ISA_PAGE)] if isa.endswith(ISA_PAGE) else isa
    return f"{folder}{isa_page(pc)}#pc{pc}"


def file_names(paths: list[str]) -> dict[str, str]:
    """Each virtual path's page name (``<file>.html``) under the rule of the module docstring."""
    safe = {}
    for p in paths:
        base = p.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        safe[p] = _UNSAFE.sub("_", base).lstrip(".")[:MAX_NAME]
    count: dict[str, int] = {}
    for s in safe.values():
        count[s.lower()] = count.get(s.lower(), 0) + 1  # case-insensitive file systems too
    out = {}
    for p, s in safe.items():
        if count[s.lower()] > 1 or s.lower() in RESERVED or _RESERVED_PART.fullmatch(s.lower()):
            s = f"{s}-{hashlib.sha256(p.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
        out[p] = s + ".html"
    return out


@record
class SourceIndex:
    """What links into a capture's source and ISA pages: names, which files get a page.

    ``href(loc, base)`` is the link to a ``file:line`` from a page ``base`` away from the
    capture's folder (``src/c1/`` from the kernel page, ``""`` from the pages themselves);
    "" when that file has no page.
    """

    anchor: str
    paths: list[str]
    names: dict[str, str]
    short: dict[str, str]
    rendered: set[str]
    hot_locs: set[str] = field(default_factory=set)

    @property
    def folder(self) -> str:
        """``src/c1/``: the capture's folder, relative to the kernel page."""
        return f"{SRC_DIR}/{self.anchor}/"

    def page(self, path: str, base: str = "") -> str:
        """The page of a file ("" when it has none)."""
        return base + self.names[path] if path in self.rendered else ""

    def isa(self, base: str = "", pc: int | None = None) -> str:
        """The ISA listing, or one instruction of it."""
        return base + (ISA_PAGE if pc is None else f"{isa_page(pc)}#pc{pc}")

    def href(self, loc: str, base: str = "") -> str:
        """The link to ``file:line``; unmapped instructions go to the ISA listing."""
        path, line = split_loc(loc)
        if loc == UNKNOWN_LOC or line is None or path not in self.names:
            return self.isa(base)
        page = self.page(path, base)
        return f"{page}#L{line}" if page else ""

    def loc_text(self, loc: str) -> str:
        """``file.py:123`` with the file's display name."""
        if loc == UNKNOWN_LOC:
            return loc
        path, line = split_loc(loc)
        return f"{self.short.get(path, path)}:{line}" if line is not None else self.short.get(loc, loc)


def hot_locs(c: CaptureData) -> set[str]:
    """The lines the kernel page links: top lines and top instructions' lines (all and working
    waves), and the jump target (the hottest line that is not a flagged decorator artifact)."""
    a = c.analysis
    if a is None:
        return set()
    out = {ln.source_loc for ln in a.hot_lines(TOP_K)} | {i.source_loc for i in a.top_instructions(TOP_K)}
    if a.working is not None:
        out |= {ln.source_loc for ln in a.working.hot_lines(TOP_K)}
        out |= {i.source_loc for i in a.working.top_instructions(TOP_K)}
    jump = hottest_loc(c)
    if jump:
        out.add(jump)
    return out


def _artifacts(c: CaptureData) -> set[str]:
    """The lines the advice flags as a debug-info artifact (the entry/decorator line)."""
    return {(f.get("evidence") or {}).get("source") for f in (c.findings or []) if f.get("detector") == "decorator_line"}


def hottest_loc(c: CaptureData) -> str:
    """The hottest mapped line that is not a flagged debug-info artifact (the entry/decorator line); "" when
    no stalling instruction maps to a line (pa_mqa_logits_fp4: all 726 unmapped, the jump went to the ISA
    listing's top as if it were a line)."""
    a = c.analysis
    if a is None:
        return ""
    artifacts = _artifacts(c) | {UNKNOWN_LOC}  # an unmapped instruction has no line to jump to (pa_mqa_logits_fp4)
    hot = [ln for ln in a.hot_lines(len(a.lines)) if ln.source_loc not in artifacts][:1]
    return hot[0].source_loc if hot else ""


def _flag_of(c: CaptureData, loc: str) -> dict[str, Any]:
    """The evidence of the advice's line flag (``decorator_line``) on ``loc`` ({} when none)."""
    return next(((f.get("evidence") or {}) for f in (c.findings or []) if f.get("detector") == "decorator_line"
                 and (f.get("evidence") or {}).get("source") == loc), {})


def jump_note(c: CaptureData, jump: str) -> wording.Said | None:
    """What "jump to the hottest line" (to ``jump``, ``hottest_loc``) skips, said beside it: the
    hottest line itself when the advice flags it, as the flag reads it (no bundle of the sweep keeps the
    source that would show a decorator there). The kernel's entry line is flagged as a debug-info
    artifact (pa_decode_fp8.py:1170, its first instruction and 608 of 936); a catch-all line that is not
    the entry only as holding most instructions (flash_attn_func.py:257, 1,895 of 2,069, while the entry
    is numeric.py:872): the note says the count, not an artifact. None when nothing is skipped."""
    a = c.analysis
    top = [ln for ln in a.hot_lines(len(a.lines)) if ln.source_loc != UNKNOWN_LOC][:1] if a is not None and jump else []
    if not top or top[0].source_loc == jump:
        return None
    path, line = split_loc(top[0].source_loc)
    loc = f"{path.rsplit('/', 1)[-1]}:{line}"
    flag = _flag_of(c, top[0].source_loc)
    if flag and not flag.get("entry_line", True):
        return wording.said(msg("cap.jump.skips.catch_all", loc=loc, n=flag.get("instructions"),
                                total=flag.get("kernel_instructions")))
    return wording.said(msg("cap.jump.skips", loc=loc))


def source_index(ci: int, c: CaptureData) -> SourceIndex:
    """The names and rendered files of capture ``ci`` (cheap: no page is built)."""
    a = c.analysis
    paths = sorted({split_loc(ln.source_loc)[0] for ln in a.lines if ln.source_loc != UNKNOWN_LOC}) if a else []
    hot = hot_locs(c)
    hot_paths = {split_loc(loc)[0] for loc in hot}
    rendered = {p for p in paths if not is_framework_path(p) or p in hot_paths}
    return SourceIndex(capture_anchor(ci), paths, file_names(paths), display_names(paths), rendered, hot)


# ---------------------------------------------------------------- the file list on the kernel page

@record
class FileEntry:
    """One source file of a capture, as the kernel page lists it."""

    anchor: str  # c1-f0: the old in-page anchor, kept so that old links can be forwarded
    path: str
    short: str
    href: str  # its page ("" when not rendered)
    hottest_href: str
    stall: str
    lines: str
    note: str


def file_entries(ix: SourceIndex, c: CaptureData) -> list[FileEntry]:
    """The capture's files in path order, each with its page (or why it has none)."""
    a = c.analysis
    if a is None:
        return []
    per: dict[str, list[Any]] = {}
    for ln in a.lines:
        path, n = split_loc(ln.source_loc)
        if ln.source_loc != UNKNOWN_LOC and n is not None:
            per.setdefault(path, []).append(ln)
    out = []
    for j, path in enumerate(ix.paths):
        lines = per.get(path, [])
        stall = sum(ln.stall_cycles for ln in lines)
        hottest = max(lines, key=lambda ln: ln.stall_cycles, default=None)
        page = ix.page(path, ix.folder)
        note = ""
        if not page:
            note = sentence("msg.files.framework")
        elif path not in c.source_text:
            note = sentence("msg.files.nosnapshot")
        out.append(FileEntry(
            anchor=f"{ix.anchor}-f{j}", path=path, short=ix.short.get(path, path), href=page,
            hottest_href=ix.href(hottest.source_loc, ix.folder) if page and hottest and hottest.stall_cycles else "",
            stall=fmt_cycles(stall), lines=sentence("msg.files.lines", n=len(lines)),
            note=note))
    unk = next((ln for ln in a.lines if ln.source_loc == UNKNOWN_LOC), None)
    if unk is not None:
        out.append(FileEntry(f"{ix.anchor}-unk", UNKNOWN_LOC, sentence("msg.files.noloc"), ix.isa(ix.folder), "",
                             fmt_cycles(unk.stall_cycles), sentence("msg.files.instructions", n=len(unk.pc_indices)),
                             sentence("msg.files.inisa")))
    return out


# ---------------------------------------------------------------- the pages

@record(slots=True)
class IsaRow:
    """One instruction: a row of the ISA listing, or of a hot line's folded ISA."""

    pc: int
    anchor: str
    href: str  # its row on the ISA page
    asm: str
    type: str
    heat: str
    stall: str
    total: str
    execs: str
    loc: str
    loc_href: str
    note: str
    note_title: str
    note_zh: str = ""
    idle: str = ""  # ATT: idle cycles (code.json column 9); Nsight Compute: issued samples
    target: int | None = None  # a branch's target instruction (its pc), linked from the operand
    target_href: str = ""  # the target's row, on the ISA page that lists it


def mfma_note(note: dict[str, Any] | None) -> tuple[str, str, str]:
    """Short text, its 中文 and the full text of an MFMA annotation (``advice.MfmaNote.to_json()``). A latency
    that DOMAIN §1.4's table does not give (gfx950's ``v_mfma_f32_32x32x16_bf16`` in flash_attn_func,
    ``v_mfma_f32_16x16x32_bf16`` in hgemm_splitk) is inferred from the output tile: both texts say so."""
    if not note:
        return "", "", ""
    source = str(note.get("source", ""))
    inferred = source.startswith("inferred")
    key = "src.mfma.soon" if note.get("short") else "src.mfma.inferred" if inferred else "src.mfma"
    latency = note.get("latency")
    text = str(note.get("text", "")) + (f"; latency {source}" if inferred else "")
    return i18n.en(key, latency=latency), i18n.zh(key, latency=latency), text


def count_text(lang: str, n: int) -> str:
    """"3 instructions" / "1 instruction" in ``lang``."""
    return i18n.text(lang, "src.instructions", n=n)


@record(slots=True)
class SourceLine:
    """One line of a source page: its text (when the file is in the bundle), heat and ISA."""

    number: int
    anchor: str
    text: str
    heat: str
    stall: str
    share: str
    dominant: str
    isa: list[IsaRow]  # folded under a hot line
    isa_label: str  # "3 instructions" (hot lines) / link text to the ISA listing (cold mapped lines)
    isa_href: str  # cold mapped lines: their first instruction on the ISA page
    isa_label_zh: str = ""


@record
class Block:
    """A stretch of lines: shown, or folded (``cold``) behind "... 120 cold lines"."""

    cold: bool
    summary: str
    lines: list[SourceLine]
    summary_zh: str = ""


@record
class PageLink:
    title: str
    href: str
    current: bool = False


@record
class IsaPart:
    """One page of a long ISA listing: its pcs and its link."""

    first: int
    last: int
    href: str
    current: bool = False


@record
class CapturePage:
    """A source page or the ISA page of one capture (``base.html`` needs root, site_title, history_nav)."""

    kind: str  # "source" or "isa"
    rel: str  # path under kernels/<slug>/
    root: str
    site_title: str
    title: str
    kernel_name: str
    kernel_href: str
    capture_title: str
    capture_href: str
    path: str
    has_text: bool
    stall: str
    files: list[PageLink]
    isa_link: PageLink
    blocks: list[Block] = field(default_factory=list)
    isa: list[IsaRow] = field(default_factory=list)
    parts: list[IsaPart] = field(default_factory=list)  # the listing's pages, when it has several
    jump_href: str = ""
    history_nav: bool = False
    #: header of the ISA listing's column after "total": idle cycles (ATT) or issued samples (NCU)
    idle_key: str = "src.col.idle"
    total_key: str = "src.col.total"  # "src.col.total.samples" on a sampled capture (NCU, AMD PC sampling)
    jump_note: wording.Said | None = None  # the decorator line the jump skips
    isa_count: str = ""  # the ISA page's instructions in the site's number format ("2,069")


def _isa_rows(ix: SourceIndex, c: CaptureData) -> dict[int, IsaRow]:
    """Every instruction once, by pc (the first of a repeated pc; each row built once: thousands).
    Cycle counts recur (a listing of 2,000 instructions holds a few hundred), so each count's text
    and heat class are worked out once."""
    a = c.analysis
    max_ins = max((i.stall_cycles for i in a.instructions), default=0)
    mfma = c.mfma or {}
    sampled = a.sampled  # Nsight Compute or AMD PC sampling: issued samples, not idle cycles
    cache: dict[str, tuple[str, str]] = {}
    texts: dict[int, str] = {0: ""}  # a cycle count's text; none for zero
    heats: dict[int, str] = {}
    rows: dict[int, IsaRow] = {}
    targets = branch_targets(a.instructions) if a.vendor == "amd" else {}
    for ins in a.instructions:
        pc = ins.pc_index
        if pc in rows:
            continue
        lc = cache.get(ins.source_loc)
        if lc is None:
            lc = cache[ins.source_loc] = (ix.loc_text(ins.source_loc), ix.href(ins.source_loc))
        stall, total, execs = ins.stall_cycles, ins.total_cycles, ins.exec_count
        idle = ins.issued_samples if sampled else ins.idle_cycles
        idle_text = texts.get(idle)
        if idle_text is None:
            idle_text = texts[idle] = fmt_cycles(idle)
        stall_text = texts.get(stall)
        if stall_text is None:
            stall_text = texts[stall] = fmt_cycles(stall)
        total_text = texts.get(total)
        if total_text is None:
            total_text = texts[total] = fmt_cycles(total)
        hot = heats.get(stall)
        if hot is None:
            hot = heats[stall] = heat(stall, max_ins) if stall > 0 else ""
        note = mfma_note(mfma[pc]) if pc in mfma else ("", "", "")
        target = targets.get(pc)
        rows[pc] = IsaRow(pc, f"pc{pc}", f"{isa_page(pc)}#pc{pc}", ins.asm, ins.type, hot, stall_text, total_text,
                          str(execs) if execs else "", lc[0], lc[1], note[0], note[2], note[1], idle_text,
                          target, f"{isa_page(target)}#pc{target}" if target is not None else "")
    return rows


def fold(lines: list[SourceLine], hot: set[int]) -> list[Block]:
    """Shown and folded stretches: a cold line more than CONTEXT lines from any hot one is
    foldable; a run of more than FOLD_MIN foldable lines is folded."""
    near = [any(abs(i - h) <= CONTEXT for h in range(max(0, i - CONTEXT), i + CONTEXT + 1) if h in hot)
            for i in range(len(lines))]
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and near[j] == near[i]:
            j += 1
        run = lines[i:j]
        if not near[i] and len(run) > FOLD_MIN:
            span = dict(n=len(run), first=run[0].number, last=run[-1].number)
            blocks.append(Block(True, i18n.en("src.cold", **span), run, i18n.zh("src.cold", **span)))
        elif blocks and not blocks[-1].cold:
            blocks[-1].lines.extend(run)
        else:
            blocks.append(Block(False, "", run))
        i = j
    return blocks


def _source_lines(path: str, c: CaptureData, rows: dict[int, IsaRow], max_line: int) -> list[SourceLine]:
    """Every line of the file (or every mapped line when the file is not in the bundle)."""
    by_n = {}
    for ln in c.analysis.lines:
        p, n = split_loc(ln.source_loc)
        if p == path and n is not None:
            by_n[n] = ln
    text = c.source_text.get(path) or []
    numbers = sorted(set(range(1, len(text) + 1)) | set(by_n))
    out = []
    for n in numbers:
        ln = by_n.get(n)
        isa = [rows[pc] for pc in ln.pc_indices if pc in rows] if ln else []
        hot = bool(ln and ln.stall_cycles)
        out.append(SourceLine(
            number=n, anchor=f"L{n}", text=text[n - 1] if n <= len(text) else "",
            heat=heat(ln.stall_cycles, max_line) if ln else "",
            stall=fmt_cycles(ln.stall_cycles) if hot else "", share=fmt_pct(ln.share) if hot else "",
            dominant=ln.dominant_type if hot else "", isa=isa if hot else [],
            isa_label=count_text("en", len(isa)) if isa else "", isa_label_zh=count_text("zh", len(isa)) if isa else "",
            isa_href=isa[0].href if isa and not hot else ""))
    return out


def part_stall(a: Any, part: list[IsaRow]) -> int:
    """The stall of the instructions one ISA page lists, said beside their count (flash_attn_func's second part:
    870 instructions holding 772,348 of the capture's 1,754,236 cycles, not all of them)."""
    pcs = {r.pc for r in part}
    return sum(i.stall_cycles for i in a.instructions if i.pc_index in pcs)


def capture_pages(ci: int, c: CaptureData, k: KernelData, ctx: SiteContext, title: str) -> list[CapturePage]:
    """The source pages and the ISA page of capture ``ci`` (none when it was not analyzed)."""
    a = c.analysis
    if a is None:
        return []
    ix = source_index(ci, c)
    rows = _isa_rows(ix, c)
    max_line = max((ln.stall_cycles for ln in a.lines), default=0)
    root = "../../../../"
    files = [PageLink(ix.short.get(p, p), ix.names[p]) for p in ix.paths if p in ix.rendered]
    common = dict(root=root, site_title=ctx.title, kernel_name=k.name, kernel_href="../../index.html",
                  capture_title=title, capture_href=f"../../index.html#{ix.anchor}", history_nav=ctx.history)
    jump = hottest_loc(c)
    pages = []
    for p in ix.paths:
        if p not in ix.rendered:
            continue
        lines = _source_lines(p, c, rows, max_line)
        hot = {i for i, ln in enumerate(lines) if ln.stall}
        stall = sum(ln.stall_cycles for ln in a.lines if split_loc(ln.source_loc)[0] == p)
        here = [PageLink(f.title, f.href, f.href == ix.names[p]) for f in files]
        jp, jn = split_loc(jump) if jump else ("", None)
        pages.append(CapturePage(
            kind="source", rel=f"{ix.folder}{ix.names[p]}", title=ix.short.get(p, p), path=p,
            has_text=p in c.source_text, stall=fmt_cycles(stall), files=here, isa_link=PageLink(i18n.en("cap.isa"), ISA_PAGE),
            blocks=fold(lines, hot), jump_href=f"#L{jn}" if jp == p and jn is not None else "",
            jump_note=jump_note(c, jump) if jp == p else None, **common))
    parts: dict[str, list[IsaRow]] = {ISA_PAGE: []}  # the first page, even for an empty listing
    for pc, row in rows.items():
        parts.setdefault(isa_page(pc), []).append(row)
    listing = [IsaPart(part[0].pc, part[-1].pc, name) for name, part in parts.items() if part] if len(parts) > 1 else []
    idle_key = "src.col.issued" if a.sampled else "src.col.idle"
    total_key = "src.col.total.samples" if a.sampled else "src.col.total"
    for name, part in parts.items():
        pages.append(CapturePage(
            kind="isa", rel=f"{ix.folder}{name}", title=i18n.en("cap.isa"), path="", has_text=False,
            stall=fmt_cycles(part_stall(a, part)), files=files, isa_link=PageLink(i18n.en("cap.isa"), ISA_PAGE, True),
            isa=part, isa_count=f"{len(part):,}", parts=[IsaPart(x.first, x.last, x.href, x.href == name) for x in listing], idle_key=idle_key, total_key=total_key,
            **common))
    return pages
