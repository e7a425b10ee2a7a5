"""GPU speed, ready for a CUDA machine: PyTorch fp32, PyTorch fp16, ORT CUDA and ORT TensorRT rows for
the p-filter LM (smollm2-135m word scorer, the default detector's LM pass) and a token-classification
encoder (MiniLM with a token-classification head; speed only: the head is untrained unless --ner-model).
With --ner-model (a `deid-hf train-detector` folder, e.g. the cached `deid-detector-minilm`) it also runs that
model as users do, through `TokenClassificationDetector` (the transformers pipeline, length-sorted batches,
windows, label mapping) on this machine's CPU and on CUDA in fp32 and fp16, and reports the share of
documents whose spans (start, end, label) on CUDA equal the CPU's. ``x_first_row``: docs/s against the
model's first row (PyTorch fp32 on CUDA; for the detector, its CPU row).

Where a backend cannot run, its row says why ("not measured (no CUDA)", a missing execution provider, or the
error) and the script goes on; only the detector's reference row runs on the CPU (benchmarks/ort_speed.py has
the CPU rows).
Texts: presidio_synth_pii documents when ../shared/data has them, else the bundled examples repeated.
Usage: python benchmarks/gpu_speed.py [--docs 500] [--batch-size 32] [--ner-model PATH]
JSON: benchmarks/results/gpu_speed.json.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import DATA, print_table, write_results

BACKENDS = ("PyTorch fp32", "PyTorch fp16", "ORT CUDA fp32", "ORT TensorRT fp16")
ORT_PROVIDERS = {"ORT CUDA fp32": "cuda", "ORT TensorRT fp16": "tensorrt"}


def load_texts(limit: int) -> tuple[list[str], str]:
    gold = DATA / "presidio_synth_pii" / "synth_dataset_v2.json"
    if gold.exists():
        from deid_hf.evaluation.detection import load_gold

        return [d.text for d in load_gold(gold, limit=limit)], "presidio_synth_pii"
    from deid_hf.demo import bundled_examples

    texts = [e["text"] for e in bundled_examples()]
    return (texts * (limit // len(texts) + 1))[:limit], "bundled examples"


def docs_per_second(fn, texts: list[str], cuda_sync) -> float:
    fn(texts[:8])  # warm-up (kernels, TensorRT engine build)
    cuda_sync()
    start = time.perf_counter()
    fn(texts)
    cuda_sync()
    return len(texts) / (time.perf_counter() - start)


def why_not(backend: str) -> str | None:
    """None when ``backend`` can run here, else the reason its row is not measured."""
    import torch

    if not torch.cuda.is_available():
        return "not measured (no CUDA)"
    if backend in ORT_PROVIDERS:
        import onnxruntime

        from deid_hf.export.onnx import PROVIDERS

        name = PROVIDERS[ORT_PROVIDERS[backend]]
        if name not in onnxruntime.get_available_providers():
            return f"not measured (onnxruntime has no {name}: pip install deid-hf[gpu])"
    return None


def pfilter_runner(backend: str, batch_size: int, workdir: Path):
    import torch

    from deid_hf.detect.pfilter import CausalWordScorer
    from deid_hf.export.onnx import cached_export, load_ort_model
    from deid_hf.models import load_causal_lm

    model, tokenizer = load_causal_lm("smollm2-135m")
    if backend.startswith("PyTorch"):
        model = model.to("cuda", dtype=torch.float16 if "fp16" in backend else torch.float32)
    else:
        folder = cached_export("smollm2-135m", "causal-lm")
        options = {"trt_cache": workdir / "trt", "fp16": True} if "TensorRT" in backend else {}
        model = load_ort_model(folder, provider=ORT_PROVIDERS[backend], **options)
    scorer = CausalWordScorer(model, tokenizer, batch_size=batch_size)
    return scorer.score_batch


def encoder_runner(backend: str, batch_size: int, workdir: Path, ner_model: str | None):
    import torch
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    from deid_hf.export.onnx import export, load_ort_model
    from deid_hf.models import model_path

    source = ner_model or model_path("minilm")
    tokenizer = AutoTokenizer.from_pretrained(source)
    if backend.startswith("PyTorch"):
        model = AutoModelForTokenClassification.from_pretrained(source).eval()
        model = model.to("cuda", dtype=torch.float16 if "fp16" in backend else torch.float32)
        device = "cuda"
    else:
        folder = workdir / "encoder"
        if not (folder / "model.onnx").exists():
            export(ner_model or "minilm", folder, "token-classification")
        options = {"trt_cache": workdir / "trt", "fp16": True} if "TensorRT" in backend else {}
        model = load_ort_model(folder, "token-classification", provider=ORT_PROVIDERS[backend], **options)
        device = "cuda"

    def run(texts):
        labels = []
        for i in range(0, len(texts), batch_size):
            encoded = tokenizer(
                texts[i : i + batch_size], padding=True, truncation=True, max_length=512, return_tensors="pt"
            ).to(device)
            with torch.no_grad():
                labels.append(model(**encoded).logits.argmax(-1).cpu())
        return labels

    return run


def measured(row: dict, measure) -> dict:
    """``row`` updated with ``measure()``'s figures and status "measured", or with the error as its status
    (one backend's failure is that row's result); the CUDA cache is emptied after."""
    import torch

    try:
        row.update(measure())
        row["status"] = "measured"
    except Exception as exc:  # noqa: BLE001 - any failure is reported in the row
        row["status"] = f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    finally:
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return row


def detector_rows(ner_model: str, texts: list[str], batch_size: int, cuda_sync) -> list[dict]:
    """The learned detector through `TokenClassificationDetector` on the CPU, then on CUDA fp32 and fp16:
    docs/s and the share of documents whose spans equal the CPU's (the GPU path computes the same result)."""
    from deid_hf.detect.ner import TokenClassificationDetector

    rows, reference = [], []

    def measure(backend: str) -> dict:
        device = None if "CPU" in backend else "cuda"
        detector = TokenClassificationDetector(ner_model, batch_size=batch_size, device=device)
        if "fp16" in backend:
            detector.pipe.model.half()
        figures = {"docs_per_s": docs_per_second(detector.detect_batch, texts, cuda_sync)}
        found = [[(s.start, s.end, s.label) for s in spans] for spans in detector.detect_batch(texts)]
        if not reference:
            reference.extend(found)
        else:
            figures["same_spans_as_cpu"] = sum(a == b for a, b in zip(found, reference)) / len(texts)
        return figures

    for backend in ("PyTorch CPU fp32", "PyTorch CUDA fp32", "PyTorch CUDA fp16"):
        row = {"model": "learned detector (deid-hf)", "backend": backend, "docs_per_s": None}
        row["status"] = None if "CPU" in backend else why_not("PyTorch fp32")
        rows.append(row if row["status"] else measured(row, lambda backend=backend: measure(backend)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--ner-model", default=None, help="a local token-classification checkpoint")
    args = parser.parse_args()
    import torch

    def cuda_sync():
        if torch.cuda.is_available():
            torch.cuda.synchronize()

    texts, source = load_texts(args.docs)
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA device"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model_name in ("p-filter smollm2-135m", "token-classification MiniLM"):
            for backend in BACKENDS:
                row = {"model": model_name, "backend": backend, "docs_per_s": None}
                row["status"] = why_not(backend)
                if row["status"] is None:

                    def measure(model_name=model_name, backend=backend):
                        if model_name.startswith("p-filter"):
                            runner = pfilter_runner(backend, args.batch_size, Path(tmp))
                        else:
                            runner = encoder_runner(backend, args.batch_size, Path(tmp), args.ner_model)
                        return {"docs_per_s": docs_per_second(runner, texts, cuda_sync)}

                    measured(row, measure)
                rows.append(row)
    if args.ner_model:
        rows += detector_rows(args.ner_model, texts, args.batch_size, cuda_sync)
    for row in rows:
        base = next(r for r in rows if r["model"] == row["model"])
        if row["docs_per_s"] and base["docs_per_s"]:
            row["x_first_row"] = row["docs_per_s"] / base["docs_per_s"]
    print(f"{len(texts)} documents ({source}), batch size {args.batch_size}, device: {device}\n")
    print_table(rows, ["model", "backend", "docs_per_s", "x_first_row", "same_spans_as_cpu", "status"])
    write_results(
        "gpu_speed",
        {"device": device, "docs": len(texts), "texts": source, "batch_size": args.batch_size, "rows": rows},
    )


if __name__ == "__main__":
    main()
