"""Why ONNX Runtime was not faster than PyTorch for MiniLM, and which configuration makes it pay off.

One MiniLM token classifier (the learned detector's folder, or the untrained head on minilm with
``--model minilm``), the same documents, the same run: PyTorch fp32 against ONNX Runtime fp32 / int8 under
- session options: ORT defaults (as optimum loads them) vs ``intra_op_num_threads`` = physical cores with
  thread spinning off (`deid_hf.export.onnx.session_options`);
- batching: unsorted documents padded to the longest of each batch vs batches of similar length;
- int8 quantization config: Optimum's AVX2 vs AVX-512 VNNI dynamic config (this CPU's flags are printed)
  vs deid-hf's own (`deid_hf.export.onnx.quantize`: fused encoder, int8 weights per channel, 7-bit range);
- graph optimisation: ORT_ENABLE_BASIC vs ORT_ENABLE_ALL.
Measured as raw forward passes (tokenised batches, no pipeline) so the backends differ only in the model
call, and the flagged tokens (argmax != O) of each int8 variant are compared with fp32.
Usage: python benchmarks/ort_tuning.py --model DIR [--docs 200] [--repeats 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import onnxruntime
import torch
from _common import data_path, print_table, write_results

from deid_hf.corpora import PRESIDIO_FILE, PRESIDIO_HELD_OUT
from deid_hf.evaluation.detection import load_gold
from deid_hf.export.onnx import QUANTIZED_FILE, cpu_flags, export, quantize, session_options


def batches(tokenizer, texts, batch_size, sort):
    order = sorted(range(len(texts)), key=lambda i: len(texts[i])) if sort else list(range(len(texts)))
    out = []
    for i in range(0, len(order), batch_size):
        chunk = [texts[j] for j in order[i : i + batch_size]]
        out.append(tokenizer(chunk, padding=True, truncation=True, max_length=256, return_tensors="pt"))
    return out


def timed(model, encoded, repeats):
    with torch.no_grad():
        model(**encoded[0])  # warm-up
        start = time.perf_counter()
        for _ in range(repeats):
            logits = [torch.as_tensor(model(**enc).logits) for enc in encoded]
    return time.perf_counter() - start, logits


def flagged(logits, encoded):
    out = set()
    for b, (lg, enc) in enumerate(zip(logits, encoded)):
        mask = enc["attention_mask"].bool()
        for i, j in (lg.argmax(-1).ne(0) & mask).nonzero().tolist():
            out.add((b, i, j))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--model", required=True, help="token-classification folder (with model.onnx) or minilm"
    )
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--notes", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    from optimum.onnxruntime import ORTModelForTokenClassification, ORTQuantizer
    from optimum.onnxruntime.configuration import AutoQuantizationConfig
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    from deid_hf.models import model_path
    from deid_hf.spans import BIO_LABELS

    torch.set_num_threads(2)
    flags = cpu_flags()
    isa = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8") if f in flags]
    held = PRESIDIO_HELD_OUT
    presidio = [d.text for d in load_gold(data_path(PRESIDIO_FILE))[held.start : held.stop]]
    notes = [__import__("json").loads(x)["text"] for x in data_path("physionet_deid_dev/notes.jsonl").open()]
    corpora = {"presidio 750+": presidio[: args.docs], "dev notes": notes[: args.notes]}
    with tempfile.TemporaryDirectory() as tmp:
        folder = source = Path(args.model)
        if not (folder / "model.onnx").is_file():
            source = Path(tmp) / "src"
            labels = dict(enumerate(BIO_LABELS))
            AutoModelForTokenClassification.from_pretrained(
                model_path(args.model), num_labels=len(labels), id2label=labels
            ).save_pretrained(Path(tmp) / "src")
            AutoTokenizer.from_pretrained(model_path(args.model)).save_pretrained(Path(tmp) / "src")
            folder = export(str(Path(tmp) / "src"), Path(tmp) / "onnx", "token-classification")
        work = Path(tmp) / "variants"
        work.mkdir()
        for name in ("model.onnx", "config.json"):
            (work / name).write_bytes((folder / name).read_bytes())
        quantizer = ORTQuantizer.from_pretrained(work, file_name="model.onnx")
        quantizer.quantize(
            save_dir=work,
            quantization_config=AutoQuantizationConfig.avx2(is_static=False),
            file_suffix="avx2",
        )
        quantizer.quantize(
            save_dir=work,
            quantization_config=AutoQuantizationConfig.avx512_vnni(is_static=False),
            file_suffix="vnni",
        )
        quantize(work)
        tokenizer = AutoTokenizer.from_pretrained(source)
        pytorch = AutoModelForTokenClassification.from_pretrained(source).eval()
        basic = session_options()
        basic.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC

        def ort(file, options):
            return ORTModelForTokenClassification.from_pretrained(
                work, file_name=file, session_options=options
            )

        variants = {
            "PyTorch fp32": lambda: pytorch,
            "ORT fp32, ORT default session": lambda: ort("model.onnx", None),
            "ORT fp32, tuned session": lambda: ort("model.onnx", session_options()),
            "ORT fp32, tuned session, graph opt BASIC": lambda: ort("model.onnx", basic),
            "ORT int8 AVX2 config, ORT default session": lambda: ort("model_avx2.onnx", None),
            "ORT int8 AVX2 config, tuned session": lambda: ort("model_avx2.onnx", session_options()),
            "ORT int8 AVX-512 VNNI config, tuned session": lambda: ort("model_vnni.onnx", session_options()),
            "ORT int8 deid-hf quantize, tuned session": lambda: ort(QUANTIZED_FILE, session_options()),
        }
        rows, agreement = [], {}
        for corpus, texts in corpora.items():
            for sort in (False, True):
                encoded = batches(tokenizer, texts, args.batch_size, sort)
                padded = sum(int(e["input_ids"].numel()) for e in encoded)
                real = sum(int(e["attention_mask"].sum()) for e in encoded)
                base = None
                for name, make in variants.items():
                    model = make()
                    seconds, logits = timed(model, encoded, args.repeats)
                    speed = len(texts) * args.repeats / seconds
                    if name == "PyTorch fp32":
                        base, base_flags = speed, flagged(logits, encoded)
                    if sort and "int8" in name:
                        mine = flagged(logits, encoded)
                        agreement[f"{corpus}: {name}"] = {
                            "fp32_flagged_also_int8": len(mine & base_flags) / max(1, len(base_flags)),
                            "int8_flagged_also_fp32": len(mine & base_flags) / max(1, len(mine)),
                        }
                    rows.append(
                        {
                            "corpus": corpus,
                            "batches": "by length" if sort else "unsorted",
                            "padding": f"{padded / real - 1:.0%}",
                            "backend": name,
                            "docs_per_s": speed,
                            "x_pytorch": speed / base,
                        }
                    )
    print(
        f"CPU flags: {', '.join(isa)}; torch threads {torch.get_num_threads()}; "
        f"onnxruntime {onnxruntime.__version__}\n"
    )
    print_table(rows, ["corpus", "batches", "padding", "backend", "docs_per_s", "x_pytorch"])
    print("\nflagged tokens (argmax != O), int8 vs PyTorch fp32:")
    for key, value in agreement.items():
        print(
            f"  {key}: {value['fp32_flagged_also_int8']:.3f} of fp32's also int8, "
            f"{value['int8_flagged_also_fp32']:.3f} of int8's also fp32"
        )
    write_results("ort_tuning", {"cpu_flags": isa, "rows": rows, "int8_agreement": agreement})


if __name__ == "__main__":
    main()
