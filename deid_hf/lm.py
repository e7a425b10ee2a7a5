"""Language-model helpers shared by the p-filter, ZSTS, NDD and the pipelines: the model kind, its window,
right padding, and log-softmax rows at chosen positions (the output layer run only where it is read)."""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

import torch

from .errors import InputError

#: the longest input any helper feeds a model at once (tokens), whatever its position embeddings allow
MAX_WINDOW = 512
#: the backends a pipeline or detector runs on: PyTorch ("pt", transformers' spelling) or ONNX Runtime
BACKENDS = ("pt", "onnx")
#: other spellings a ``backend=`` accepts, and the backend each means
BACKEND_ALIASES = {"pytorch": "pt"}


def check_backend(backend) -> str:
    """``backend`` in its canonical spelling (`BACKENDS`; "pytorch" is "pt"); else an InputError."""
    backend = BACKEND_ALIASES.get(backend, backend) if isinstance(backend, str) else backend
    if backend not in BACKENDS:
        raise InputError(f"backend must be 'pt' (or 'pytorch') or 'onnx', got {backend!r}")
    return backend


def lm_kind(model) -> str:
    """ "masked" for a fill-mask head, "causal" for a causal-LM head (PyTorch or ONNX Runtime model)."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    name = type(model).__name__
    if name in MODEL_FOR_MASKED_LM_MAPPING_NAMES.values() or name == "ORTModelForMaskedLM":
        return "masked"
    if name in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.values() or name == "ORTModelForCausalLM":
        return "causal"
    raise InputError(f"{name} has neither a fill-mask nor a causal-LM head: the p-filter needs one of them")


def is_language_model(model) -> bool:
    """True for a model with a fill-mask or causal-LM head (`lm_kind`)."""
    try:
        lm_kind(model)
    except InputError:
        return False
    return True


def is_token_classifier(config) -> bool:
    """True for a model config whose architecture is a token classifier ("BertForTokenClassification")."""
    return any(
        str(a).endswith("ForTokenClassification") for a in getattr(config, "architectures", None) or ()
    )


def is_onnx(model) -> bool:
    """True for an ONNX Runtime model (optimum's ``ORTModel*``)."""
    return type(model).__module__.startswith("optimum.onnxruntime")


def context_window(model) -> int:
    """Tokens the model reads at once: its position embeddings, at most ``MAX_WINDOW``."""
    limit = getattr(model.config, "max_position_embeddings", MAX_WINDOW) or MAX_WINDOW
    return min(limit, MAX_WINDOW)


def pad_id(tokenizer) -> int:
    """The id used for right padding: the tokenizer's pad token, else 0 (masked by the attention mask)."""
    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0


def model_device(model) -> torch.device:
    """Where inputs must live: ``model.device`` (PyTorch and ONNX Runtime models), else the CPU."""
    device = getattr(model, "device", None)
    return device if isinstance(device, torch.device) else torch.device("cpu")


def checked_device(device):
    """``device`` as a transformers pipeline takes it (None, -1, a GPU index, a name such as "cuda:1" or a
    ``torch.device``; a string of digits is an index), checked: an `InputError` for a name torch does not
    know or a CUDA GPU that is not there."""
    if isinstance(device, str) and device.strip().lstrip("-").isdigit():  # the CLI's --device 0
        device = int(device)
    if device is None or device == -1:
        return device
    usage = "-1, a GPU index, a name such as 'cpu' or 'cuda:1', or a torch.device"
    if isinstance(device, bool) or not isinstance(device, (int, str, torch.device)):
        raise InputError(f"device must be {usage}, got {device!r}")
    if isinstance(device, int):
        if device < 0:
            raise InputError(f"device must be {usage}, got {device!r}")
        if not torch.cuda.is_available() and _other_accelerator():  # transformers reads an index as its
            return device
        placed = torch.device("cuda", device)
    else:
        try:
            placed = torch.device(device)
        except (RuntimeError, ValueError):
            raise InputError(f"device must be {usage}, got {device!r}") from None
    if placed.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if not count:
            raise InputError(f"device {device!r} needs a CUDA GPU, and torch finds none on this machine")
        if (placed.index or 0) >= count:
            raise InputError(f"device {device!r}: torch finds {count} CUDA GPU(s), indices from 0")
    elif placed.type not in ("cpu", "meta"):  # mps, xpu, ...: the backend torch has for it must find one
        backend = getattr(torch.backends, placed.type, None) or getattr(torch, placed.type, None)
        if not getattr(backend, "is_available", lambda: False)():
            raise InputError(f"device {device!r}: torch finds no {placed.type} device on this machine")
    return device


def off_the_cpu(device) -> bool:
    """Whether ``device`` (as `checked_device` takes it) is one other than the CPU: where the learned models
    run their weights instead of the int8 graph."""
    device = checked_device(device)
    if device is None or device == -1:
        return False
    return isinstance(device, int) or torch.device(device).type != "cpu"  # an index: a GPU


def _other_accelerator() -> bool:
    """Whether torch has an Apple (mps) or Intel (xpu) GPU."""
    mps = getattr(torch.backends, "mps", None)
    xpu = getattr(torch, "xpu", None)
    return any(kind is not None and kind.is_available() for kind in (mps, xpu))


def padded(
    batch: list[list[int]], pad: int, width: int | None = None, device: torch.device | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """(input ids, attention mask) of ``batch`` right-padded with ``pad`` to ``width`` (default: longest),
    on ``device`` (default: the CPU)."""
    width = width or max(len(x) for x in batch)
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for i, row in enumerate(batch):
        ids[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1
    return ids.to(device or "cpu"), mask.to(device or "cpu")


def forward_logprobs(model, batch: list[list[int]], pad: int, width: int | None = None) -> torch.Tensor:
    """Log-softmax of the LM logits for right-padded ``batch`` (padded to ``width`` when given)."""
    ids, mask = padded(batch, pad, width, model_device(model))
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask).logits
    return torch.log_softmax(logits.float(), dim=-1)


@contextmanager
def logits_only_at(model, rows: torch.Tensor, cols: torch.Tensor):
    """Within the block, the model's output layer (vocabulary projection) runs only on hidden states
    [rows, cols], so ``.logits`` is (len(rows), vocab): the projection is the largest matrix of a small
    encoder and the p-filter reads one position per masked word. Models without a PyTorch output layer
    (ONNX Runtime) are left alone and return logits at every position."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if not isinstance(head, torch.nn.Module):
        yield
        return
    handle = head.register_forward_pre_hook(lambda _, args: (args[0][rows, cols], *args[1:]))
    try:
        yield
    finally:
        handle.remove()


def logprobs_at(
    model,
    batch: list[list[int]],
    positions: list[list[int]],
    pad: int,
    width: int | None = None,
    all_positions: bool = False,
) -> torch.Tensor:
    """Log-softmax rows at ``positions[b]`` of each right-padded sequence b, stacked in that order:
    (sum of len(positions[b]), vocab). ``all_positions``: compute the logits at every position and index them
    (the naive reference); otherwise the output layer runs only at the rows read."""
    device = model_device(model)
    ids, mask = padded(batch, pad, width, device)
    rows = torch.tensor([b for b, p in enumerate(positions) for _ in p], dtype=torch.long, device=device)
    cols = torch.tensor([c for p in positions for c in p], dtype=torch.long, device=device)
    with torch.no_grad(), nullcontext() if all_positions else logits_only_at(model, rows, cols):
        logits = model(input_ids=ids, attention_mask=mask).logits
    if logits.dim() == 3:
        logits = logits[rows, cols]
    return torch.log_softmax(logits.float(), dim=-1)
