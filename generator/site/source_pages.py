"""Write each capture's source pages and ISA page (``views.source`` names and builds them).

The kernel page links into these pages; they are part of the kernel's files in the
manifest, so an unchanged kernel keeps them and a removed kernel loses them.
"""

from __future__ import annotations

from generator.site import render
from generator.site.views.base import KernelData, SiteContext
from generator.site.views.source import capture_pages

TEMPLATES = {"source": "source.html", "isa": "isa.html"}


def kernel_source_files(k: KernelData, ctx: SiteContext, assets: render.Assets) -> dict[str, bytes]:
    """``kernels/<slug>/src/<capture>/<file>.html`` and ``.../isa.html`` of every analyzed capture."""
    out: dict[str, bytes] = {}
    for ci, c in enumerate(k.captures):
        title = c.name if not c.label or c.label == c.name else f"{c.label} \u00b7 {c.name}"
        for page in capture_pages(ci, c, k, ctx, title):
            out[f"kernels/{k.slug}/{page.rel}"] = render.render_template(TEMPLATES[page.kind], page=page, assets=assets)
    return out
