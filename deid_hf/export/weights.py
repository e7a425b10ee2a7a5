"""Small PyTorch weights for shipped model folders: int8 linear layers in the compressed-tensors format.

The linear layers' weights are rounded to int8 with one symmetric scale per output channel (round to
nearest), everything else (embeddings, layer norms, the classifier head) is stored in fp16. transformers
loads such a folder directly (``compressed-tensors`` installed): ``from_pretrained`` and ``pipeline`` work
unchanged. The result is about three quarters of an fp16 checkpoint's size.
"""

from __future__ import annotations

import json
from pathlib import Path

#: modules left in fp16: the token classifier's output layer decides every label
KEEP_FP16 = ["classifier"]


def _int8_scheme():
    from compressed_tensors.quantization import QuantizationArgs, QuantizationScheme

    weights = QuantizationArgs(num_bits=8, type="int", symmetric=True, strategy="channel")
    return QuantizationScheme(targets=["Linear"], weights=weights)


def save_int8_weights(model, folder: str | Path) -> Path:
    """Save ``model`` (an fp32 transformers model, changed in place) to ``folder`` with int8 linear
    weights; returns the weights file."""
    import torch
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import QuantizationConfig, apply_quantization_config
    from compressed_tensors.quantization.utils import calculate_qparams
    from compressed_tensors.utils import update_offload_parameter
    from loguru import logger

    logger.disable("compressed_tensors")  # its format guess warns for every layer; the format is given here
    config = QuantizationConfig(
        config_groups={"group_0": _int8_scheme()}, ignore=KEEP_FP16, quantization_status="initialized"
    )
    apply_quantization_config(model, config)
    for module in model.modules():
        scheme = getattr(module, "quantization_scheme", None)
        if scheme is None or not isinstance(module, torch.nn.Linear):
            continue
        weight = module.weight.data
        low = torch.amin(weight, dim=1, keepdim=True)
        high = torch.amax(weight, dim=1, keepdim=True)
        scale, zero_point = calculate_qparams(low, high, scheme.weights)
        update_offload_parameter(module, "weight_scale", scale)
        update_offload_parameter(module, "weight_zero_point", zero_point)
    model.half()
    for module in model.modules():  # fp32 scales: the int8 weights come back as fp32 on loading
        if hasattr(module, "weight_scale"):
            module.weight_scale.data = module.weight_scale.data.float()
    compressor = ModelCompressor.from_pretrained_model(model, quantization_format="int-quantized")
    compressor.compress_model(model)
    model.save_pretrained(folder, safe_serialization=True)
    compressor.update_config(str(folder))
    # loaded (and run, also by `pipeline`, whose dtype is "auto") in fp32 like the int8 weights' scales:
    # fp16 is only how the other tensors are stored
    config_file = Path(folder) / "config.json"
    config = json.loads(config_file.read_text())
    config.update({key: "float32" for key in ("torch_dtype", "dtype") if key in config})
    config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    return Path(folder) / "model.safetensors"
