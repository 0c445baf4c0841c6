"""HTML escaping of text, as markupsafe escapes it (``&<>'"``), handed back as plain ``str``.

``markupsafe.escape`` builds a ``Markup`` in Python around each result; a cold build of the shared sweep
prints about 0.2 million values (``render._Template``, the source pages' rows and ``wording.html``, through ``escaped``).
"""

from __future__ import annotations

from markupsafe import escape


def escape_text(text: str) -> str:
    """``text`` escaped by five replacements, markupsafe's entities in its order (a test compares them)."""
    return (text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
            .replace("'", "&#39;").replace('"', "&#34;"))


def escaped(value: object) -> str:
    """``value`` as Jinja's autoescape writes it, as plain ``str``: text by ``escape_text``, without making a
    ``Markup`` of each of the ISA listings' ~130,000 cells; anything else (markup, a number) by ``escape``.
    Measured by ``benchmarks/bench_tricks.py`` against ``escape`` for every cell of the source pages: 6.8 % of a
    cold build's CPU time (medians of 11 rounds, 1.371 s vs 1.278 s; 4.4 % in a run of 5 rounds)."""
    if type(value) is str:
        return escape_text(value)
    return str(escape(value))
