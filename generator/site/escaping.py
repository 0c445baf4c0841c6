"""HTML escaping of text, as markupsafe escapes it (``&<>'"``), handed back as plain ``str``.

``markupsafe.escape`` builds a ``Markup`` in Python around each result; the pages print about 0.2 million
values a cold build of the shared sweep (issue 41: 0.4 -> 0.07 us each with markupsafe's own C function).
"""

from __future__ import annotations


def escape_replacing(text: str) -> str:
    """``text`` escaped by five replacements (markupsafe's entities and order)."""
    return (text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
            .replace("'", "&#39;").replace('"', "&#34;"))


try:  # markupsafe's own C function for it, 3x faster than the replacements (0.07 against 0.19-0.30 us)
    from markupsafe._speedups import _escape_inner as escape_text
except ImportError:  # pragma: no cover - a markupsafe without its C speedups
    escape_text = escape_replacing
