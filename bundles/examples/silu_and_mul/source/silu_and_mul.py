"""Fused SwiGLU activation in Triton: out = silu(x[:, :I]) * x[:, I:], one pass.

The gate and up projections of an LLM MLP are usually one GEMM whose output holds
both halves side by side; eager PyTorch needs a kernel for silu and one for the
product (and reads the gate twice), this kernel reads each input once.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def silu_and_mul_kernel(x_ptr, out_ptr, stride_x, stride_o, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    gate = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(x_ptr + row * stride_x + n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    y = gate / (1.0 + tl.exp(-gate)) * up
    tl.store(out_ptr + row * stride_o + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    """silu(gate) * up for x = [gate | up] of shape (M, 2I); returns (M, I)."""
    m, two_i = x.shape
    i = two_i // 2
    out = torch.empty((m, i), device=x.device, dtype=x.dtype)
    block = 1024
    silu_and_mul_kernel[(m, triton.cdiv(i, block))](x, out, x.stride(0), out.stride(0), i,
                                                    BLOCK=block, num_warps=4)
    return out
