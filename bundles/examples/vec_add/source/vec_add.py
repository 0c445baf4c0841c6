"""Element-wise add of two bf16 tensors (a transformer's residual add), in Triton."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # One program adds BLOCK consecutive elements; 64-bit offsets for >2^31 elements.
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x + y for contiguous tensors of one shape and dtype."""
    out = torch.empty_like(x)
    n = x.numel()
    block = 1024
    add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block, num_warps=4)
    return out
