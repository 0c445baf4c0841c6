"""RMSNorm of a bf16 matrix in Triton: y = x / sqrt(mean(x^2) + eps) * w, fp32 math."""

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, stride_x, stride_o, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    inv_rms = 1.0 / tl.sqrt(mean_sq + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * stride_o + cols, (x * inv_rms * w).to(out_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    """RMSNorm over the last dim of a 2-D tensor whose rows are contiguous."""
    m, n = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(n)
    warps = min(16, max(1, block // 512))
    rmsnorm_kernel[(m,)](x, w, out, x.stride(0), out.stride(0), n, eps, BLOCK=block, num_warps=warps)
    return out
