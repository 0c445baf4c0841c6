"""Render view models to bytes: Jinja2 pages, the badge SVG, the PR Markdown, static assets.

All HTML knowledge lives in ``templates/`` (top level of the repository) but the rows of
the source and ISA pages, the build's hot loop, which ``source_pages`` writes in Python; this module
only sets up Jinja2 (autoescape on for HTML/SVG, ``StrictUndefined`` so a misspelt
field fails the build instead of printing nothing), names the static assets by
content hash, and turns a bundle's REPORT.md into sanitized HTML.

Asset naming (repeated in ``templates/static/site.js``): ``static/<stem>.<hash10><ext>``
where hash10 is the first 10 hex digits of the file's SHA-256, e.g.
``static/site.3f2a9c1b0d.css``, ``static/plotly.8e1d0c2a4b.min.js``. The name changes
exactly when the bytes do, so browsers may cache them forever.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from generator.model import record
from generator.site import i18n, publish, wording
from generator.site.escaping import escaped

# A source checkout has top-level templates/; a wheel installs them as kernel_atlas_templates/.
_ROOT = Path(__file__).resolve().parent.parent.parent
TEMPLATES = next((p for p in (_ROOT / "templates", _ROOT / "kernel_atlas_templates")
                  if (p / "base.html").is_file()), _ROOT / "templates")
STATIC = TEMPLATES / "static"
#: The tool's reference (``docs/*.md`` of a source checkout), rendered into the site when present.
DOCS = _ROOT / "docs"


def templates_dir() -> Path:
    """The templates folder (top-level ``templates/``, or the installed copy)."""
    if not (TEMPLATES / "base.html").is_file():
        raise RuntimeError(f"Kernel Atlas templates not found at {TEMPLATES}; reinstall kernel-atlas")
    return TEMPLATES


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """A folder of compiled templates, where a failing disk only costs the compilation."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError):
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def template_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept between runs, on request: ``KERNEL_ATLAS_TEMPLATE_CACHE=DIR``
    (compiling every template costs each build process about 0.3 s). Off by default: a build
    writes nothing outside its output folder unless asked. An entry is keyed by the template's
    source and the Jinja and Python versions, so an edited template compiles again."""
    folder = os.environ.get("KERNEL_ATLAS_TEMPLATE_CACHE", "")
    if folder in ("", "0"):
        return None
    try:
        os.makedirs(folder, exist_ok=True)
        return _TemplateCache(folder)
    except OSError:  # not a usable folder: compile as usual
        return None


class _Template(jinja2.Template):
    """A template whose printed values are escaped by ``escaping.escaped`` (a plain ``str``: an output is only
    ever joined into the page, Jinja wrapping a buffer in ``Markup`` itself). Jinja escapes every ``{{ }}``
    of an HTML template with ``markupsafe.escape``, whose ``Markup`` result is built in Python for each
    of the 89,358 values a cold build of the shared sweep prints (issue 41: those values escaped in one
    process, 53.4 -> 33.1 ms of CPU, the same text for each)."""

    @classmethod
    def from_code(cls, environment, code, globals, uptodate=None):
        template = super().from_code(environment, code, globals, uptodate)
        if "escape" in template.root_render_func.__globals__:
            template.root_render_func.__globals__["escape"] = escaped
        return template


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The Jinja2 environment: autoescape for .html/.svg, strict undefined, stable whitespace."""
    env = jinja2.Environment(
        bytecode_cache=template_cache(),
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "svg", "xml"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        optimized=False,  # constant folding buys nothing here and costs 15% of every compilation
        auto_reload=False,  # a build never sees a template change under it
    )
    env.template_class = _Template
    env.globals["said"] = wording.said_html
    i18n.install(env)  # issue 13 (5): the catalogues' `_` and `zh`
    return env


def short_hash(data: bytes, n: int = 10) -> str:
    """First ``n`` hex digits of SHA-256."""
    return hashlib.sha256(data).hexdigest()[:n]


def hashed_name(stem: str, ext: str, data: bytes) -> str:
    """``static/<stem>.<hash10><ext>`` (see the module docstring)."""
    return f"static/{stem}.{short_hash(data)}{ext}"


@record
class Assets:
    """The site's static files: their hashed names (relative to the site root) and bytes."""

    css: str
    js: str
    plotly: str
    files: dict[str, bytes]


#: plotly.js's basic bundle (scatter, bar and pie traces: all the site draws), vendored from the
#: npm package ``plotly.js-basic-dist-min`` at the plotly.js version the Python ``plotly``
#: package ships, with its LICENSE beside it (``tests/test_pages.py`` pins its SHA-256).
#: A quarter of the full bundle's bytes, and parsed about 4x faster by the browser.
PLOTLY_BASIC = TEMPLATES / "vendor" / "plotly" / "plotly-basic.min.js"


def plotly_js_path() -> Path:
    """The vendored plotly.js basic bundle (``PLOTLY_BASIC``)."""
    if not PLOTLY_BASIC.is_file():
        raise RuntimeError(f"plotly-basic.min.js not found at {PLOTLY_BASIC}; reinstall kernel-atlas")
    return PLOTLY_BASIC


@lru_cache(maxsize=1)
def load_assets() -> Assets:
    """Read site.css, site.js and plotly-basic.min.js, and name each by its content hash."""
    css = (STATIC / "site.css").read_bytes()
    js = i18n.bundle_js((STATIC / "site.js").read_bytes())  # issue 13 (5): catalogues in front
    plotly = plotly_js_path().read_bytes()
    names = {
        "css": hashed_name("site", ".css", css),
        "js": hashed_name("site", ".js", js),
        "plotly": hashed_name("plotly", ".min.js", plotly),
    }
    files = {names["css"]: css, names["js"]: js, names["plotly"]: plotly}
    return Assets(css=names["css"], js=names["js"], plotly=names["plotly"], files=files)


@record
class ToolFacts:
    """What every build hashes or names of this tool's own files before it reads a sweep: the static
    assets, the templates' fingerprint and the code's (``publish.code_fingerprint``); ``hashed``: the code
    files' entries for the build's ``publish.FileHashes`` record, when they were hashed outside a build."""

    assets: Assets
    templates: str
    code: list[str]
    hashed: dict[str, list] = field(default_factory=dict)


def tool_facts() -> ToolFacts:
    """This tool's ``ToolFacts``, read now (the code files' hashes go to the build's ``publish.FileHashes``)."""
    return ToolFacts(load_assets(), templates_fingerprint(), publish.code_fingerprint())


def _facts_apart() -> ToolFacts:
    """``tool_facts`` read by another process than the build's: the code files' hashes come back in
    ``hashed``, for the build's record."""
    publish.FileHashes.active = hashes = publish.FileHashes()
    facts = tool_facts()
    facts.hashed = dict(hashes.seen)
    return facts


def templates_fingerprint() -> str:
    """A hash of every template and static file (part of the build's global hash)."""
    h = hashlib.sha256()
    root = templates_dir()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


#: The templates a kernel's pages use (its page and panels, the source and ISA pages, badge, PR
#: snippet): the ones a forked build compiles before its workers start; the rest (overview,
#: history, glossary, docs, findings, the CI pages) compile when the main process renders them.
#: Issue 41: compiling every template before the fork cost 0.31 s on the critical path, these 0.17 s.
KERNEL_TEMPLATES = ("kernel.html", "base.html", "macros.html", "source.html", "isa.html", "badge.svg", "pr.md")
#: The history page's template (``build --history``).
HISTORY_TEMPLATE = "history.html"


def compile_templates(*, kernel_only: bool = False, history: bool = True) -> None:
    """Compile the templates now (with ``kernel_only``, ``KERNEL_TEMPLATES`` and ``panels/``): forked
    build workers then share them instead of each compiling its own. The CI pages' (``ci_``) are
    left to the build that renders them, and without ``history`` the history page's (a build that keeps
    no history: 0.02 s of CPU)."""
    env = environment()
    for name in env.list_templates(filter_func=lambda n: not n.startswith(("static/", "ci_")) and n.endswith((".html", ".svg", ".md"))):
        if name == HISTORY_TEMPLATE and not history:
            continue
        if not kernel_only or name in KERNEL_TEMPLATES or name.startswith("panels/"):
            env.get_template(name)


class _HandedCache(jinja2.BytecodeCache):
    """Compiled templates in memory, by cache key: filled by the process that compiles them, read by
    the one they are handed to (``CompiledAhead``). Jinja checks each entry against its template's
    source, so an edited template compiles again."""

    def __init__(self, code: dict[str, bytes]) -> None:
        self.code = code

    def load_bytecode(self, bucket) -> None:
        data = self.code.get(bucket.key)
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


def _compiled_code(history: bool) -> dict[str, bytes]:
    """Every template (``compile_templates``) compiled in this process, as bytecode by cache key."""
    env = environment()
    env.bytecode_cache = cache = _HandedCache({})
    compile_templates(history=history)
    return cache.code


def _converted_docs() -> dict[str, tuple[str, str]]:
    """The reference docs converted to HTML in this process: name -> (Markdown, HTML)."""
    return {name: (text, render_markdown(text)) for name, text in reference_texts().items()}


#: The reference docs a ``CompiledAhead`` converted (name -> (Markdown, HTML)), each taken once; while that
#: process still converts them, the future of them waits in ``_DOCS_PENDING``.
_DOCS_AHEAD: dict[str, tuple[str, str]] = {}
_DOCS_PENDING: list = []


def reference_html(name: str, text: str) -> str:
    """``render_markdown`` of the reference doc ``name``, as converted ahead when it was (same text)."""
    while _DOCS_PENDING:
        try:
            _DOCS_AHEAD.update(_DOCS_PENDING.pop().result())
        except Exception:  # noqa: BLE001  (converted here instead)
            pass
    ahead = _DOCS_AHEAD.pop(name, None)
    return ahead[1] if ahead is not None and ahead[0] == text else render_markdown(text)


class CompiledAhead:
    """A forked process that works for a cold build while it imports and plans on one core (the plan reads
    every campaign; the second core sat idle), in this order: the tool's own facts (``ToolFacts``: assets and
    fingerprints, taken by the plan, ``facts``), every template compiled (handed over as bytecode, ``install``:
    the workers wait for these only), then the reference docs converted to HTML (taken when their pages are
    rendered, ``reference_html``). ``kernel-atlas build`` starts it before it imports the build. Issue 41:
    on the 25-kernel benchmark sweep the workers started 0.18 s sooner (from the plan's end to the first
    kernel: 0.22 s, then 0.04-0.05 s), the overview's templates (about 0.1 s of CPU) became a load, and the
    docs' Markdown (about 0.08 s of CPU with its import) left the workers' cores; on the shared sweep, the
    facts (about 0.02 s) left the plan's core, and the docs (0.07-0.09 s) come after the templates.

    ``start`` returns None where it would not help: a serial build, a start method other than
    fork, or compiled templates kept on disk (``template_cache``)."""

    def __init__(self, history: bool = True) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
        self._facts = self._pool.submit(_facts_apart)
        self._code = self._pool.submit(_compiled_code, history)
        self._docs = self._pool.submit(_converted_docs)

    @classmethod
    def start(cls, jobs: int | None, history: bool = True) -> "CompiledAhead | None":
        """(``history``: a build that keeps a history, whose page's template is compiled too.)"""
        import multiprocessing

        if (jobs or os.cpu_count() or 1) < 2 or multiprocessing.get_start_method() != "fork" or template_cache():
            return None
        return cls(history)

    def facts(self) -> ToolFacts | None:
        """The tool's facts that process read first (None if it failed: the plan reads them itself)."""
        try:
            return self._facts.result()
        except Exception:  # noqa: BLE001
            return None

    def install(self) -> None:
        """Wait for the compiled templates and let this process's environment load them, the docs to be
        taken when converted; if the other process failed, this one compiles and converts them itself (and
        says any error in a template)."""
        _DOCS_AHEAD.clear()
        _DOCS_PENDING.clear()
        try:
            code = self._code.result()
        except Exception:  # noqa: BLE001  (compiled here instead, where a template's own error is raised)
            self.close()
            return
        environment().bytecode_cache = _HandedCache(code)
        _DOCS_PENDING.append(self._docs)

    def close(self) -> None:
        """Let the other process go once it is done, and any docs it converted that no page took."""
        self._pool.shutdown()
        if self._docs in _DOCS_PENDING:
            _DOCS_PENDING.remove(self._docs)


def render_template(name: str, **context: Any) -> bytes:
    """Render one template to UTF-8 bytes."""
    return environment().get_template(name).render(**context).encode("utf-8")


def _linked(html: bytes, root: str) -> bytes:
    """``terms.link_terms``, its module imported on first use: ``kernel-atlas build`` imports this module
    to start ``CompiledAhead`` before it imports anything else, and the glossary's terms bring in the
    verdict rules (0.06 s)."""
    from generator.site import terms

    return terms.link_terms(html, root)


def render_overview(page: Any, assets: Assets, deferred: Any = None) -> bytes:
    """``index.html``, its terms linked to the glossary; with a ``site.deferred.Deferred`` that is
    active, its parts beyond the first page are left in ``deferred`` for ``index-data.js``."""
    if deferred is None:
        from generator.site.deferred import Deferred  # the one-file overview

        deferred = Deferred(active=False)
    deferred.row = environment().get_template("kernel_row.html").module.kernel_row
    return _linked(render_template("index.html", page=page, assets=assets, deferred=deferred), page.root)


def render_kernel(page: Any, assets: Assets) -> bytes:
    """``kernels/<slug>/index.html``, its terms linked to the glossary."""
    return _linked(render_template("kernel.html", page=page, assets=assets), page.root)


def render_history(page: Any, assets: Assets) -> bytes:
    """``history.html``, its terms linked to the glossary."""
    return _linked(render_template(HISTORY_TEMPLATE, page=page, assets=assets), page.root)


def render_glossary(page: Any, assets: Assets) -> bytes:
    """``glossary.html``."""
    return render_template("glossary.html", page=page, assets=assets)


def render_doc(page: Any, assets: Assets) -> bytes:
    """``docs/<name>.html``."""
    return render_template("docs.html", page=page, assets=assets)


def reference_texts() -> dict[str, str]:
    """The reference files by name (``docs/<name>.md``), empty when the tool has none."""
    if not DOCS.is_dir():
        return {}
    return {p.stem: read_report(p) for p in sorted(DOCS.glob("*.md"))}


def render_findings(page: Any, assets: Assets) -> bytes:
    """``findings.html``."""
    return render_template("findings.html", page=page, assets=assets)


def render_badge(badge: Any) -> bytes:
    """``badges/<slug>.svg``."""
    return render_template("badge.svg", badge=badge)


def render_pr(pr: Any) -> bytes:
    """``pr/<slug>.md`` (Markdown: no HTML escaping; values are made inert in the view)."""
    return render_template("pr.md", pr=pr)


# ---------------------------------------------------------------- REPORT.md

def render_markdown(text: str, top: int | None = None) -> str:
    """REPORT.md as HTML: tables and fenced code, raw HTML shown as text, unsafe links removed
    (``report_md``, imported on first use: only bundles with a REPORT.md need Markdown); headings
    demoted to start at ``h<top>`` when given (a report inside a page's section)."""
    from generator.site import report_md

    return clean_html(report_md.to_html(text, top))


# What rendered REPORT.md may hold after Markdown (everything else is dropped by nh3, an
# allowlist sanitizer, as a second line of defence behind _NoRawHtml/_SafeTree):
# the tags Markdown's core, tables, fenced_code, sane_lists and toc produce, and the
# attributes _SafeTree leaves. No <img>: _SafeTree turns an image into a link to its
# http(s) address or its alt text (the site loads nothing from elsewhere), so an <img>
# reaching nh3 is dropped. Links keep only http, https and mailto (and relative "#" ids).
REPORT_TAGS = frozenset({
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote",
    "ul", "ol", "li", "dl", "dt", "dd", "em", "strong", "b", "i", "code", "pre",
    "table", "thead", "tbody", "tr", "th", "td", "a", "span", "div",
})
REPORT_ATTRIBUTES = {
    **{h: {"id"} for h in ("h1", "h2", "h3", "h4", "h5", "h6")},
    "a": {"href", "rel", "title"},
    "span": {"class", "title"},
    "code": {"class"},
    "div": {"class"},
    "ol": {"start"},
}
REPORT_URL_SCHEMES = frozenset({"http", "https", "mailto"})


def clean_html(html: str) -> str:
    """``html`` with only the REPORT_TAGS / REPORT_ATTRIBUTES allowlist left (nh3)."""
    import nh3  # on first use, as Markdown

    return nh3.clean(html, tags=set(REPORT_TAGS), attributes={k: set(v) for k, v in REPORT_ATTRIBUTES.items()},
                     url_schemes=set(REPORT_URL_SCHEMES), link_rel=None, strip_comments=True)


def read_report(path: str | os.PathLike) -> str:
    """The text of a REPORT.md (undecodable bytes replaced)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()
