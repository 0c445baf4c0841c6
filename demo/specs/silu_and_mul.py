"""Fused SwiGLU activation silu(gate) * up (bf16) at the MLP sizes of Llama3, Qwen and DeepSeek-V3."""

from generator.capture.nvidia import import_source

KERNEL = "silu_and_mul"
OP_TYPE = "silu_and_mul"
CANDIDATE = "triton"
REFERENCE = "pytorch"
KERNEL_REGEX = "^silu_and_mul_kernel$"
LABEL = "prefill"
PROFILE = ["llama3-8b-prefill-2k"]
SOURCES = ["../kernels/silu_and_mul.py"]
TOLERANCE = 1e-2

PROVIDERS = {
    "triton": "demo/kernels/silu_and_mul.py: one pass, 1024 outputs per program",
    "pytorch": "F.silu(x[:, :I]) * x[:, I:] (eager: two ATen kernels)",
    "torch_compile": "torch.compile of the eager formula, static shapes, mode max-autotune-no-cudagraphs (one fused Inductor kernel)",
}


def _shape(name, tokens, inter, model, stage, notes):
    return {"name": name, "args": {"M": tokens, "I": inter}, "dtype": "bf16", "model": model,
            "stage": stage, "source": {"kind": "model_config", "notes": notes}}


SHAPES = [
    _shape("llama3-8b-decode", 1, 14336, "Llama3 8B", "decode", "intermediate_size 14336, one token"),
    _shape("llama3-8b-decode-b128", 128, 14336, "Llama3 8B", "decode", "intermediate_size 14336, batch 128"),
    _shape("llama3-8b-prefill-2k", 2048, 14336, "Llama3 8B", "prefill", "intermediate_size 14336, 2048 tokens"),
    _shape("llama3-8b-prefill-8k", 8192, 14336, "Llama3 8B", "prefill", "intermediate_size 14336, 8192 tokens"),
    _shape("llama3-70b-decode", 1, 28672, "Llama3 70B", "decode", "intermediate_size 28672, one token"),
    _shape("llama3-70b-prefill-2k", 2048, 28672, "Llama3 70B", "prefill", "intermediate_size 28672, 2048 tokens"),
    _shape("qwen2.5-7b-prefill-2k", 2048, 18944, "Qwen2.5 7B", "prefill", "intermediate_size 18944, 2048 tokens"),
    _shape("qwen3-8b-prefill-2k", 2048, 12288, "Qwen3 8B", "prefill", "intermediate_size 12288, 2048 tokens"),
    _shape("deepseek-v3-expert-8k", 8192, 2048, "DeepSeek-V3", "prefill", "routed-expert moe_intermediate_size 2048, 8192 routed tokens"),
    _shape("qwen3-235b-expert-8k", 8192, 1536, "Qwen3-235B-A22B", "prefill", "expert moe_intermediate_size 1536, 8192 routed tokens"),
]


def make_inputs(shape, device):
    import torch

    m, i = shape["args"]["M"], shape["args"]["I"]
    return (torch.randn(m, 2 * i, device=device, dtype=torch.bfloat16) * 2,)


def reference(x):
    import torch

    i = x.shape[1] // 2
    xf = x.float()
    return torch.nn.functional.silu(xf[:, :i]) * xf[:, i:]


def providers():
    import torch

    k = import_source(__file__, "../kernels/silu_and_mul.py")
    static_compile = import_source(__file__, "../kernels/compiled.py").static_compile

    def eager(x):
        i = x.shape[1] // 2
        return torch.nn.functional.silu(x[:, :i]) * x[:, i:]

    return {"triton": k.silu_and_mul, "pytorch": eager, "torch_compile": static_compile(eager)}


def traffic(shape):
    m, i = shape["args"]["M"], shape["args"]["I"]
    return 3 * m * i * 2, 5 * m * i
