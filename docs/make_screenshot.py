"""Make docs/overview.png, the README's picture: the demo site (``bundles/``) built into a temporary
folder and its overview's first screen taken by headless Chromium (Debian's ``/usr/bin/chromium``
through playwright), 1280 x 800, light theme, English.

    python3 docs/make_screenshot.py [--out docs/overview.png] [--sweep bundles]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1280, "height": 800}


def shoot(site: Path, out: Path) -> None:
    """The first screen of ``site``'s overview into ``out`` (PNG)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport=VIEWPORT, color_scheme="light")
        page.goto((site / "index.html").as_uri() + "?lang=en&theme=light")
        page.wait_for_load_state("load")
        page.screenshot(path=str(out))
        browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "overview.png")
    ap.add_argument("--sweep", type=Path, default=REPO / "bundles")
    args = ap.parse_args(argv)
    from generator.site import build

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build.build_site(args.sweep, site, progress=False)
        shoot(site, args.out)
    print(f"{args.out}: {args.out.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
