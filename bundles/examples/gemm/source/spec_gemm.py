"""bf16 GEMM (x @ W^T) at the linear-layer sizes of Llama3 and Qwen2.5: Triton against cuBLAS and
torch.compile max-autotune (Inductor's Triton GEMM templates, autotuned against cuBLAS per shape)."""

from generator.capture.nvidia import import_source

KERNEL = "gemm"
OP_TYPE = "gemm"
CANDIDATE = "triton"
REFERENCE = "pytorch"
KERNEL_REGEX = "^gemm_kernel$"
LABEL = "prefill"
PROFILE = ["llama3-8b-o-proj-4k"]
SOURCES = ["../kernels/gemm.py"]
TOLERANCE = 1e-2

PROVIDERS = {
    "triton": "demo/kernels/gemm.py gemm_kernel: fixed tiles by M (64x128x64 / 128x128x64 / 128x256x64), grouped order",
    "pytorch": "torch.matmul(x, w.t()) (cuBLAS)",
    "torch_compile": "torch.compile of torch.matmul, static shapes, mode max-autotune-no-cudagraphs "
                     "(Inductor autotunes its Triton GEMM templates against cuBLAS and keeps the fastest)",
}


def _shape(name, m, n, k, model, stage, notes):
    return {"name": name, "args": {"M": m, "N": n, "K": k}, "dtype": "bf16", "model": model,
            "stage": stage, "source": {"kind": "model_config", "notes": notes}}


SHAPES = [
    _shape("llama3-8b-qkv-b16", 16, 6144, 4096, "Llama3 8B", "decode", "fused QKV projection (32+8+8 heads x 128), batch 16"),
    _shape("llama3-8b-qkv-4k", 4096, 6144, 4096, "Llama3 8B", "prefill", "fused QKV projection, 4096 tokens"),
    _shape("llama3-8b-o-proj-4k", 4096, 4096, 4096, "Llama3 8B", "prefill", "attention output projection, 4096 tokens"),
    _shape("llama3-8b-gate-up-b16", 16, 28672, 4096, "Llama3 8B", "decode", "fused gate/up projection (2 x 14336), batch 16"),
    _shape("llama3-8b-gate-up-4k", 4096, 28672, 4096, "Llama3 8B", "prefill", "fused gate/up projection (2 x 14336), 4096 tokens"),
    _shape("llama3-8b-down-4k", 4096, 4096, 14336, "Llama3 8B", "prefill", "MLP down projection, 4096 tokens"),
    _shape("llama3-70b-qkv-4k", 4096, 10240, 8192, "Llama3 70B", "prefill", "fused QKV projection (64+8+8 heads x 128), 4096 tokens"),
    _shape("llama3-70b-down-b128", 128, 8192, 28672, "Llama3 70B", "decode", "MLP down projection, batch 128"),
    _shape("qwen2.5-7b-gate-up-2k", 2048, 37888, 3584, "Qwen2.5 7B", "prefill", "fused gate/up projection (2 x 18944), 2048 tokens"),
    _shape("square-8k", 8192, 8192, 8192, "synthetic", "synthetic", "square 8192^3 (peak-rate reference)"),
]


def make_inputs(shape, device):
    import torch

    a = shape["args"]
    x = torch.randn(a["M"], a["K"], device=device, dtype=torch.bfloat16)
    w = (torch.randn(a["N"], a["K"], device=device) * a["K"] ** -0.5).to(torch.bfloat16)
    return x, w


def reference(x, w):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    return x.float() @ w.float().t()


def providers():
    import torch

    k = import_source(__file__, "../kernels/gemm.py")
    static_compile = import_source(__file__, "../kernels/compiled.py").static_compile

    def cublas(x, w):
        return torch.matmul(x, w.t())

    return {"triton": k.gemm, "pytorch": cublas, "torch_compile": static_compile(cublas)}


def traffic(shape):
    a = shape["args"]
    m, n, kk = a["M"], a["N"], a["K"]
    return (m * kk + n * kk + m * n) * 2, 2 * m * n * kk
