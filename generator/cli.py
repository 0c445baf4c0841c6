"""Command line: ``kernel-atlas <command>``; commands register themselves.

Each module in ``generator/commands/`` defines ``NAME``, ``HELP``, ``ORDER``,
``add_arguments(parser)`` and ``run(args) -> int`` (and optionally ``PARSER``, keyword
arguments of its parser, e.g. ``{"add_help": False}`` for a command printing its own help). The CLI
imports them all, so a new command is a new file, never an edit here; a command line that names one
(the module's file name is its NAME) imports only that one, so ``kernel-atlas build`` never pays for
the imports of ``diff`` or ``ingest``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import pkgutil
import sys

from generator import __version__, commands
from generator.errors import InputError


def load_commands(only: str | None = None) -> list:
    """Import every command module (or only the one named ``only``, when there is one), ordered
    by ORDER then NAME."""
    names = [i.name for i in pkgutil.iter_modules(commands.__path__) if not i.name.startswith("_")]
    if only in names:
        mod = importlib.import_module(f"{commands.__name__}.{only}")
        if getattr(mod, "NAME", None) == only and hasattr(mod, "run"):
            return [mod]
    mods = []
    for name in names:
        mod = importlib.import_module(f"{commands.__name__}.{name}")
        if hasattr(mod, "NAME") and hasattr(mod, "run"):
            mods.append(mod)
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 100), m.NAME))


def named_command(argv: list[str]) -> str | None:
    """The command a command line names: its first word that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser with one subparser per command (or only the command ``only``)."""
    parser = argparse.ArgumentParser(
        prog="kernel-atlas",
        description="Turn a GPU kernel profiling sweep into a static, browsable website.",
    )
    parser.add_argument("--version", action="version", version=f"kernel-atlas {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in load_commands(only):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP, **getattr(mod, "PARSER", {}))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def run(argv: list[str] | None = None) -> int:
    """The console script and ``python -m generator``: :func:`main` in a process that ends right after.
    Its heap is left out of the interpreter's last garbage collection (``gc.freeze``), which otherwise
    walks every object a build leaves. Issue 41: 0.056 s -> 0.012 s from a cold build's return to its
    process's end on the 25-kernel benchmark sweep (medians of 5)."""
    code = main(argv)
    gc.freeze()
    return code


def main(argv: list[str] | None = None) -> int:
    """Run one command; bad input becomes one line on stderr and exit status 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(named_command(argv))
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
