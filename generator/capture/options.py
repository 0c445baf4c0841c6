"""Arguments of ``kernel-atlas capture`` and their dispatch to the vendor's capture."""

from __future__ import annotations

import argparse
import importlib
import os
import sys


SPEC_SUFFIXES = (".py", ".yaml", ".yml", ".toml", ".json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``capture [SPEC] [--vendor {nvidia,amd}] [--dry-run] [--kernel REGEX] [--label LABEL]
    [--into SWEEP] [--raw-dir DIR] [cmd ...]``."""
    p.add_argument("spec", nargs="?", metavar="SPEC",
                   help="SPEC file: candidate and baseline callables and shapes (a Python file)")
    add_options(p)
    p.add_argument("cmd", nargs=argparse.REMAINDER,
                   help="(--vendor amd) the command to profile, after --")


def add_options(p: argparse.ArgumentParser) -> None:
    """The options (no positionals), also used to read options written after SPEC."""
    p.add_argument("--vendor", choices=("nvidia", "amd"), default="nvidia",
                   help="profiler to drive: nvidia (ncu, default) or amd (rocprofv3)")
    p.add_argument("--dry-run", action="store_true",
                   help="load the SPEC and print what would run, touching no GPU")
    p.add_argument("--kernel", metavar="REGEX",
                   help="kernel-name regex to profile (default: the SPEC's KERNEL_REGEX)")
    p.add_argument("--label", metavar="LABEL",
                   help="capture label, the folder under examples/<kernel>/ncu/ (default: the SPEC's LABEL)")
    p.add_argument("--into", metavar="SWEEP", default="bundles",
                   help="sweep folder to write examples/ and benchmarks/examples/ into (default: bundles)")
    p.add_argument("--raw-dir", metavar="DIR",
                   help="keep the raw profiler report and its log here (default: a temporary folder)")
    amd = p.add_argument_group("AMD (rocprofv3) options")
    amd.add_argument("--name", help="bundle name (default: derived from the JIT kernel name)")
    amd.add_argument("--suffix", help="capture suffix for a re-capture, e.g. after_fix")
    amd.add_argument("--iterations", default="[6, [8-8]]",
                     help="ATT kernel_iteration_range, skipping warm-up (default: [6, [8-8]])")
    amd.add_argument("--pmc", nargs="?", const="default", metavar="LIST",
                     help="also collect TCC counters (at most 4 per pass); 'default' or a comma list")
    amd.add_argument("--att-buffer-size", default="0x6000000", help="ATT buffer size (0x6000000)")
    amd.add_argument("--target-cu", type=int, default=1, help="ATT target CU (1)")
    amd.add_argument("--se-mask", default="0xf", help="ATT shader-engine mask (0xf)")
    amd.add_argument("--simd-select", default="0xf", help="ATT SIMD select (0xf)")


def looks_like_spec(word: str) -> bool:
    """True for an existing file or a name with a SPEC suffix (else it starts a command)."""
    return os.path.isfile(word) or word.endswith(SPEC_SUFFIXES)


def normalize(args: argparse.Namespace) -> argparse.Namespace:
    """Split what argparse.REMAINDER gathered into our options and the command to profile.

    ``capture spec.py --into x`` leaves ``--into x`` in ``cmd`` (REMAINDER takes all after
    the first positional): options up to a ``--`` are read back here, and what follows
    ``--`` is the command. A first word that is no SPEC starts the command
    (``capture --vendor amd -- rocprofv3 ... -- python app.py``).
    """
    cmd = list(args.cmd or [])
    if args.vendor == "amd" and args.spec is not None:
        # AMD capture takes no SPEC: argparse consumed the ``--``, and every positional
        # word is the command to profile (options came before it)
        args.cmd = [args.spec, *cmd]
        args.spec = None
        return args
    if args.spec is not None and not looks_like_spec(args.spec):
        args.cmd = [args.spec, *cmd]
        args.spec = None
        return args
    return _split_command(args)


def _split_command(args: argparse.Namespace) -> argparse.Namespace:
    """Read options written before ``--`` back from ``cmd``; the rest is the command."""
    cmd = list(args.cmd or [])
    if "--" in cmd:
        cut = cmd.index("--")
        head, tail = cmd[:cut], cmd[cut + 1:]
    else:
        head, tail = cmd, []
    if head:
        opts = argparse.ArgumentParser(prog="kernel-atlas capture", add_help=False)
        add_options(opts)
        opts.parse_args(head, namespace=args)
    args.cmd = tail
    return args


def load_amd():
    """``generator.capture.amd``, imported on first use (None when it does not exist)."""
    try:
        return importlib.import_module("generator.capture.amd")
    except ModuleNotFoundError as err:
        if err.name != "generator.capture.amd":
            raise
        return None


def run(args: argparse.Namespace) -> int:
    """Dispatch to the vendor's capture."""
    args = normalize(args)
    if args.vendor == "amd":
        mod = load_amd()
        if mod is None:
            print("kernel-atlas: error: AMD capture is not available yet", file=sys.stderr)
            return 2
        return int(mod.main(args) or 0)
    from generator.capture import nvidia

    return nvidia.capture(args)
