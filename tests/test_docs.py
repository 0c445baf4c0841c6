"""The README is a front door and the reference lives in docs/ (issue 34): the README stays short, keeps
its two set-up commands where .ci/run reads them, links only files that exist; every docs/*.md is a page
of the site, listed by the glossary."""

from __future__ import annotations

import re
from pathlib import Path

from test_render import built_site  # noqa: F401  (fixture of the same folder)

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"


def setup_commands(text: str) -> list[str]:
    """The non-empty lines of the ```sh blocks of the "Set up on a fresh machine" section (as .ci/run reads them)."""
    out, section, block = [], False, False
    for line in text.splitlines():
        if line.startswith("## "):
            section = line.startswith("## Set up on a fresh machine")
        elif section and line.startswith("```sh"):
            block = True
        elif block and line.startswith("```"):
            block = False
        elif block and line.strip():
            out.append(line)
    return out


def test_the_readme_is_short_and_keeps_its_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert setup_commands(text) == ["python3 -m pip install -e . && kernel-atlas build",
                                    "python3 -m pip install -e '.[test]' && python3 -m pytest -q"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "## Set up on a fresh machine" in ci and "-ne 2" in ci  # the section .ci/run runs, two commands


def test_every_file_the_readme_links_exists_and_the_picture_is_a_png():
    text = README.read_text(encoding="utf-8")
    targets = set(re.findall(r"\]\(([^)#]+)\)", text))
    assert {"docs/overview.png", "docs/configuration.md", "docs/sweep-layout.md"} <= targets
    for t in targets:
        assert (REPO / t).is_file(), t
    assert (DOCS / "overview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (DOCS / "make_screenshot.py").is_file()


def test_every_reference_file_is_a_page_of_the_site_listed_by_the_glossary(built_site):  # noqa: F811
    names = sorted(p.stem for p in DOCS.glob("*.md"))
    assert {"commands", "configuration", "sweep-layout", "website"} <= set(names)
    glossary = (built_site / "glossary.html").read_text(encoding="utf-8")
    for name in names:
        page = (built_site / "docs" / f"{name}.html").read_text(encoding="utf-8")
        title = re.search(r"^#\s+(.+)$", (DOCS / f"{name}.md").read_text(encoding="utf-8"), re.M)[1].replace("`", "")
        assert f'<a href="docs/{name}.html" translate="no">{title}</a>' in glossary, name
        assert '<div class="report markdown" translate="no">' in page and 'href="../glossary.html"' in page, name
    # the configuration reference as Markdown renders it: its TOML example a code block, its keys kept
    conf = (built_site / "docs" / "configuration.html").read_text(encoding="utf-8")
    assert "<pre><code" in conf and "[severity]" in conf and "headroom = 0.95" in conf
