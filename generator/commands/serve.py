"""``kernel-atlas serve [DIR] [--port N]``: serve a built site on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import os
import sys

from generator.errors import InputError

NAME = "serve"
HELP = "Serve a built site locally (http://127.0.0.1:PORT/) with Python's http.server."
ORDER = 90
EXPECTED = "expected the folder `kernel-atlas build --out DIR` wrote (build the site first)"


def add_arguments(p) -> None:
    """Folder and port."""
    p.add_argument("dir", nargs="?", default="site", help="the built site (default: site/)")
    p.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)")


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, with the JSON and SVG types browsers expect and quiet logs."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".json": "application/json", ".svg": "image/svg+xml", ".md": "text/markdown; charset=utf-8",
                      ".js": "text/javascript", ".css": "text/css"}

    def log_message(self, format, *args):
        sys.stderr.write("%s - %s\n" % (self.address_string(), format % args))


def make_server(folder: str, port: int) -> http.server.ThreadingHTTPServer:
    """An HTTP server for ``folder`` bound to 127.0.0.1 only."""
    handler = functools.partial(_Handler, directory=folder)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def check_site(path: str) -> None:
    """A built site, else one InputError naming the path and what was expected."""
    from generator.site.publish import MANIFEST

    if not os.path.exists(path):
        raise InputError(path, f"no such folder: {EXPECTED}")
    if not os.path.isdir(path):
        raise InputError(path, f"not a folder: {EXPECTED}")
    if not os.path.isfile(os.path.join(path, "index.html")) or not os.path.isfile(os.path.join(path, MANIFEST)):
        raise InputError(path, f"not a built site (no index.html and {MANIFEST}): {EXPECTED}")


def run(args) -> int:
    """Serve until interrupted."""
    check_site(args.dir)
    folder = os.path.abspath(args.dir)
    try:
        server = make_server(folder, args.port)
    except OSError as err:
        raise InputError(args.dir, f"cannot listen on 127.0.0.1:{args.port}: {err.strerror or err}") from None
    host, port = server.server_address[:2]
    print(f"kernel-atlas: serving {args.dir} at http://{host}:{port}/ (Ctrl-C stops)", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
