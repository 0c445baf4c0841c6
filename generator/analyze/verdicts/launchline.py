"""The launcher said as its reading allows (VERDICTS rule 13, ``clocks.launch_reading``): one place for the
verdict line, the kernel page's launcher line, the CLI's cell and the overview's number.

* ``launch``: at least the call gap (a lower bound: the harness's L2 flush hides part of the host path);
  where the fastest baseline's call times other work too, said beside it;
* ``kernel``: most of the call gap is on the kernel clock, so it is not called launch overhead: the call gap
  and the launch path that is left of it (fp8_gemm_rowscale: +9.4 us, launch path +1.7 us);
* ``small``: the measured call gap, nothing more (no "none" and no "no more than": a lower bound bounds
  nothing from above);
* ``scope``: a small gap against a baseline whose call times other work: nothing can be read from it.
"""

from __future__ import annotations

from typing import Any

import generator.analyze.verdicts.clocks as clk
from generator.analyze.message import Msg, msg

#: Message keys per reading, for the verdict line (``verdict``) and the page's launcher line (``head``).
_KEYS = {
    "verdict": {clk.READ_LAUNCH: "verdict.launch", "wider": "verdict.launch.wider", clk.READ_KERNEL: "verdict.launch.kernel",
                clk.READ_SMALL: "verdict.launch.small", clk.READ_SCOPE: "verdict.launch.scope"},
    "head": {clk.READ_LAUNCH: "head.launch.line", "wider": "head.launch.wider", clk.READ_KERNEL: "head.launch.kernel",
             clk.READ_SMALL: "head.launch.small", clk.READ_SCOPE: "head.launch.scope"},
}


def reading(s: Any) -> str | None:
    """The reading of a scored campaign's call gap (``clocks.launch_reading``)."""
    return clk.launch_reading(s.launch_overhead_us, getattr(s, "launch_path_us", None),
                              bool(getattr(s, "launch_scope_differs", False)))


def fastest_bases(shapes: Any) -> list[tuple[str, int]]:
    """(baseline, launch shapes) whose call is the fastest at each launch shape, most shapes first: the call gap
    is taken against the fastest at each shape (softmax: triton at 33 of its 50 launch shapes, pytorch at 17).
    [] for a score read back without its shapes (a snapshot)."""
    counts: dict[str, int] = {}
    for sh in shapes or ():
        if sh.launch_shape and sh.clocks.call_gap_us is not None:
            name = sh.clocks.best_call_baseline or "?"
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def launch_msg(s: Any, where: str = "verdict") -> Msg | None:
    """The launcher's words beside the verdict (``verdict``) or on the page's launcher line (``head``); where
    the fastest baseline differs between launch shapes, the gap is said against the fastest at each shape
    (gemm's small gap, +0.4 us: pytorch's call at one of its two launch shapes, hipblaslt's at the other)."""
    read = reading(s)
    if read is None:
        return None
    us, n = s.launch_overhead_us
    path = getattr(s, "launch_path_us", None)
    key = "wider" if read == clk.READ_LAUNCH and s.launch_scope_differs else read
    bases = fastest_bases(getattr(s, "shapes", None))
    return msg(_KEYS[where][key] + (".mixed" if len(bases) > 1 else ""), us=f"{us:+.1f}",
               baseline=bases[0][0] if len(bases) > 1 else s.launch_baseline or "?", n=n, k=bases[0][1] if bases else n,
               path=f"{path[0]:+.1f}" if path else "?")


def cell(s: Any) -> str:
    """The CLI's launch cell: ``≥+123.5 us vs aiter_triton``; ``+9.4 us vs pytorch (launch path +1.7)``;
    ``+0.4 us vs pytorch`` under 5 us; ``-99.2 us vs aiter (other scope)``; a dash where none was measured."""
    read = reading(s)
    if read is None:
        return "\u2014"
    us, base = s.launch_overhead_us[0], s.launch_baseline or "?"
    bases = fastest_bases(getattr(s, "shapes", None))
    if len(bases) > 1:  # gemm's +0.4 us is against pytorch at one launch shape, hipblaslt at the other
        base = f"the fastest ({bases[0][0]} at {bases[0][1]} of {sum(k for _b, k in bases)})"
    if read == clk.READ_SCOPE:
        return f"{us:+.1f} us vs {base} (other scope)"
    if read == clk.READ_SMALL:
        return f"{us:+.1f} us vs {base}"
    if read == clk.READ_KERNEL:
        return f"{us:+.1f} us vs {base} (launch path {s.launch_path_us[0]:+.1f})"
    return f"\u2265{us:+.1f} us vs {base}" + (" (other scope)" if s.launch_scope_differs else "")


def overview_us(s: Any) -> float | None:
    """The number the overview's launch-overhead column shows: the launch path where most of the call gap is
    kernel time (it is not launch overhead), none where the fastest call times other work (moe_gemm's -99.2 us
    and moe_blockscale's +43.5 us against aiter's ``fused_moe``: no launch overhead can be read; the cell's
    title keeps the number), else rule 13's launch overhead."""
    if not s.launch_overhead_us or reading(s) == clk.READ_SCOPE:
        return None
    return s.launch_path_us[0] if reading(s) == clk.READ_KERNEL else s.launch_overhead_us[0]
