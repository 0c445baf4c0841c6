"""The glossary page (``glossary.html`` at the site root, issue 23, 4): the words the pages use that
a newcomer does not know, each an entry ``glossary.html#<id>`` with its definition in both languages
(catalogue keys ``glossary.<id>`` and ``glossary.<id>.def``).

``TERMS`` is the one list: the page shows it in this order, and ``generator.site.terms`` links each
term's first use on a page to its entry by the forms listed here (English: lower-case words,
matched whole in any case, a plural "s" too; 中文: the words the catalogue's translations use, for
``site.js`` to link again after the language switch).
"""

from __future__ import annotations

from dataclasses import field

from generator.model import record
from generator.site import i18n
from generator.site.views.base import SiteContext


@record(frozen=True)
class Term:
    """One glossary entry: its anchor, and the forms its uses take on the pages."""

    id: str
    en: tuple[str, ...]  # lower-case words, matched whole (a plural "s" too) in any case
    zh: tuple[str, ...] = ()
    not_after: str = ""  # a use right after these words means something else ("compiled variants")

    @property
    def key(self) -> str:
        return f"glossary.{self.id}"

    @property
    def def_key(self) -> str:
        return f"glossary.{self.id}.def"


#: The entries, in the page's order (the ones issue 23 names first, then the words around them).
TERMS = (
    Term("ledger", ("shape ledger", "ledger"), ("形状台账", "台账", "清单")),
    Term("headline-pair", ("headline pair",), ("代表性对比",)),
    Term("harness-failure", ("harness failure",), ("测试框架失败",)),
    Term("suspect-reference", ("suspect reference check", "suspect reference"), ("可疑的参考校验", "可疑的正确性检查")),
    Term("working-waves", ("working wave",), ("干活的 wave", "工作中的 wave")),
    Term("roof", ("hbm roof", "roofline", "roof"), ("屋顶线",)),
    Term("headroom", ("headroom",), ("可提升空间",)),
    Term("timing-floor", ("timing floor", "at the floor"), ("计时下限",)),
    Term("verdict-basis", ("verdict basis",), ("判定依据",)),
    Term("variant", ("variant",), ("变体实现", "变体"), not_after="compiled "),
    Term("unverified", ("unverified",), ("未校验",)),
    Term("geomean", ("geomean",), ("几何平均",)),
    Term("hard-failure", ("hard failure",), ("硬失败",)),
    Term("like-for-like", ("like-for-like",), ("同口径",)),
    Term("kernel-clock", ("kernel clock",), ("内核时钟",)),
    Term("call-clock", ("call clock", "call time"), ("调用时钟", "调用时间")),
    Term("launch-overhead", ("launch overhead",), ("启动开销",)),
    Term("interval", ("shapes interval",), ("形状区间",)),
)


@record
class GlossaryEntry:
    """One term as the page shows it (English; the 中文 by its keys)."""

    id: str
    key: str
    def_key: str
    term: str
    definition: str


@record
class GlossaryPage:
    """``glossary.html``."""

    title: str
    site_title: str
    root: str
    entries: list[GlossaryEntry]
    history_nav: bool = False
    docs: list = field(default_factory=list)  # views.docs.DocLink: the reference pages (issue 34)


def glossary_page(ctx: SiteContext) -> GlossaryPage:
    """The glossary of a site."""
    entries = [GlossaryEntry(t.id, t.key, t.def_key, i18n.en(t.key), i18n.en(t.def_key)) for t in TERMS]
    return GlossaryPage(title=i18n.en("glossary.title"), site_title=ctx.title, root="", entries=entries,
                        history_nav=ctx.history)
