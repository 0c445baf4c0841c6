"""Command line: ``kernel-atlas <command>``; commands register themselves.

Each module in ``generator/commands/`` defines ``NAME``, ``HELP``, ``ORDER``,
``add_arguments(parser)`` and ``run(args) -> int`` (and optionally ``PARSER``, keyword
arguments of its parser, e.g. ``{"add_help": False}`` for a command printing its own help). The CLI imports them all, so a
new command is a new file, never an edit here.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from generator import __version__, commands
from generator.errors import InputError


def load_commands() -> list:
    """Import every command module, ordered by ORDER then NAME."""
    mods = []
    for info in pkgutil.iter_modules(commands.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(mod, "NAME") and hasattr(mod, "run"):
            mods.append(mod)
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 100), m.NAME))


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="kernel-atlas",
        description="Turn a GPU kernel profiling sweep into a static, browsable website.",
    )
    parser.add_argument("--version", action="version", version=f"kernel-atlas {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in load_commands():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP, **getattr(mod, "PARSER", {}))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; bad input becomes one line on stderr and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except InputError as err:
        print(f"kernel-atlas: error: {err.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kernel-atlas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
