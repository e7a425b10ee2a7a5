"""PyTorch fp32 vs ONNX Runtime fp32 vs ONNX Runtime int8, same run, on presidio_synth_pii documents:
the p-filter scorer (smollm2-135m, causal) and the embedding model (MiniLM, feature extraction).

Also the agreement of int8 with fp32: the share of words flagged at p = 1e-2 by fp32 that int8 also flags.
CUDA / TensorRT providers run only where onnxruntime-gpu and a GPU are present (rows marked otherwise).
Usage: python benchmarks/ort_speed.py [--docs N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import onnxruntime
import torch
from _common import data_path, print_table, write_results

from deid_hf.detect.pfilter import CausalWordScorer
from deid_hf.evaluation.detection import load_gold
from deid_hf.export.onnx import PROVIDERS, cached_export, export, load_ort_model
from deid_hf.models import load_causal_lm, load_encoder


def docs_per_second(fn, texts, repeats=1):
    fn(texts[:8])  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        result = fn(texts)
    return len(texts) * repeats / (time.perf_counter() - start), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=200)
    args = parser.parse_args()
    torch.set_num_threads(2)
    texts = [
        d.text for d in load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"), limit=args.docs)
    ]
    rows, agreement = [], {}

    model, tokenizer = load_causal_lm("smollm2-135m")
    folder = cached_export("smollm2-135m", "causal-lm")
    flagged = {}
    backends = {
        "PyTorch fp32": model,
        "ORT fp32 (CPU)": load_ort_model(folder),
        "ORT int8 (CPU)": load_ort_model(folder, int8=True),
    }
    for name, lm in backends.items():
        scorer = CausalWordScorer(lm, tokenizer, batch_size=16)
        speed, scores = docs_per_second(scorer.score_batch, texts)
        flagged[name] = {
            (i, w.start) for i, doc in enumerate(scores) for w in doc if w.scored and w.probability < 1e-2
        }
        rows.append({"model": "p-filter smollm2-135m", "backend": name, "docs_per_s": speed})
    base = flagged["PyTorch fp32"]
    for name in backends:
        agreement[name] = len(flagged[name] & base) / max(1, len(base))

    encoder, enc_tok = load_encoder("minilm")
    with tempfile.TemporaryDirectory() as tmp:
        export("minilm", Path(tmp) / "minilm", "feature-extraction", int8=True)
        encoders = {
            "PyTorch fp32": encoder,
            "ORT fp32 (CPU)": load_ort_model(Path(tmp) / "minilm", "feature-extraction"),
            "ORT int8 (CPU)": load_ort_model(Path(tmp) / "minilm", "feature-extraction", int8=True),
        }

        def embed(lm):
            def run(batch):
                out = []
                for i in range(0, len(batch), 32):
                    enc = enc_tok(batch[i : i + 32], padding=True, truncation=True, return_tensors="pt")
                    with torch.no_grad():
                        out.append(lm(**enc).last_hidden_state[:, 0])
                return out

            return run

        for name, lm in encoders.items():
            speed, _ = docs_per_second(embed(lm), texts, repeats=3)
            rows.append({"model": "MiniLM embeddings", "backend": name, "docs_per_s": speed})
    for provider in ("cuda", "tensorrt"):
        available = PROVIDERS[provider] in onnxruntime.get_available_providers()
        rows.append(
            {
                "model": "p-filter smollm2-135m",
                "backend": f"ORT {provider}",
                "docs_per_s": None if not available else "run on a GPU machine",
            }
        )
    for row in rows:
        base_row = next(r for r in rows if r["model"] == row["model"] and r["backend"] == "PyTorch fp32")
        if isinstance(row["docs_per_s"], float):
            row["x_pytorch"] = row["docs_per_s"] / base_row["docs_per_s"]
    print(f"{len(texts)} presidio_synth_pii documents, {torch.get_num_threads()} threads\n")
    print_table(rows, ["model", "backend", "docs_per_s", "x_pytorch"])
    print(
        "\nwords flagged at p = 1e-2 by PyTorch fp32 that each backend also flags: "
        + ", ".join(f"{k} {v:.3f}" for k, v in agreement.items())
    )
    write_results("ort_speed", {"docs": len(texts), "rows": rows, "flag_agreement": agreement})


if __name__ == "__main__":
    main()
