"""Residual add (bf16 x + y) at LLM hidden sizes: Triton against PyTorch eager and torch.compile."""

from generator.capture.nvidia import import_source

KERNEL = "vec_add"
OP_TYPE = "vec_add"
CANDIDATE = "triton"
REFERENCE = "pytorch"
KERNEL_REGEX = "^add_kernel$"
LABEL = "prefill"
# Two launches in one report: the export holds two profiled launches (one per shape).
PROFILE = ["llama3-8b-prefill-2k", "llama3-70b-prefill-8k"]
SOURCES = ["../kernels/vec_add.py"]
TOLERANCE = 1e-2

PROVIDERS = {
    "triton": "demo/kernels/vec_add.py add_kernel: 1024 elements per program, 4 warps",
    "pytorch": "torch.add(x, y) (eager ATen kernel)",
    "torch_compile": "torch.compile(torch.add), static shapes, mode max-autotune-no-cudagraphs (Inductor Triton kernel)",
}


def _shape(name, tokens, hidden, model, stage, notes):
    return {"name": name, "args": {"M": tokens, "N": hidden}, "dtype": "bf16", "model": model,
            "stage": stage, "source": {"kind": "model_config", "notes": notes}}


SHAPES = [
    _shape("llama3-8b-decode", 1, 4096, "Llama3 8B", "decode", "hidden_size 4096, one token"),
    _shape("llama3-8b-decode-b128", 128, 4096, "Llama3 8B", "decode", "hidden_size 4096, batch 128"),
    _shape("llama3-8b-prefill-2k", 2048, 4096, "Llama3 8B", "prefill", "hidden_size 4096, 2048 tokens"),
    _shape("llama3-8b-prefill-8k", 8192, 4096, "Llama3 8B", "prefill", "hidden_size 4096, 8192 tokens"),
    _shape("llama3-70b-decode", 1, 8192, "Llama3 70B", "decode", "hidden_size 8192, one token"),
    _shape("llama3-70b-prefill-2k", 2048, 8192, "Llama3 70B", "prefill", "hidden_size 8192, 2048 tokens"),
    _shape("llama3-70b-prefill-8k", 8192, 8192, "Llama3 70B", "prefill", "hidden_size 8192, 8192 tokens"),
    _shape("qwen2.5-7b-prefill-2k", 2048, 3584, "Qwen2.5 7B", "prefill", "hidden_size 3584, 2048 tokens"),
    _shape("deepseek-v3-prefill-2k", 2048, 7168, "DeepSeek-V3", "prefill", "hidden_size 7168, 2048 tokens"),
    _shape("deepseek-v3-prefill-8k", 8192, 7168, "DeepSeek-V3", "prefill", "hidden_size 7168, 8192 tokens"),
    _shape("llama3-405b-prefill-2k", 2048, 16384, "Llama3 405B", "prefill", "hidden_size 16384, 2048 tokens"),
]


def make_inputs(shape, device):
    import torch

    m, n = shape["args"]["M"], shape["args"]["N"]
    return (torch.randn(m, n, device=device, dtype=torch.bfloat16),
            torch.randn(m, n, device=device, dtype=torch.bfloat16))


def reference(x, y):
    return x.float() + y.float()


def providers():
    import torch

    k = import_source(__file__, "../kernels/vec_add.py")
    static_compile = import_source(__file__, "../kernels/compiled.py").static_compile

    def eager(x, y):
        return torch.add(x, y)

    return {"triton": k.add, "pytorch": eager, "torch_compile": static_compile(eager)}


def traffic(shape):
    n = shape["args"]["M"] * shape["args"]["N"]
    return 3 * n * 2, n
