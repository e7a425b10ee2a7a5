"""The raw forward pass of the learned detector's encoder on CUDA: fp32, fp16 weights, bf16 and fp16 autocast,
at fixed batch shapes (no tokenising, no pipeline): what the model itself costs on a GPU, the ceiling for
`benchmarks/gpu_speed.py`'s pipeline rows.

Needs only torch and transformers (it runs on a GPU machine without deid-hf's other dependencies): the
encoder's config.json (MiniLM-L6, a BERT) with a fresh 27-label head and random weights, since speed does
not depend on the values. Each row: the mean of 20 timed batches after 3 warm-up ones, CUDA synchronised.
Usage: python3 benchmarks/gpu_forward.py [--config PATH] [--shapes 1x256,32x256,256x256]
JSON: benchmarks/results/gpu_forward.json (next to this file).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROWS = ("fp32", "fp16 weights", "bf16 autocast", "fp16 autocast")


def main() -> None:
    import torch
    from transformers import BertConfig, BertForTokenClassification

    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=str(HERE.parent / ".devcarry" / "config.json"))
    parser.add_argument("--shapes", default="1x256,32x256,256x256", help="batch x tokens, comma-separated")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("not measured: no CUDA device")
    if not Path(args.config).is_file():
        raise SystemExit(
            f"no encoder config at {args.config}: pass --config (MiniLM's config.json), or run "
            "`python benchmarks/device_training.py prepare ...` first, which copies it there"
        )
    config = BertConfig.from_json_file(args.config)
    config.num_labels = 27
    fp32 = BertForTokenClassification(config).cuda().eval()
    fp16 = BertForTokenClassification(config).cuda().eval().half()
    runs = {
        "fp32": (fp32, None),
        "fp16 weights": (fp16, None),
        "bf16 autocast": (fp32, torch.bfloat16),
        "fp16 autocast": (fp32, torch.float16),
    }
    rows = []
    for shape in args.shapes.split(","):
        batch, tokens = map(int, shape.split("x"))
        ids = torch.randint(1000, 20000, (batch, tokens), device="cuda")
        mask = torch.ones_like(ids)
        for name in ROWS:
            model, dtype = runs[name]
            with (
                torch.no_grad(),
                torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None),
            ):
                for _ in range(3):
                    model(input_ids=ids, attention_mask=mask)
                torch.cuda.synchronize()
                start = time.perf_counter()
                for _ in range(20):
                    model(input_ids=ids, attention_mask=mask)
                torch.cuda.synchronize()
                seconds = (time.perf_counter() - start) / 20
            rows.append(
                {"shape": shape, "run": name, "ms_per_batch": seconds * 1e3, "windows_per_s": batch / seconds}
            )
    print(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    print("| shape | run | ms per batch | windows/s |\n|---|---|---|---|")
    for row in rows:
        print(f"| {row['shape']} | {row['run']} | {row['ms_per_batch']:.2f} | {row['windows_per_s']:.0f} |")
    out = HERE / "results" / "gpu_forward.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": rows})
    )


if __name__ == "__main__":
    main()
