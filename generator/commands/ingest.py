"""``kernel-atlas ingest RAW_DIR --into SWEEP --kernel NAME``: a raw rocprofv3 run into a bundle."""

from __future__ import annotations

from generator.capture import ingest

NAME = "ingest"
HELP = ("Put a raw rocprofv3 ATT output folder into a sweep as a bundle "
        "(keeps captures with waves, checks source mapping, writes provenance).")
ORDER = 75


def add_arguments(p) -> None:
    """RAW_DIR, the sweep, the bundle name, the label and an optional capture suffix."""
    p.add_argument("raw_dir", metavar="RAW_DIR",
                   help="rocprofv3 output folder (ui_output_agent_* folders, out_*/discover_* files, input YAML)")
    p.add_argument("--into", metavar="SWEEP",
                   help="sweep root; the bundle goes to SWEEP/examples/NAME/ (created when absent; "
                        "default: the sweep the current folder is, or is inside)")
    p.add_argument("--kernel", required=True, metavar="NAME",
                   help="bundle name, e.g. flash_attn_func (not the JIT name)")
    p.add_argument("--label", metavar="LABEL",
                   help=f"capture label, e.g. small or big (default: the label in RAW_DIR/run.json, "
                        f"written by capture, else {ingest.DEFAULT_LABEL})")
    p.add_argument("--suffix", metavar="SUFFIX",
                   help="append _SUFFIX to the capture folder names, e.g. after_fix for a re-capture")


def run(args) -> int:
    """Ingest and print what was kept, written and found wrong; 1 when nothing was usable."""
    report = ingest.ingest(args.raw_dir, ingest.sweep_into(args.into), args.kernel, args.label, args.suffix)
    print(report.render(), end="")
    return 0 if report.kept else 1
