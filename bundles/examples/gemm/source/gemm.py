"""bf16 GEMM in Triton: C = A @ W^T with A (M, K) and a weight W (N, K), fp32 accumulate.

Tiles are picked by M alone (no autotuning): decode-sized M gets 64-row tiles,
prefill-sized M 128x256 tiles with three pipeline stages. Program ids are grouped
GROUP_M tiles down a column so neighbouring programs reuse W tiles from L2.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, w_ptr, c_ptr, M, N, K,
                stride_am, stride_ak, stride_wn, stride_wk, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    first_m = group * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % rows_in_group
    tile_n = (pid % per_group) // rows_in_group

    rm = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    w_tile = w_ptr + rk[:, None] * stride_wk + rn[None, :] * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_tile, mask=rk[None, :] < K - k0, other=0.0)
        w = tl.load(w_tile, mask=rk[:, None] < K - k0, other=0.0)
        acc = tl.dot(a, w, acc)
        a_tile += BLOCK_K * stride_ak
        w_tile += BLOCK_K * stride_wk

    cm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_tile = c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


def tiles_for(m: int) -> tuple[int, int, int, int, int]:
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps) for a given M."""
    if m <= 64:
        return 64, 128, 64, 4, 4
    if m <= 512:
        return 128, 128, 64, 4, 8
    return 128, 256, 64, 3, 8


def gemm(a: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """a @ w.T for a (M, K) and w (N, K), bf16 in and out."""
    m, k = a.shape
    n = w.shape[0]
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    bm, bn, bk, stages, warps = tiles_for(m)
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    gemm_kernel[grid](a, w, c, m, n, k, a.stride(0), a.stride(1), w.stride(0), w.stride(1),
                      c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                      num_stages=stages, num_warps=warps)
    return c
