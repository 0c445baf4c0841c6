"""AMD CDNA ISA facts the advice needs: operands, registers, memory counters, loops, MFMA latency.

Everything here works on the disassembly text of ``code.json`` rows, e.g.::

    buffer_load_dwordx4 v[0:3], v8, s[4:7], 0 offen          VMEM load, 16 bytes per lane
    buffer_load_dwordx4 v64, s[16:19], 0 offen sc0 lds       DMA to LDS: v64 is the address
    s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)                  wait on three counters
    v_mfma_f32_32x32x16_bf16 v[32:47], v[68:71], v[64:67], v[32:47]
    s_cbranch_scc1 63632                                     SIMM16 in dwords from the next pc

Only vector registers (``v``/``a``) are tracked for data dependencies: the
patterns the advice looks for (a load consumed by an MFMA, an LDS read consumed at
once) all move data through them.
"""

from __future__ import annotations

import math
import re

from generator.model import Instruction, record

WAVE_SIZE = 64
#: Cycles one wave64 instruction occupies the issue port (SIMD16: 4 passes).
ISSUE_CYCLES = 4
#: Hardware limits of the wait counters (DOMAIN §1.4).
VMCNT_MAX = 63
LGKMCNT_MAX = 15

_REG = re.compile(r"(?<![\w.])([va])(?:\[(\d+):(\d+)\]|(\d+))(?![\w])")
_WAIT_FIELD = re.compile(r"(vmcnt|lgkmcnt|expcnt|vscnt)\((\d+)\)")
_WAIT_SPLIT = re.compile(r"^s_waitcnt_(vmcnt|lgkmcnt|expcnt|vscnt)\b")
_BRANCH = re.compile(r"^s_(?:cbranch_\w+|branch)\s+(-?\d+)\b")

VMEM_PREFIXES = ("buffer_", "global_", "flat_", "scratch_", "tbuffer_")
SMEM_PREFIXES = ("s_load", "s_buffer_load", "s_store", "s_buffer_store", "s_scratch_",
                 "s_dcache", "s_memtime", "s_memrealtime", "s_atc_probe")
CROSS_LANE_DS = ("ds_bpermute", "ds_permute", "ds_swizzle")
DPP_MARKERS = ("quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror",
               "row_bcast", "row_newbcast", "row_share", "row_xmask", "wave_shl", "wave_shr",
               "wave_rol", "wave_ror", "dpp8")
_NO_VDST_PREFIXES = ("s_", "ds_write", "ds_store", "ds_gws", "ds_nop", "exp", "v_cmpx")


#: Per-process memos: a build reads the same texts in many stages, and operands and
#: mnemonics repeat across texts. Each is cleared when full, so they stay bounded.
_MEMO_MAX = 1 << 16
_MNEMONICS: dict[str, str] = {}  # instruction text -> mnemonic
_CLASSES: dict[str, tuple] = {}  # mnemonic -> what it alone says (``_class``)
_REGISTERS: dict[str, tuple[tuple[str, int], ...]] = {}  # operand -> registers
_REGISTER_SETS: dict[str, frozenset[tuple[str, int]]] = {}  # operand -> registers as a set
_PIECE_SETS: dict[str, frozenset[tuple[str, int]]] = {}  # comma piece -> registers (``register_sets``)
_LAST_PIECE_SETS: dict[str, frozenset[tuple[str, int]]] = {}  # last comma piece -> registers


def _remember(memo: dict, key: str, value):
    """Store ``value`` under ``key`` (emptying a full memo first) and return it."""
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = value
    return value


def mnemonic(asm: str) -> str:
    """The lower-cased opcode of one instruction."""
    m = _MNEMONICS.get(asm)
    if m is None:
        parts = asm.split(None, 1)
        m = _remember(_MNEMONICS, asm, parts[0].lower() if parts else "")
    return m


def split_operands(asm: str) -> tuple[list[str], list[str]]:
    """(operands, trailing modifiers) of one instruction; commas inside brackets are kept."""
    parts = asm.strip().split(None, 1)
    if len(parts) < 2:
        return [], []
    text = parts[1]
    pieces = text.split(",")
    if _nested(text, pieces):
        ops = _split_nested(text)
    else:
        ops = [p.strip() for p in pieces]  # every comma is outside brackets (the common case)
    # Modifiers follow the last operand, separated by spaces ("0 offen sc0 lds").
    last = ops[-1].split()
    mods = last[1:] if last else []
    ops[-1] = last[0] if last else ""
    return ([o for o in ops if o] if "" in ops else ops), mods


def _nested(text: str, pieces: list[str]) -> bool:
    """True when some comma piece does not close the brackets it opens (a comma inside them)."""
    if "(" in text or ")" in text:
        return any(p.count("[") + p.count("(") != p.count("]") + p.count(")") for p in pieces)
    if "[" not in text and "]" not in text:  # no brackets at all (most instructions)
        return False
    for p in pieces:  # no parentheses (the common case): square brackets alone decide
        if p.count("[") != p.count("]"):
            return True
    return False


def _split_nested(text: str) -> list[str]:
    """Operands of ``text`` split at the commas outside brackets and parentheses."""
    ops, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    ops.append("".join(cur).strip())
    return ops


def registers(operand: str) -> list[tuple[str, int]]:
    """Vector registers named by one operand: ``v[4:7]`` -> v4..v7, ``a3`` -> a3."""
    return list(_registers(operand))


def _registers(operand: str) -> tuple[tuple[str, int], ...]:
    """``registers`` as a shared tuple (operands repeat: ``v[32:47]``, ``s[4:7]``, ``0``)."""
    regs = _REGISTERS.get(operand)
    if regs is None:
        out: list[tuple[str, int]] = []
        for m in _REG.finditer(operand):
            kind = m.group(1)
            if m.group(4) is not None:
                out.append((kind, int(m.group(4))))
            else:
                lo, hi = int(m.group(2)), int(m.group(3))
                out.extend((kind, n) for n in range(lo, hi + 1))
        regs = _remember(_REGISTERS, operand, tuple(out))
    return regs


def _class(m: str) -> tuple:
    """What a mnemonic alone says: (VMEM, VMEM kind, may be DMA to LDS, lgkm kind, MFMA,
    has no vector destination by prefix, cross-lane by name, v_permlane*_swap)."""
    c = _CLASSES.get(m)
    if c is None:
        vmem = m.startswith(VMEM_PREFIXES)
        kind = None
        if vmem:
            kind = "load" if "_load" in m else "store" if "_store" in m else "atomic" if "_atomic" in m else "load"
        dma = "_load" in m and m.startswith(("buffer_load", "global_load")) and vmem
        if dma and ("_lds_" in m or m.endswith("_lds")):
            kind, dma = "lds_dma", False
        lgkm = ("lds" if m.startswith("ds_") else "smem" if m.startswith(SMEM_PREFIXES)
                else "msg" if m.startswith("s_sendmsg") else "flat" if m.startswith("flat_") else None)
        c = _remember(_CLASSES, m, (
            vmem, kind, dma, lgkm, m.startswith(("v_mfma", "v_smfmac")),
            not m or m.startswith(_NO_VDST_PREFIXES),
            m.startswith(CROSS_LANE_DS) or m.startswith("v_permlane") or (m.startswith("v_") and "_dpp" in m),
            m.startswith("v_permlane") and m.endswith(("_swap_b32", "_swap_b32_e32", "_swap_b32_e64"))))
    return c


def is_vmem(m: str) -> bool:
    """True for a vector-memory instruction (counted by vmcnt)."""
    return m.startswith(VMEM_PREFIXES)


def is_lds_dma(asm: str) -> bool:
    """True for a global/buffer load that writes LDS directly (``... lds``)."""
    c = _class(mnemonic(asm))
    return c[1] == "lds_dma" or (c[2] and _has_lds_modifier(asm))


def _has_lds_modifier(asm: str) -> bool:
    return "lds" in asm and "lds" in split_operands(asm)[1]


def vmem_kind(asm: str) -> str | None:
    """'load', 'lds_dma', 'store', 'atomic' for VMEM instructions, else None."""
    c = _class(mnemonic(asm))
    if c[2] and _has_lds_modifier(asm):
        return "lds_dma"
    return c[1]


def lgkm_kind(asm: str) -> str | None:
    """'lds' (any ds_* op), 'smem' (scalar memory) or 'msg' for lgkmcnt ops, else None."""
    return _class(mnemonic(asm))[3]


def counts_on(asm: str, counter: str) -> bool:
    """True when the instruction increments ``counter`` ('vmcnt' or 'lgkmcnt')."""
    c = _class(mnemonic(asm))
    if counter == "vmcnt":
        return c[0]
    if counter == "lgkmcnt":
        return c[3] is not None
    return False


def is_mfma(asm: str) -> bool:
    """True for a matrix-core instruction (``v_mfma*``, ``v_smfmac*``)."""
    return _class(mnemonic(asm))[4]


_DPP = re.compile("|".join(re.escape(k) for k in DPP_MARKERS))


def kinds(asm: str) -> tuple[str, str | None, str | None, bool, bool]:
    """(mnemonic, ``vmem_kind``, ``lgkm_kind``, ``is_mfma``, ``is_cross_lane``) in one look-up."""
    m = mnemonic(asm)
    c = _class(m)
    vmem = "lds_dma" if c[2] and _has_lds_modifier(asm) else c[1]
    cross = c[6] or (m.startswith("v_") and _DPP.search(asm) is not None)
    return m, vmem, c[3], c[4], cross


def is_cross_lane(asm: str) -> bool:
    """True for a cross-lane exchange: ds_bpermute/permute/swizzle, v_permlane*, DPP."""
    m = mnemonic(asm)
    if _class(m)[6]:
        return True
    return m.startswith("v_") and _DPP.search(asm) is not None


def is_narrow(asm: str) -> bool:
    """True for a memory access of at most 4 bytes per lane."""
    b = access_bytes(asm)
    return b is not None and b <= 4


def access_bytes(asm: str) -> int | None:
    """Bytes each lane moves for a memory instruction (``dwordx4`` -> 16), else None."""
    m = mnemonic(asm)
    if not (is_vmem(m) or m.startswith("ds_")):
        return None
    for suffix, size in (("dwordx4", 16), ("dwordx3", 12), ("dwordx2", 8), ("b128", 16),
                         ("b96", 12), ("b64", 8), ("b32", 4), ("dword", 4), ("b16", 2),
                         ("short", 2), ("u16", 2), ("i16", 2), ("d16", 2), ("b8", 1),
                         ("byte", 1), ("u8", 1), ("i8", 1)):
        if suffix in m:
            return size
    return None


def wait_counts(asm: str) -> dict[str, int]:
    """Counter limits of an ``s_waitcnt``: ``vmcnt(0) lgkmcnt(1)`` -> {vmcnt: 0, lgkmcnt: 1}.

    A bare immediate (``s_waitcnt 0``) is decoded with the gfx9 layout: vmcnt in
    bits 3:0 and 15:14, expcnt in 6:4, lgkmcnt in 11:8.
    """
    a = asm.strip().lower()
    if not a.startswith("s_waitcnt"):
        return {}
    split = _WAIT_SPLIT.match(a)
    if split:  # s_waitcnt_lgkmcnt null, 0x0 (gfx10+ form)
        ops, _ = split_operands(a)
        value = _int(ops[-1]) if ops else None
        return {split.group(1): value} if value is not None else {}
    fields = {name: int(n) for name, n in _WAIT_FIELD.findall(a)}
    if fields:
        return fields
    ops, _ = split_operands(a)
    value = _int(ops[0]) if ops else None
    if value is None:
        return {}
    return {"vmcnt": (value & 0xF) | ((value >> 14) & 0x3) << 4,
            "expcnt": (value >> 4) & 0x7, "lgkmcnt": (value >> 8) & 0xF}


def _int(text: str) -> int | None:
    """Parse a decimal or hex immediate."""
    try:
        return int(text, 0)
    except ValueError:
        return None


def has_vdst(asm: str) -> bool:
    """True when operand 0 is a vector destination (not a store, DMA, scalar or control op)."""
    return _has_vdst(asm, _class(mnemonic(asm)))


def _has_vdst(asm: str, c: tuple) -> bool:
    return _vdst_of_kind(asm, c, "lds_dma" if c[2] and _has_lds_modifier(asm) else c[1])


def _vdst_of_kind(asm: str, c: tuple, kind: str | None) -> bool:
    """``_has_vdst`` of an instruction whose vmem kind (``vmem_kind``) is known."""
    if c[5]:
        return False
    if kind in ("store", "lds_dma"):
        return False
    if kind == "atomic":
        return "sc0" in split_operands(asm)[1] or "glc" in split_operands(asm)[1]
    return True


def defs_uses(asm: str) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """(vector registers written, vector registers read) by one instruction."""
    defs, uses = register_sets(asm)
    if defs is uses:  # v_permlane*_swap: one set, read and written
        regs = set(defs)
        return regs, regs
    return set(defs), set(uses)


_NONE: frozenset[tuple[str, int]] = frozenset()
_EMPTY_PIECE: frozenset[tuple[str, int]] = frozenset([("", -1)])  # memo value of an empty operand


def text_facts(asm: str) -> tuple:
    """``kinds`` and ``register_sets`` of one instruction in one pass (mnemonic, vmem kind, lgkm
    kind, is MFMA, is cross-lane, registers written, registers read)."""
    m = mnemonic(asm)
    c = _class(m)
    vmem = "lds_dma" if c[2] and _has_lds_modifier(asm) else c[1]
    cross = c[6] or (m.startswith("v_") and _DPP.search(asm) is not None)
    return (m, vmem, c[3], c[4], cross, *_register_sets(asm, c, vmem))


def register_sets(asm: str) -> tuple[frozenset[tuple[str, int]], frozenset[tuple[str, int]]]:
    """``defs_uses`` as frozensets, shared between calls (operands repeat): read-only."""
    c = _class(mnemonic(asm))
    return _register_sets(asm, c, "lds_dma" if c[2] and _has_lds_modifier(asm) else c[1])


def _register_sets(asm: str, c: tuple, kind: str | None) -> tuple[frozenset[tuple[str, int]],
                                                                    frozenset[tuple[str, int]]]:
    """``register_sets`` of an instruction whose ``_class`` and vmem kind are known."""
    parts = asm.split(None, 1)
    if len(parts) < 2:
        return _NONE, _NONE
    text = parts[1]
    pieces = text.split(",")
    if _nested(text, pieces):
        regs = [_register_set(op) for op in split_operands(asm)[0]]
    else:  # one operand per comma piece: look each piece up as it stands
        regs = [_piece_set(p) for p in pieces[:-1]]
        regs.append(_last_piece_set(pieces[-1]))
        if None in regs:  # empty operands do not count
            regs = [r for r in regs if r is not None]
    if not regs:
        return _NONE, _NONE
    if c[7]:  # v_permlane*_swap: both operands are read and written
        both = regs[0] | regs[1] if len(regs) > 1 else regs[0]
        return both, both
    if _vdst_of_kind(asm, c, kind):
        return regs[0], _union(regs, 1)
    return _NONE, _union(regs, 0)


def _piece_set(piece: str) -> frozenset[tuple[str, int]] | None:
    """Registers of one comma piece (an operand with its spaces), None when it is empty."""
    regs = _PIECE_SETS.get(piece)
    if regs is None:
        op = piece.strip()
        regs = _remember(_PIECE_SETS, piece, _register_set(op) if op else _EMPTY_PIECE)
    return None if regs is _EMPTY_PIECE else regs


def _last_piece_set(piece: str) -> frozenset[tuple[str, int]] | None:
    """Registers of the last comma piece: its first word (modifiers follow), None when empty."""
    regs = _LAST_PIECE_SETS.get(piece)
    if regs is None:
        words = piece.split(None, 1)
        regs = _remember(_LAST_PIECE_SETS, piece, _register_set(words[0]) if words else _EMPTY_PIECE)
    return None if regs is _EMPTY_PIECE else regs


def _register_set(operand: str) -> frozenset[tuple[str, int]]:
    regs = _REGISTER_SETS.get(operand)
    if regs is None:
        regs = _remember(_REGISTER_SETS, operand, frozenset(_registers(operand)))
    return regs


def _union(regs: list[frozenset[tuple[str, int]]], first: int) -> frozenset[tuple[str, int]]:
    """Registers of the operands from ``first`` on."""
    if len(regs) - first == 1:
        return regs[first]
    return _NONE.union(*regs[first:])


def branch_offset(asm: str) -> int | None:
    """Signed SIMM16 of a branch, in dwords (``s_cbranch_scc1 63632`` -> -1904)."""
    op = mnemonic(asm)
    if not (op == "s_branch" or op.startswith("s_cbranch_")):
        return None
    m = _BRANCH.match(asm.strip().lower())
    if not m:
        return None
    off = int(m.group(1))
    return off - 65536 if off >= 32768 else off


def branch_targets(instructions: list[Instruction]) -> dict[int, int]:
    """``{pc_index of a branch: pc_index of its target}`` for every ``s_branch`` / ``s_cbranch_*``
    whose target (byte address ``pc + 4 + 4 * SIMM16``) is an instruction of the listing. Example:
    ``s_cbranch_execz 5`` at address 6884 goes to the instruction at 6908."""
    by_addr: dict[int, int] | None = None
    out = {}
    for ins in instructions:
        if "branch" not in ins.asm or not ins.pc_addr:
            continue
        off = branch_offset(ins.asm)
        if off is None:
            continue
        if by_addr is None:
            by_addr = {i.pc_addr: i.pc_index for i in instructions if i.pc_addr}
        target = by_addr.get(ins.pc_addr + 4 + 4 * off)
        if target is not None:
            out[ins.pc_index] = target
    return out


def loops(instructions: list[Instruction], mnemonics: list[str] | None = None) -> list[tuple[int, int]]:
    """Loop bodies ``(first, last)`` as positions, from backward branches; innermost first.

    The target of a branch at byte address ``pc`` is ``pc + 4 + 4 * SIMM16``; when
    code.json carries no addresses (all 0) no loop is reported. ``mnemonics``, when the
    caller has them, spare looking each instruction's up again.
    """
    by_addr = None
    found = set()
    if mnemonics is None:
        mnemonics = [mnemonic(ins.asm) for ins in instructions]
    for k, m in enumerate(mnemonics):
        if "branch" not in m:
            continue
        ins = instructions[k]
        off = branch_offset(ins.asm)
        if off is None or off >= 0 or not ins.pc_addr:
            continue
        if by_addr is None:
            by_addr = {i.pc_addr: n for n, i in enumerate(instructions) if i.pc_addr}
        target = by_addr.get(ins.pc_addr + 4 + 4 * off)
        if target is not None and target <= k:
            found.add((target, k))
    return sorted(found, key=lambda span: (span[1] - span[0], span[0]))


def innermost_loop(spans: list[tuple[int, int]], pos: int) -> tuple[int, int] | None:
    """The smallest loop body holding position ``pos``."""
    for lo, hi in spans:  # innermost first
        if lo <= pos <= hi:
            return lo, hi
    return None


# ---------------------------------------------------------------- MFMA latency

@record(frozen=True)
class MfmaLatency:
    """Pipeline latency of one MFMA form."""

    cycles: int
    source: str  # "DOMAIN §1.4" or "inferred (...)"


# (pattern on the mnemonic, cycles, cycles when an operand is FP8 or None, source)
_MFMA_TABLE = (
    (r"^v_mfma_f32_16x16x16_?(f16|bf16|bf16_1k)$", 16, None, "DOMAIN §1.4"),
    (r"^v_mfma_f32_32x32x8_?(f16|bf16|bf16_1k)$", 32, None, "DOMAIN §1.4"),
    (r"^v_mfma_f32_16x16x32_(fp8|bf8)_(fp8|bf8)$", 16, None, "DOMAIN §1.4"),
    (r"^v_mfma_f32_32x32x16_(fp8|bf8)_(fp8|bf8)$", 32, None, "DOMAIN §1.4"),
    (r"^v_mfma_(scale_)?f32_16x16x128_f8f6f4$", 16, 32, "DOMAIN §1.4"),
    (r"^v_mfma_(scale_)?f32_32x32x64_f8f6f4$", 32, 64, "DOMAIN §1.4"),
    (r"^v_mfma_f32_16x16x4_?f32$", 32, None, "DOMAIN §1.4"),
    (r"^v_mfma_f32_32x32x2_?f32$", 64, None, "DOMAIN §1.4"),
    (r"^v_mfma_f64_16x16x4_?f64$", 64, None, "DOMAIN §1.4"),
    # Not in the DOMAIN table: the gfx950 double-rate 16-bit forms and int8 follow the
    # same rule as their fp8 siblings (the output tile sets the passes).
    (r"^v_mfma_f32_16x16x32_(f16|bf16)$", 16, None, "inferred (16x16 tile, like fp8 16x16x32)"),
    (r"^v_mfma_f32_32x32x16_(f16|bf16)$", 32, None, "inferred (32x32 tile, like fp8 32x32x16)"),
    (r"^v_mfma_i32_16x16x(32|64)_i8$", 16, None, "inferred (16x16 tile)"),
    (r"^v_mfma_i32_32x32x(16|32)_i8$", 32, None, "inferred (32x32 tile)"),
)
_MFMA_COMPILED = tuple((re.compile(p), c, c8, s) for p, c, c8, s in _MFMA_TABLE)
_MFMA_TILE = re.compile(r"_(\d+)x(\d+)x(\d+)")


def f8f6f4_has_fp8(asm: str) -> bool:
    """True when an f8f6f4 MFMA reads an FP8/BF8 operand (cbsz/blgp 0 or 1; absent = FP8)."""
    _, mods = split_operands(asm)
    fmt = {"cbsz": 0, "blgp": 0}
    for mod in mods:
        key, _, value = mod.partition(":")
        if key in fmt and value.isdigit():
            fmt[key] = int(value)
    return fmt["cbsz"] <= 1 or fmt["blgp"] <= 1


def mfma_latency(asm: str) -> MfmaLatency | None:
    """Pipeline latency of an MFMA instruction (DOMAIN §1.4 table), None for others."""
    m = mnemonic(asm)
    if not _class(m)[4]:
        return None
    form = _MFMA_FORMS.get(m)
    if form is None:
        form = _remember(_MFMA_FORMS, m, _mfma_form(m))
    latency, fp8 = form
    if fp8 is not None and f8f6f4_has_fp8(asm):
        return fp8
    return latency


_MFMA_FORMS: dict[str, tuple[MfmaLatency | None, MfmaLatency | None]] = {}


def _mfma_form(m: str) -> tuple[MfmaLatency | None, MfmaLatency | None]:
    """(latency, latency when an operand is FP8 or None) of an MFMA mnemonic."""
    for pattern, cycles, fp8_cycles, source in _MFMA_COMPILED:
        if pattern.match(m):
            return (MfmaLatency(cycles, source),
                    MfmaLatency(fp8_cycles, source + " (an operand is FP8)") if fp8_cycles is not None else None)
    tile = _MFMA_TILE.search(m)
    if tile:  # unknown form: the output tile decides (16x16 -> 16, 32x32 -> 32, 4x4 -> 8)
        rows = int(tile.group(1))
        cycles = {4: 8, 16: 16, 32: 32}.get(rows, rows)
        return MfmaLatency(cycles, f"inferred ({rows}x{rows} tile, form not in the table)"), None
    return None, None


def independent_needed(cycles: int) -> int:
    """Independent instructions that cover ``cycles`` of latency (one issue = 4 cycles)."""
    return math.ceil(cycles / ISSUE_CYCLES)
