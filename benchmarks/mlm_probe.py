"""A weak but trained English masked LM for measuring how far the p-filter's fast path departs from the exact
path (an untrained head gives near-uniform probabilities, so agreement measured with it says nothing).

No English masked LM with its MLM head can be had offline here, so this fine-tunes the whole MiniLM-L6
encoder plus a fresh MLM head on SST-2 train sentences and SNLI premises (never on presidio or wikigold) for
a fixed time budget on CPU, and reports masked-token top-1/top-5 accuracy on held-out SST-2 dev sentences.
It is a measuring instrument, not a model for users (far weaker than bert-base). Cached under
~/.cache/deid_hf/benchmarks/minilm-mlm-probe; the first run trains (``--minutes``, default 25).
Usage: python benchmarks/mlm_probe.py [--minutes M]
"""

from __future__ import annotations

import argparse
import json
import random
import time

import torch
from _common import data_path
from transformers import BertForMaskedLM, DataCollatorForLanguageModeling

from deid_hf.models import load_tokenizer, model_path
from deid_hf.paths import cache_dir

PROBE = cache_dir() / "benchmarks" / "minilm-mlm-probe"


def _sentences() -> tuple[list[str], list[str]]:
    train = [
        line.split("\t", 1)[1].strip() for line in data_path("sst2/train.tsv").read_text().splitlines()[1:]
    ]
    for name in ("snli_1.0_dev.jsonl", "snli_1.0_test.jsonl"):
        train += list(
            {
                json.loads(line)["sentence1"]
                for line in data_path(f"snli_partial/{name}").read_text().splitlines()
            }
        )
    held_out = [
        line.split("\t", 1)[1].strip() for line in data_path("sst2/dev.tsv").read_text().splitlines()[1:]
    ]
    return [s for s in train if len(s.split()) >= 5], held_out


def accuracy(model, tokenizer, sentences: list[str], seed: int = 0) -> dict:
    """Top-1 / top-5 accuracy on 15% randomly masked tokens of ``sentences``."""
    collator = DataCollatorForLanguageModeling(
        tokenizer, mlm_probability=0.15, mask_replace_prob=1.0, random_replace_prob=0.0
    )
    torch.manual_seed(seed)
    hits1 = hits5 = total = 0
    model.eval()
    for b in range(0, len(sentences), 64):
        batch = collator([tokenizer(s, truncation=True, max_length=64) for s in sentences[b : b + 64]])
        with torch.no_grad():
            logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        chosen = batch["labels"] != -100
        top5 = logits[chosen].topk(5, dim=-1).indices
        gold = batch["labels"][chosen]
        hits1 += (top5[:, 0] == gold).sum().item()
        hits5 += (top5 == gold[:, None]).any(dim=1).sum().item()
        total += len(gold)
    return {"top1": hits1 / total, "top5": hits5 / total, "masked_tokens": total}


def train_probe(minutes: float, batch_size: int = 32, seed: int = 0) -> dict:
    torch.manual_seed(seed)
    tokenizer = load_tokenizer("minilm")
    model = BertForMaskedLM.from_pretrained(model_path("minilm"))
    train, held_out = _sentences()
    random.Random(seed).shuffle(train)
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=0.15)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4, weight_decay=0.01)
    before = accuracy(model, tokenizer, held_out[:400])
    model.train()
    deadline, step, start = time.monotonic() + minutes * 60, 0, time.monotonic()
    while time.monotonic() < deadline:
        rows = train[(step * batch_size) % len(train) :][:batch_size]
        batch = collator([tokenizer(s, truncation=True, max_length=64) for s in rows])
        warmup = min(1.0, (step + 1) / 100)
        for group in optimizer.param_groups:
            group["lr"] = 2e-4 * warmup
        loss = model(**batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        step += 1
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.3f} ({time.monotonic() - start:.0f} s)", flush=True)
    after = accuracy(model, tokenizer, held_out)
    tmp = PROBE.with_name(PROBE.name + ".tmp")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    report = {
        "steps": step,
        "batch_size": batch_size,
        "minutes": minutes,
        "untrained_head": before,
        "held_out_sst2_dev": after,
    }
    (tmp / "probe.json").write_text(json.dumps(report, indent=2))
    tmp.replace(PROBE)
    return report


def load_probe(minutes: float = 25):
    """The probe MLM and its report, trained on first use."""
    if not (PROBE / "probe.json").exists():
        PROBE.parent.mkdir(parents=True, exist_ok=True)
        train_probe(minutes)
    from transformers import AutoTokenizer

    return (
        BertForMaskedLM.from_pretrained(PROBE).eval(),
        AutoTokenizer.from_pretrained(PROBE),
        json.loads((PROBE / "probe.json").read_text()),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=25)
    args = parser.parse_args()
    torch.set_num_threads(2)
    print(json.dumps(load_probe(args.minutes)[2], indent=2))
