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
import json
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


DETECTOR_BACKENDS = ("PyTorch CPU fp32", "PyTorch CUDA fp32", "PyTorch CUDA fp16", "PyTorch CUDA bf16")


def detector_model(folder: str):
    """(model, tokenizer) of a trained folder in fp32. A shipped folder stores int8 linear weights with
    per-channel scales (compressed-tensors); where that package is not installed (a bare GPU machine) the
    weights are multiplied out here: the same fp32 model transformers would load."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModelForTokenClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    try:
        import compressed_tensors  # noqa: F401
    except ImportError:
        settings = json.loads((Path(folder) / "config.json").read_text())
        if "quantization_config" in settings:
            del settings["quantization_config"]
            config = AutoConfig.for_model(**settings)
            model = AutoModelForTokenClassification.from_config(config)
            stored = load_file(str(Path(folder) / "model.safetensors"))
            state = {
                name: stored[name].float() * stored[f"{name}_scale"]
                if stored[name].dtype == torch.int8
                else stored[name].float()
                for name in stored
                if not name.endswith("_scale")
            }
            model.load_state_dict(state, strict=False)
            return model.eval(), tokenizer
    return AutoModelForTokenClassification.from_pretrained(folder, dtype=torch.float32).eval(), tokenizer


def steady_docs_per_second(fn, texts: list[str], cuda_sync, passes: int = 3) -> float:
    """docs/s, the median of ``passes`` full passes after a first one (every batch shape already met)."""
    import statistics

    fn(texts)
    cuda_sync()
    seconds = []
    for _ in range(passes):
        start = time.perf_counter()
        fn(texts)
        cuda_sync()
        seconds.append(time.perf_counter() - start)
    return len(texts) / statistics.median(seconds)


def one_after_another(detector):
    """`detect_batch`'s entities with its stages run one after another: each batch's forward pass, then its
    decoding (no overlap with the next batch)."""
    from deid_hf.detect.windows import merged_windows

    def run(texts):
        windows = detector.tokenise(sorted(texts, key=len))
        per_text = [[] for _ in texts]
        for first in range(0, len(windows), detector.batch_size):
            batch = windows[first : first + detector.batch_size]
            scores, labels = detector.forward(batch)
            for row, window in enumerate(batch):
                tokens = len(window.ids)
                per_text[window.text].append(
                    detector.decode(scores[row, :tokens], labels[row, :tokens], window)
                )
        return [merged_windows([e for window in parts for e in window]) for parts in per_text]

    return run


def forward_alone(detector, texts: list[str]):
    """The model's forward pass alone over the detector's windows of ``texts``, in the batches and shapes
    `detect_batch` gives it: inputs built and put on the device beforehand, outputs left there."""
    import torch

    from deid_hf.detect.ner import GPU_WIDTH_MULTIPLE
    from deid_hf.detect.windows import batch_inputs

    windows = detector.tokenise(sorted(texts, key=len))
    size, pad = detector.batch_size, detector.pipe.tokenizer.pad_token_id
    multiple = GPU_WIDTH_MULTIPLE if detector.pipe.device.type == "cuda" else 1  # widths as `start_forward`'s
    batches = [
        {
            k: torch.from_numpy(v).to(detector.pipe.device)
            for k, v in batch_inputs(windows[i : i + size], pad, multiple).items()
        }
        for i in range(0, len(windows), size)
    ]

    def run(_texts):
        with torch.no_grad():
            for inputs in batches:
                detector.pipe.model(**inputs)

    return run


def detector_rows(ner_model: str, texts: list[str], batch_sizes: list[int], cuda_sync) -> list[dict]:
    """The learned detector through `TokenClassificationDetector` on the CPU, then on CUDA in fp32, fp16 and
    bf16, at each batch size: docs/s end to end (`detect_batch`: tokenising, forward, decoding, spans) on a
    first pass (each batch shape met for the first time) and after it (`steady_docs_per_second`), of the
    same stages run one after another (`one_after_another`), and of the forward pass alone
    (`forward_alone`); the share of documents whose spans (start, end, label) equal the CPU's."""
    import copy

    import torch

    from deid_hf.detect.ner import TokenClassificationDetector

    base, tokenizer = detector_model(ner_model)
    rows, reference = [], []

    def measure(backend: str, batch_size: int) -> dict:
        device = "cpu" if "CPU" in backend else "cuda"
        detector = TokenClassificationDetector(
            copy.deepcopy(base), tokenizer, batch_size=batch_size, device=device
        )
        if "fp16" in backend:
            detector.pipe.model.half()
        elif "bf16" in backend:
            detector.pipe.model.to(torch.bfloat16)
        start = time.perf_counter()
        windows = len(detector.tokenise(texts))
        tokenise_s = time.perf_counter() - start
        figures = {
            "first_pass_docs_per_s": docs_per_second(detector.detect_batch, texts, cuda_sync),
            "docs_per_s": steady_docs_per_second(detector.detect_batch, texts, cuda_sync),
            "one_after_another_docs_per_s": steady_docs_per_second(
                one_after_another(detector), texts, cuda_sync
            ),
            "forward_alone_docs_per_s": steady_docs_per_second(
                forward_alone(detector, texts), texts, cuda_sync
            ),
            "tokenise_s": tokenise_s,
            "windows": windows,
        }
        figures["x_forward_alone"] = figures["docs_per_s"] / figures["forward_alone_docs_per_s"]
        found = [[(s.start, s.end, s.label) for s in spans] for spans in detector.detect_batch(texts)]
        if not reference:
            reference.extend(found)
        else:
            figures["same_spans_as_cpu"] = sum(a == b for a, b in zip(found, reference)) / len(texts)
        return figures

    for batch_size in batch_sizes:
        for backend in DETECTOR_BACKENDS:
            if "CPU" in backend and batch_size != batch_sizes[0]:
                continue
            row = {"model": "learned detector (deid-hf)", "backend": backend, "batch_size": batch_size}
            row["status"] = None if "CPU" in backend else why_not("PyTorch fp32")
            rows.append(
                row if row["status"] else measured(row, lambda b=backend, n=batch_size: measure(b, n))
            )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--ner-model", default=None, help="a local token-classification checkpoint")
    parser.add_argument(
        "--detector-batch-sizes", default=None, help="comma-separated batch sizes of the detector rows"
    )
    parser.add_argument("--texts", type=Path, default=None, help="a JSON list of texts to read instead")
    parser.add_argument(
        "--detector-only", action="store_true", help="only the learned detector's rows (needs --ner-model)"
    )
    args = parser.parse_args()
    import torch

    def cuda_sync():
        if torch.cuda.is_available():
            torch.cuda.synchronize()

    if args.texts:
        texts, source = json.loads(args.texts.read_text())[: args.docs], args.texts.name
    else:
        texts, source = load_texts(args.docs)
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA device"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model_name in (
            () if args.detector_only else ("p-filter smollm2-135m", "token-classification MiniLM")
        ):
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
    print(f"{len(texts)} documents ({source}), batch size {args.batch_size}, device: {device}\n")
    if rows:
        for row in rows:
            base = next(r for r in rows if r["model"] == row["model"])
            if row["docs_per_s"] and base["docs_per_s"]:
                row["x_first_row"] = row["docs_per_s"] / base["docs_per_s"]
        print_table(rows, ["model", "backend", "docs_per_s", "x_first_row", "status"])
    detector = []
    if args.ner_model:
        sizes = [int(n) for n in (args.detector_batch_sizes or str(args.batch_size)).split(",")]
        detector = detector_rows(args.ner_model, texts, sizes, cuda_sync)
        cpu = detector[0].get("docs_per_s")
        for row in detector:
            if row.get("docs_per_s") and cpu:
                row["x_cpu"] = row["docs_per_s"] / cpu
        print()
        print_table(
            detector,
            [
                "backend",
                "batch_size",
                "first_pass_docs_per_s",
                "docs_per_s",
                "x_cpu",
                "one_after_another_docs_per_s",
                "forward_alone_docs_per_s",
                "x_forward_alone",
                "tokenise_s",
                "same_spans_as_cpu",
                "status",
            ],
        )
    write_results(
        "gpu_speed",
        {
            "device": device,
            "docs": len(texts),
            "texts": source,
            "batch_size": args.batch_size,
            "rows": rows,
            "detector_rows": detector,
        },
    )


if __name__ == "__main__":
    main()
