import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from deid_hf.errors import InputError
from deid_hf.models import verified_folder
from deid_hf.paraphrase import ClampBounds
from deid_hf.train.paraphraser import (
    ADAPTER_FILE,
    ParaphraserConfig,
    default_pairs,
    encode_pair,
    read_pairs,
    split_pairs,
    train_paraphraser,
)
from tests.conftest import shared_data, tiny_llama
from tests.export.test_cards import check_hub_card

PAIRS = [
    (f"The {animal} sat on the {thing} number {n}.", f"A {animal} was sitting on the {thing} {n}.")
    for n in range(3)
    for animal in ("cat", "dog", "bird")
    for thing in ("mat", "sofa", "roof")
]
CONFIG = ParaphraserConfig(
    epochs=2,
    batch_size=4,
    gradient_accumulation_steps=2,
    learning_rate=5e-3,
    eval_fraction=0.15,
    eval_every=2,
    save_every=3,
    seed=7,
)
#: every weight fine-tuned instead of a LoRA adapter
FULL = dataclasses.replace(CONFIG, lora_rank=0)


@pytest.fixture(scope="module")
def tokenizer(smollm2):
    return smollm2[1]


def test_pairs_encode_prompt_then_paraphrase(tokenizer):
    row = encode_pair(tokenizer, "Hello there.", "Hi.", 96)
    prompt_ids = tokenizer("Hello there. =>")["input_ids"]
    assert row["input_ids"][: len(prompt_ids)] == prompt_ids
    assert row["labels"][: len(prompt_ids)] == [-100] * len(prompt_ids)
    target = row["input_ids"][len(prompt_ids) :]
    assert row["labels"][len(prompt_ids) :] == target and target[-1] == tokenizer.eos_token_id
    assert tokenizer.decode(target[:-1]) == " Hi."


def test_split_keeps_a_pair_and_its_reverse_together():
    pairs = [(a, b) for a, b in PAIRS] + [(b, a) for a, b in PAIRS]
    train, held = split_pairs(pairs, 0.2, seed=1)
    assert len(train) + len(held) == len(pairs) and held
    held_keys = {frozenset(p) for p in held}
    assert not any(frozenset(p) in held_keys for p in train)


@pytest.mark.data
def test_default_pairs_follow_the_paper_filters():
    root = shared_data("stsbenchmark").parent
    pairs = default_pairs(root)
    assert len(pairs) > 3000
    assert pairs[0] == (pairs[1][1], pairs[1][0])  # STS-B in both directions
    with pytest.raises(InputError, match="needs"):
        default_pairs(root / "nowhere")


def test_read_pairs_names_the_bad_line(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"source": "a", "paraphrase": "b"}\n{"source": "a"}\n')
    with pytest.raises(InputError, match=":2:"):
        read_pairs(path)
    path.write_text('{"source": "a", "paraphrase": 3}\n')
    with pytest.raises(InputError, match=":1: expected"):
        read_pairs(path)
    with pytest.raises(InputError, match="does not exist"):
        read_pairs(tmp_path / "none.jsonl")


def _train(tmp_path, tokenizer, name, config=CONFIG, **kwargs):
    model = tiny_llama(tokenizer, tie_word_embeddings=True).train()  # tied like smollm2
    return train_paraphraser(
        PAIRS, tmp_path / name, config, model=model, tokenizer=tokenizer, progress=False, **kwargs
    )


@pytest.mark.slow
@pytest.mark.parametrize("config", [CONFIG, FULL], ids=["adapter", "full"])
def test_training_lowers_held_out_loss_and_writes_a_checkpoint(tmp_path, tokenizer, config):
    metrics = _train(tmp_path, tokenizer, "full", config)
    out = tmp_path / "full"
    assert metrics["completed"] and metrics["steps"] == metrics["total_steps"] == 2 * 3  # 23 pairs: 6 batches
    assert metrics["eval_loss"] < metrics["eval_loss_before"]
    if config.lora_rank:  # the adapter alone, its bounds beside it
        assert (out / "adapter_model.safetensors").is_file() and not (out / "model.safetensors").exists()
        assert json.loads((out / "adapter_config.json").read_text())["r"] == config.lora_rank
        stored = json.loads((out / ADAPTER_FILE).read_text())
    else:
        stored = json.loads((out / "config.json").read_text())
    assert ClampBounds(**stored["deid_hf_clamp"]).sensitivity > 0
    assert verified_folder(out) == out and not (out / "checkpoints").exists()  # a completed run
    assert (out / "tokenizer.json").is_file() and "Privacy parameters" in (out / "README.md").read_text()
    check_hub_card(out / "README.md", forbidden=(str(tmp_path),))
    assert json.loads((out / "deid_hf_training.json").read_text())["metrics"]["steps"] == 6


@pytest.mark.slow
def test_resumed_training_reaches_the_same_weights_and_loss(tmp_path, tokenizer):
    full = _train(tmp_path, tokenizer, "full", FULL)
    stopped = _train(tmp_path, tokenizer, "resumed", FULL, stop_after=4)
    assert (
        not stopped["completed"]
        and stopped["steps"] == 4
        and not (tmp_path / "resumed" / "config.json").exists()
    )
    assert sorted(p.name for p in (tmp_path / "resumed" / "checkpoints").iterdir()) == ["step-4"]
    with pytest.raises(InputError, match="other settings"):
        train_paraphraser(
            PAIRS[:-1],
            tmp_path / "resumed",
            FULL,
            model=tiny_llama(tokenizer),
            tokenizer=tokenizer,
            progress=False,
            resume=True,
        )
    resumed = _train(tmp_path, tokenizer, "resumed", FULL, resume=True)
    assert resumed["completed"] and resumed["resumed_from"] == 4 and resumed["steps"] == full["steps"]
    assert resumed["eval_loss"] == pytest.approx(full["eval_loss"], abs=1e-6)
    assert resumed["train_loss"] == pytest.approx(full["train_loss"], abs=1e-6)
    a = load_file(tmp_path / "full" / "model.safetensors")
    b = load_file(tmp_path / "resumed" / "model.safetensors")
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)


def test_bad_config_is_refused():
    with pytest.raises(InputError, match="batch_size"):
        ParaphraserConfig(batch_size=0)
    with pytest.raises(InputError, match="eval_fraction"):
        ParaphraserConfig(eval_fraction=1.5)


@pytest.mark.slow
def test_runs_under_accelerate_launch(tmp_path, tokenizer):
    tiny_llama(tokenizer).save_pretrained(tmp_path / "tiny")
    tokenizer.save_pretrained(tmp_path / "tiny")
    (tmp_path / "pairs.jsonl").write_text(
        "".join(json.dumps({"source": a, "paraphrase": b}) + "\n" for a, b in PAIRS)
    )
    launcher = Path(sys.executable).with_name("accelerate")
    done = subprocess.run(
        [
            str(launcher),
            "launch",
            "--num_processes",
            "1",
            "--num_machines",
            "1",
            "--mixed_precision",
            "no",
            "--dynamo_backend",
            "no",
            "-m",
            "deid_hf.cli",
            "train-paraphraser",
            str(tmp_path / "out"),
            "--model",
            str(tmp_path / "tiny"),
            "--pairs",
            str(tmp_path / "pairs.jsonl"),
            "--batch-size",
            "4",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "held-out loss" in done.stdout and (tmp_path / "out" / "adapter_model.safetensors").is_file()
