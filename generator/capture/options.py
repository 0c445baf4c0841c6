"""Arguments of ``kernel-atlas capture`` and their dispatch to the vendor's capture.

``capture [nvidia] SPEC [options]`` (NVIDIA, the default) and ``capture amd [options] -- CMD``
(or ``--vendor amd``). ``capture --help`` lists both briefly; ``capture nvidia --help`` and
``capture amd --help`` describe only that vendor's options and the folders it writes.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from generator.words import deprecated

SPEC_SUFFIXES = (".py", ".yaml", ".yml", ".toml", ".json")
VENDORS = ("nvidia", "amd")
DEFAULT_VENDOR = "nvidia"

USAGE = "%(prog)s [nvidia] SPEC [options]\n       %(prog)s amd [options] -- CMD..."

OVERVIEW = """\
Check, time and profile a kernel into a sweep folder (SWEEP, below).

  nvidia (default)  SPEC is a Python file naming the candidate, the baselines and the shapes;
                    needs a CUDA GPU, PyTorch and Nsight Compute (ncu). Writes
                    SWEEP/examples/<KERNEL>/ncu/<LABEL>/ and SWEEP/benchmarks/examples/<OP>/.
  amd               CMD (after --) is the program to profile; needs rocprofv3. Writes
                    SWEEP/examples/<NAME>/att_viewer/<LABEL>/ through `kernel-atlas ingest`.

--into SWEEP defaults to the sweep the current folder is, or is inside (a folder holding
kernel-atlas.toml, examples/<kernel>/ or benchmarks/examples/); elsewhere it is required.

Options of each: `{prog} nvidia --help`, `{prog} amd --help`.
"""

NVIDIA_HELP = """\
Check every provider of the SPEC against its fp32 reference, time each shape (CUDA events
and CUDA-graph replays, L2 flushed), profile the candidate's PROFILE shapes with Nsight
Compute and write, under SWEEP:

  examples/<KERNEL>/ncu/<LABEL>/     source_sass.csv, source_cuda_sass.csv, details.csv,
                                     raw.csv, provenance.json
  examples/<KERNEL>/source/          the SPEC and its SOURCES
  benchmarks/examples/<OP>/          benchmark_results.csv|jsonl, shape_ledger.jsonl,
                                     baseline_matrix.yaml
  kernel-atlas.toml                  only when absent

The SPEC format: generator/capture/nvidia_spec.py. Needs a CUDA GPU, PyTorch and ncu;
--dry-run prints the plan on any machine.
"""

AMD_HELP = """\
Run CMD under rocprofv3 three times over: discover the kernels (a table to pick from),
trace the chosen one with ATT (debug info on, a fresh JIT cache), then ingest the raw
output into SWEEP:

  examples/<NAME>/att_viewer/<LABEL>/ui_output_agent_<PID>_dispatch_<N>[_<SUFFIX>]/
  examples/<NAME>/compute_viewer/    discover_*.csv, <LABEL>_agent_info.csv, <LABEL>_results.json
  examples/<NAME>/pmc/<LABEL>/       counters, with --pmc
  examples/<NAME>/source/            input_trace.yaml, provenance.json

Without rocprofv3 on PATH, or with --dry-run, the steps are printed as a shell script.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Every option of both vendors (each vendor's help lists only its own)."""
    p.usage = USAGE
    p.set_defaults(_prog=p.prog)
    p.add_argument("spec", nargs="?", metavar="SPEC", help=argparse.SUPPRESS)
    add_options(p)
    p.add_argument("cmd", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def add_options(p: argparse.ArgumentParser) -> None:
    """The options (no positionals), also used to read options written after SPEC."""
    p.add_argument("-h", "--help", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--vendor", choices=VENDORS, help=argparse.SUPPRESS)
    _common_options(p, None)
    _amd_options(p)


def _common_options(p: argparse.ArgumentParser, vendor: str | None) -> None:
    """Options both vendors take; their help says what they mean for ``vendor``."""
    nv = vendor == "nvidia"
    p.add_argument("--dry-run", action="store_true",
                   help="load the SPEC and print the plan, touching no GPU" if nv else
                   "print the three steps as a shell script, running nothing")
    p.add_argument("--kernel-regex", dest="kernel", metavar="REGEX",
                   help="ncu -k regex: the kernels to profile (default: the SPEC's KERNEL_REGEX)" if nv else
                   "pick the kernel to trace from the discovery table (the hottest match; default: ask)")
    p.add_argument("--label", metavar="LABEL",
                   help="capture label, the folder examples/<KERNEL>/ncu/LABEL/ (default: the SPEC's LABEL)" if nv
                   else "capture label, the folder examples/<NAME>/att_viewer/LABEL/ (default: big)")
    p.add_argument("--into", metavar="SWEEP",
                   help="sweep folder written into (default: the sweep the current folder is, or is inside)")
    p.add_argument("--raw-dir", metavar="DIR",
                   help="keep the raw ncu report and its log here (default: a temporary folder)" if nv else
                   "rocprofv3 output folder (default: kernel-atlas-raw/LABEL)")
    if vendor != "amd":
        p.add_argument("--launch-only", action="store_true",
                       help="only measure the launch path with the PyTorch profiler into examples/<KERNEL>/launch/"
                            "LABEL.trace.json, leaving the timings and the ncu capture as they are"
                       if nv else argparse.SUPPRESS)
    if vendor is None:
        p.add_argument("--kernel", dest="kernel", action=deprecated("--kernel-regex"), help=argparse.SUPPRESS)


def _amd_options(p: argparse.ArgumentParser) -> None:
    """Options of the AMD (rocprofv3) capture only."""
    p.add_argument("--name", help="bundle name, examples/NAME/ (default: derived from the JIT kernel name)")
    p.add_argument("--suffix", help="capture suffix for a re-capture, e.g. after_fix")
    p.add_argument("--iterations", default="[6, [8-8]]",
                   help="ATT kernel_iteration_range, skipping warm-up (default: [6, [8-8]])")
    p.add_argument("--pmc", nargs="?", const="default", metavar="LIST",
                   help="also collect TCC counters (at most 4 per pass); 'default' or a comma list")
    p.add_argument("--att-buffer-size", default="0x6000000", help="ATT buffer size (0x6000000)")
    p.add_argument("--target-cu", type=int, default=1, help="ATT target CU (1)")
    p.add_argument("--se-mask", default="0xf", help="ATT shader-engine mask (0xf)")
    p.add_argument("--simd-select", default="0xf", help="ATT SIMD select (0xf)")


def vendor_parser(vendor: str, prog: str) -> argparse.ArgumentParser:
    """A parser holding only ``vendor``'s arguments, for its ``--help``."""
    nv = vendor == "nvidia"
    p = argparse.ArgumentParser(prog=f"{prog} {vendor}", formatter_class=argparse.RawDescriptionHelpFormatter,
                                description=NVIDIA_HELP if nv else AMD_HELP)
    if nv:
        p.add_argument("spec", metavar="SPEC", help="SPEC file: candidate and baseline callables and shapes")
    _common_options(p, vendor)
    if not nv:
        _amd_options(p)
        p.add_argument("cmd", nargs="*", metavar="-- CMD", help="the command to profile, after --")
    return p


def help_text(vendor: str | None, prog: str) -> str:
    """``capture --help`` (both vendors, briefly) or one vendor's full help."""
    if vendor is None:
        return f"usage: {USAGE % {'prog': prog}}\n\n{OVERVIEW.format(prog=prog)}"
    return vendor_parser(vendor, prog).format_help()


def looks_like_spec(word: str) -> bool:
    """True for an existing file or a name with a SPEC suffix (else it starts a command)."""
    return os.path.isfile(word) or word.endswith(SPEC_SUFFIXES)


def normalize(args: argparse.Namespace) -> argparse.Namespace:
    """Split what argparse.REMAINDER gathered into our options and the command to profile.

    ``capture spec.py --into x`` leaves ``--into x`` in ``cmd`` (REMAINDER takes all after
    the first positional): options up to a ``--`` are read back here, and what follows
    ``--`` is the command. A first word ``nvidia`` or ``amd`` names the vendor; a first
    word that is no SPEC starts the command (``capture --vendor amd -- python app.py``).
    The vendor left unnamed is NVIDIA.
    """
    if args.vendor is None and args.spec in VENDORS:
        args.vendor, args.spec = args.spec, None
        args._vendor_named = True
        args = _after_vendor_word(args)
    else:
        args._vendor_named = args.vendor is not None
        args = _split_spec(args)
    args.vendor = args.vendor or DEFAULT_VENDOR
    return args


def _after_vendor_word(args: argparse.Namespace) -> argparse.Namespace:
    """``capture amd ...`` / ``capture nvidia ...``: argparse gave every later word to ``cmd``,
    except a ``--`` right after the vendor word (it swallows that one): a first word that is
    no option then starts the command (AMD) or is the SPEC (NVIDIA)."""
    cmd = list(args.cmd or [])
    if "--" in cmd or not cmd or cmd[0].startswith("-"):
        return _split_command(args)
    args.spec, args.cmd = cmd[0], cmd[1:]
    return _split_spec(args)


def _split_spec(args: argparse.Namespace) -> argparse.Namespace:
    """The first positional word: the SPEC, or (AMD, or no SPEC) the command's first word."""
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
    """Read options written before ``--`` back from ``cmd``; the rest is the command.

    After a vendor word, the first plain word before ``--`` is the SPEC (NVIDIA).
    """
    cmd = list(args.cmd or [])
    if "--" in cmd:
        cut = cmd.index("--")
        head, tail = cmd[:cut], cmd[cut + 1:]
    else:
        head, tail = cmd, []
    if head:
        opts = argparse.ArgumentParser(prog=f"{getattr(args, '_prog', 'kernel-atlas capture')} {args.vendor or ''}"
                                       .rstrip(), add_help=False)
        add_options(opts)
        if args.spec is None and args.vendor != "amd":
            opts.add_argument("spec", nargs="?", metavar="SPEC")
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
    """Print the help asked for, or dispatch to the vendor's capture."""
    args = normalize(args)
    if args.help:
        prog = getattr(args, "_prog", "kernel-atlas capture")
        sys.stdout.write(help_text(args.vendor if args._vendor_named else None, prog))
        return 0
    if args.vendor == "amd":
        mod = load_amd()
        if mod is None:
            print("kernel-atlas: error: AMD capture is not available yet", file=sys.stderr)
            return 2
        return int(mod.main(args) or 0)
    from generator.capture import nvidia

    return nvidia.capture(args)
