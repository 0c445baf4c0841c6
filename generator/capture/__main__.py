"""``python -m generator.capture``: the capture without the full CLI, and the ncu child process."""

from __future__ import annotations

import argparse
import sys

from generator.capture import nvidia_profile
from generator.errors import InputError


def _child_main(argv: list[str]) -> int:
    """``python -m generator.capture profile-child SPEC --shapes a,b``."""
    p = argparse.ArgumentParser(prog="generator.capture profile-child")
    p.add_argument("spec")
    p.add_argument("--shapes", required=True)
    a = p.parse_args(argv)
    return nvidia_profile.profile_child(a.spec, [s for s in a.shapes.split(",") if s])


def _trace_child_main(argv: list[str]) -> int:
    """``python -m generator.capture trace-child SPEC --shapes a,b --out FILE``."""
    from generator.capture import nvidia_launch

    p = argparse.ArgumentParser(prog="generator.capture trace-child")
    p.add_argument("spec")
    p.add_argument("--shapes", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    return nvidia_launch.trace_child(a.spec, [s for s in a.shapes.split(",") if s], a.out)


def main(argv: list[str] | None = None) -> int:
    """Entry without the full CLI: ``python -m generator.capture capture SPEC ...``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["profile-child"]:
        return _child_main(argv[1:])
    if argv[:1] == ["trace-child"]:
        return _trace_child_main(argv[1:])
    if argv[:1] == ["capture"]:
        argv = argv[1:]
    from generator.capture import options as command

    p = argparse.ArgumentParser(prog="python -m generator.capture capture", add_help=False)
    command.add_arguments(p)
    args = p.parse_args(argv)
    try:
        return command.run(args)
    except InputError as err:
        print(f"kernel-atlas: error: {err.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
