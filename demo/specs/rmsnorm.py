"""RMSNorm (bf16 in/out, fp32 math) at LLM hidden sizes, QK-norm and MLA latent sizes."""

from generator.capture.nvidia import import_source

KERNEL = "rmsnorm"
OP_TYPE = "rmsnorm"
CANDIDATE = "triton"
REFERENCE = "pytorch"
KERNEL_REGEX = "^rmsnorm_kernel$"
LABEL = "prefill"
PROFILE = ["llama3-70b-prefill-2k"]
SOURCES = ["../kernels/rmsnorm.py"]
TOLERANCE = 1e-2
EPS = 1e-5

PROVIDERS = {
    "triton": "demo/kernels/rmsnorm.py: one program per row, the row held in registers",
    "pytorch": "torch.nn.functional.rms_norm (eager ATen kernel)",
    "pytorch_hf": "Hugging Face LlamaRMSNorm formula in eager PyTorch (fp32 upcast, pow, mean, rsqrt, mul)",
    "torch_compile": "torch.compile of the Hugging Face formula, static shapes, mode max-autotune-no-cudagraphs (Inductor Triton kernel)",
}


def _shape(name, rows, hidden, model, stage, notes):
    return {"name": name, "args": {"M": rows, "N": hidden, "eps": EPS}, "dtype": "bf16", "model": model,
            "stage": stage, "source": {"kind": "model_config", "notes": notes}}


SHAPES = [
    _shape("llama3-8b-decode", 1, 4096, "Llama3 8B", "decode", "hidden_size 4096, one token"),
    _shape("llama3-8b-prefill-2k", 2048, 4096, "Llama3 8B", "prefill", "hidden_size 4096, 2048 tokens"),
    _shape("llama3-8b-prefill-8k", 8192, 4096, "Llama3 8B", "prefill", "hidden_size 4096, 8192 tokens"),
    _shape("llama3-70b-decode", 1, 8192, "Llama3 70B", "decode", "hidden_size 8192, one token"),
    _shape("llama3-70b-prefill-2k", 2048, 8192, "Llama3 70B", "prefill", "hidden_size 8192, 2048 tokens"),
    _shape("llama3-70b-prefill-8k", 8192, 8192, "Llama3 70B", "prefill", "hidden_size 8192, 8192 tokens"),
    _shape("qwen2.5-7b-prefill-2k", 2048, 3584, "Qwen2.5 7B", "prefill", "hidden_size 3584, 2048 tokens"),
    _shape("deepseek-v3-prefill-2k", 2048, 7168, "DeepSeek-V3", "prefill", "hidden_size 7168, 2048 tokens"),
    _shape("deepseek-v3-kv-norm-2k", 2048, 512, "DeepSeek-V3", "prefill", "MLA kv_a_layernorm over kv_lora_rank 512, 2048 tokens"),
    _shape("qwen3-8b-qk-norm-2k", 2048 * 32, 128, "Qwen3 8B", "prefill", "q_norm over head_dim 128: 32 heads x 2048 tokens"),
    _shape("llama3-405b-prefill-2k", 2048, 16384, "Llama3 405B", "prefill", "hidden_size 16384, 2048 tokens"),
]


def make_inputs(shape, device):
    import torch

    m, n = shape["args"]["M"], shape["args"]["N"]
    x = torch.randn(m, n, device=device, dtype=torch.bfloat16)
    w = (1.0 + 0.1 * torch.randn(n, device=device)).to(torch.bfloat16)
    return x, w, float(shape["args"]["eps"])


def reference(x, w, eps):
    import torch

    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()


def providers():
    import torch

    k = import_source(__file__, "../kernels/rmsnorm.py")
    static_compile = import_source(__file__, "../kernels/compiled.py").static_compile

    def aten(x, w, eps):
        return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps)

    def hf(x, w, eps):
        xf = x.to(torch.float32)
        var = xf.pow(2).mean(-1, keepdim=True)
        return w * (xf * torch.rsqrt(var + eps)).to(x.dtype)

    return {"triton": k.rmsnorm, "pytorch": aten, "pytorch_hf": hf,
            "torch_compile": static_compile(hf)}


def traffic(shape):
    m, n = shape["args"]["M"], shape["args"]["N"]
    return 2 * m * n * 2 + n * 2, 4 * m * n
