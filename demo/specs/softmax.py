"""Row softmax (bf16 in/out, fp32 math): attention probabilities, MoE routers and vocabulary logits."""

from generator.capture.nvidia import import_source

KERNEL = "softmax"
OP_TYPE = "softmax"
CANDIDATE = "triton"
REFERENCE = "pytorch"
KERNEL_REGEX = "^softmax(_online)?_kernel$"
LABEL = "prefill"
PROFILE = ["llama3-8b-attn-2k"]
SOURCES = ["../kernels/softmax.py"]
TOLERANCE = 1e-2

PROVIDERS = {
    "triton": "demo/kernels/softmax.py: one program per row; rows > 8192 take an online two-pass loop",
    "pytorch": "torch.softmax(x, dim=-1) (eager ATen kernel)",
    "torch_compile": "torch.compile(torch.softmax), static shapes, mode max-autotune-no-cudagraphs (Inductor Triton kernel)",
}


def _shape(name, rows, cols, model, stage, notes):
    return {"name": name, "args": {"M": rows, "N": cols}, "dtype": "bf16", "model": model,
            "stage": stage, "source": {"kind": "model_config", "notes": notes}}


SHAPES = [
    _shape("llama3-8b-attn-512", 32 * 512, 512, "Llama3 8B", "prefill", "attention probabilities: 32 heads x 512 queries x 512 keys"),
    _shape("llama3-8b-attn-1k", 32 * 1024, 1024, "Llama3 8B", "prefill", "attention probabilities: 32 heads x 1024 x 1024"),
    _shape("llama3-8b-attn-2k", 32 * 2048, 2048, "Llama3 8B", "prefill", "attention probabilities: 32 heads x 2048 x 2048"),
    _shape("llama3-8b-attn-4k", 32 * 4096, 4096, "Llama3 8B", "prefill", "attention probabilities: 32 heads x 4096 x 4096"),
    _shape("deepseek-v3-router", 4096, 256, "DeepSeek-V3", "prefill", "MoE router over 256 routed experts, 4096 tokens"),
    _shape("qwen3-235b-router", 4096, 128, "Qwen3-235B-A22B", "prefill", "MoE router over 128 experts, 4096 tokens"),
    _shape("llama3-8b-logits-b1", 1, 128256, "Llama3 8B", "decode", "sampling softmax over the 128256-token vocabulary, batch 1"),
    _shape("llama3-8b-logits-b64", 64, 128256, "Llama3 8B", "decode", "sampling softmax over the 128256-token vocabulary, batch 64"),
    _shape("qwen2.5-7b-logits-b1", 1, 151936, "Qwen2.5 7B", "decode", "sampling softmax over the 151936-token vocabulary, batch 1"),
    _shape("qwen2.5-7b-logits-b64", 64, 151936, "Qwen2.5 7B", "decode", "sampling softmax over the 151936-token vocabulary, batch 64"),
    _shape("mistral-7b-logits-b256", 256, 32000, "Mistral 7B", "decode", "sampling softmax over the 32000-token vocabulary, batch 256"),
]


def make_inputs(shape, device):
    import torch

    m, n = shape["args"]["M"], shape["args"]["N"]
    return (torch.randn(m, n, device=device, dtype=torch.bfloat16) * 3,)


def reference(x):
    import torch

    return torch.softmax(x.float(), dim=-1)


def providers():
    import torch

    k = import_source(__file__, "../kernels/softmax.py")
    static_compile = import_source(__file__, "../kernels/compiled.py").static_compile

    def eager(x):
        return torch.softmax(x, dim=-1)

    return {"triton": k.softmax, "pytorch": eager, "torch_compile": static_compile(eager)}


def traffic(shape):
    n = shape["args"]["M"] * shape["args"]["N"]
    return 2 * n * 2, 5 * n
