"""Row softmax of a bf16 matrix in Triton: fp32 math, bf16 out.

Rows of up to 8192 columns are held in registers (one load, one store); longer rows
(vocabulary logits) take two passes over the row: an online max/sum pass, then a
normalizing pass.
"""

import torch
import triton
import triton.language as tl

SINGLE_PASS_MAX = 8192
CHUNK = 4096


@triton.jit
def softmax_kernel(x_ptr, out_ptr, stride_x, stride_o, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf")).to(tl.float32)
    row_max = tl.max(x, axis=0)
    num = tl.exp(x - row_max)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride_o + cols, (num / den).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_online_kernel(x_ptr, out_ptr, stride_x, stride_o, n_cols, BLOCK: tl.constexpr):
    # Requires n_cols >= BLOCK so every lane sees a finite value in the first chunk.
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(lane_max, x)
        lane_sum = lane_sum * tl.exp(lane_max - new_max) + tl.exp(x - new_max)
        lane_max = new_max
    row_max = tl.max(lane_max, axis=0)
    den = tl.sum(lane_sum * tl.exp(lane_max - row_max), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) / den
        tl.store(out_ptr + row * stride_o + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """softmax(x, dim=-1) of a 2-D tensor whose rows are contiguous."""
    m, n = x.shape
    out = torch.empty_like(x)
    if n <= SINGLE_PASS_MAX:
        block = triton.next_power_of_2(n)
        warps = 4 if block <= 2048 else 8 if block <= 4096 else 16
        softmax_kernel[(m,)](x, out, x.stride(0), out.stride(0), n, BLOCK=block, num_warps=warps)
    else:
        softmax_online_kernel[(m,)](x, out, x.stride(0), out.stride(0), n, BLOCK=CHUNK, num_warps=8)
    return out
