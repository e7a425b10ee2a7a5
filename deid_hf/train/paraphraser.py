"""Fine-tune a causal LM to paraphrase (Mattern et al. 2022, sec. 4.1) with an accelerate training loop.

Data: "source => paraphrase" lines (Witteveen & Andrews 2019) from STS-B train+dev pairs scored >= 4.0 (both
directions) and SNLI pairs whose five annotator labels are all entailment (premise => hypothesis), or any
JSONL of ``{"source", "paraphrase"}``. The loss covers the paraphrase tokens only (the prompt is context).
Pairs are split into train / held-out by unordered pair, so a pair and its reverse never straddle the split.

The loop is `deid_hf.training_loop` (shared with the detector trainer and the utility evaluation):
gradient accumulation, linear warm-up and decay, evaluation loss on the held-out slice, atomic checkpoints,
``resume=True`` reaching the same weights as an uninterrupted run. The result is a normal transformers
checkpoint with calibrated clamp bounds in its config (``deid_hf_clamp``) and a model card.
"""

from __future__ import annotations

import csv
import json
import random
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import InputError
from ..models import ADAPTER_FILE, TRAINING_FILE, write_manifest
from ..validate import check_positive_ints, check_training_rates
from .loop import flag


@dataclass
class ParaphraserConfig:
    model: str = "smollm2-135m"
    epochs: int = flag(1)
    batch_size: int = flag(8)
    gradient_accumulation_steps: int = flag(2, name="--grad-accum")
    #: the adapter's rate (a full fine-tune, ``lora_rank=0``, used 1e-4)
    learning_rate: float = flag(3e-4, name="--lr")
    warmup_ratio: float = flag(0.05)
    max_length: int = flag(96)
    eval_fraction: float = flag(0.05)
    eval_every: int = flag(50)
    save_every: int = flag(25)
    seed: int = flag(0)
    #: where the pairs came from, for the model card: "default" (STS-B + SNLI) or a file name
    pairs: str = "default"
    lora_rank: int = flag(
        16, help="rank of the LoRA adapter trained over the frozen base (PEFT; 0: fine-tune every weight)"
    )
    lora_alpha: int = flag(32)

    def __post_init__(self):
        check_positive_ints(
            self,
            "epochs",
            "batch_size",
            "gradient_accumulation_steps",
            "max_length",
            "eval_every",
            "save_every",
        )
        check_training_rates(self.eval_fraction, self.learning_rate)
        for name in ("lora_rank", "lora_alpha"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"{name} must be a non-negative integer, got {value!r}")


#: the projections of a llama-style block that the adapter adapts
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def stsb_pairs(folder: str | Path, min_score: float = 4.0) -> list[tuple[str, str]]:
    """STS-B train+dev pairs with gold score >= ``min_score``, in both directions (test is kept for eval)."""
    pairs = []
    for split in ("train", "dev"):
        path = Path(folder) / f"sts-{split}.csv"
        if not path.is_file():
            raise InputError(f"STS-B file {path} is missing")
        for cols in csv.reader(path.open(encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(cols) >= 7 and float(cols[4]) >= min_score:
                pairs += [(cols[5], cols[6]), (cols[6], cols[5])]
    return pairs


def snli_entailment_pairs(folder: str | Path) -> list[tuple[str, str]]:
    """(premise, hypothesis) of every SNLI pair in ``folder``'s ``*.jsonl`` whose 5 labels are entailment."""
    files = sorted(Path(folder).glob("*.jsonl"))
    if not files:
        raise InputError(f"no SNLI .jsonl files in {folder}")
    pairs = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            labels = row.get("annotator_labels") or []
            if len(labels) == 5 and all(label == "entailment" for label in labels):
                pairs.append((row["sentence1"], row["sentence2"]))
    return pairs


def default_pairs(data_root: str | Path) -> list[tuple[str, str]]:
    """The paper's training mix available here: STS-B (>= 4.0, both ways) + all-entailment SNLI."""
    root = Path(data_root)
    if not (root / "stsbenchmark").is_dir() or not (root / "snli_partial").is_dir():
        raise InputError(
            f"training the paraphraser needs {root / 'stsbenchmark'} and {root / 'snli_partial'}; "
            f"set DEID_HF_DATA / --data-root to the folder holding them, or pass --pairs FILE.jsonl"
        )
    return stsb_pairs(root / "stsbenchmark") + snli_entailment_pairs(root / "snli_partial")


def read_pairs(path: str | Path) -> list[tuple[str, str]]:
    """``{"source": ..., "paraphrase": ...}`` per line."""
    from ..corpora import jsonl_rows

    pairs = []
    for number, row in jsonl_rows(path, "pairs"):
        try:
            pair = (row["source"], row["paraphrase"])
        except (ValueError, KeyError, TypeError):
            pair = None
        if pair is None or not all(isinstance(text, str) for text in pair):
            raise InputError(f"{path}:{number}: expected a JSON object with string 'source' and 'paraphrase'")
        pairs.append(pair)
    return pairs


def split_pairs(pairs: Sequence[tuple[str, str]], eval_fraction: float, seed: int):
    """(train, held_out), split by unordered pair so that (a, b) and (b, a) land on the same side."""
    keys = sorted({tuple(sorted(pair)) for pair in pairs})
    random.Random(seed).shuffle(keys)
    held = set(keys[: max(1, round(eval_fraction * len(keys)))])
    train = [pair for pair in pairs if tuple(sorted(pair)) not in held]
    held_out = [pair for pair in pairs if tuple(sorted(pair)) in held]
    if not train:
        raise InputError(
            f"{len(pairs)} pairs leave nothing to train on after holding out {eval_fraction:.0%}"
        )
    return train, held_out


def encode_pair(tokenizer, source: str, paraphrase: str, max_length: int) -> dict:
    """input_ids of prompt + completion; labels -100 on the prompt (loss on the paraphrase only)."""
    from ..paraphrase import completion, prompt

    context = tokenizer(prompt(source))["input_ids"]
    target = tokenizer(completion(paraphrase, tokenizer.eos_token), add_special_tokens=False)["input_ids"]
    ids = (context + target)[:max_length]
    labels = ([-100] * len(context) + target)[:max_length]
    return {"input_ids": ids, "labels": labels}


def _model_and_tokenizer(config: ParaphraserConfig, model, tokenizer):
    """The given model and tokenizer, or ``config.model`` loaded; the tokenizer gets a pad token."""
    from ..models import load_causal_lm

    if model is None:
        model, tokenizer = load_causal_lm(config.model)
    elif tokenizer is None:
        raise InputError("pass the tokenizer together with the model")
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def _with_lora(model, config: ParaphraserConfig):
    """``model`` wrapped in a LoRA adapter of ``config``'s rank over the `LORA_TARGETS` it has."""
    from peft import LoraConfig, get_peft_model

    adapter = LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=0.05,
        target_modules=[m for m in LORA_TARGETS if any(n.endswith(m) for n, _ in model.named_modules())],
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, adapter)


def train_paraphraser(
    pairs: Sequence[tuple[str, str]],
    output_dir: str | Path,
    config: ParaphraserConfig | None = None,
    *,
    model=None,
    tokenizer=None,
    checkpoint_dir: str | Path | None = None,
    resume: bool = False,
    stop_after: int | None = None,
    progress: bool = True,
) -> dict:
    """Fine-tune ``config.model`` (or the given ``model`` / ``tokenizer``) on ``pairs``; returns the metrics.

    ``stop_after=n`` ends the run after optimizer step n with a checkpoint (e.g. to fit a job's time limit);
    ``resume=True`` continues from the newest checkpoint in ``checkpoint_dir`` (default
    output_dir/checkpoints).
    The model is written to ``output_dir`` only when training completes.
    """
    from accelerate.utils import set_seed

    from ..training_loop import LoopSettings, padding_collate, run_training

    config = config or ParaphraserConfig()
    pairs = [(s.strip(), p.strip()) for s, p in pairs if s.strip() and p.strip()]
    if not pairs:
        raise InputError("no paraphrase pairs to train on")
    output_dir = Path(output_dir)
    checkpoints = Path(checkpoint_dir) if checkpoint_dir else output_dir / "checkpoints"
    set_seed(config.seed)
    model, tokenizer = _model_and_tokenizer(config, model, tokenizer)
    if config.lora_rank:
        model = _with_lora(model, config)
    train, held_out = split_pairs(pairs, config.eval_fraction, config.seed)
    train_rows = [encode_pair(tokenizer, s, p, config.max_length) for s, p in train]
    eval_rows = [encode_pair(tokenizer, s, p, config.max_length) for s, p in held_out]
    run = run_training(
        model,
        train_rows,
        eval_rows,
        padding_collate(tokenizer.pad_token_id),
        LoopSettings.of(config),
        checkpoints,
        identity={"config": asdict(config), "pairs": len(pairs)},
        resume=resume,
        stop_after=stop_after,
        progress=progress,
        description="fine-tuning paraphraser",
    )
    metrics = run.metrics(train_pairs=len(train), held_out_pairs=len(held_out))
    if not run.stopped:
        if checkpoint_dir is None:  # a completed run needs its checkpoints no more
            shutil.rmtree(checkpoints, ignore_errors=True)
        _write_model(run.model, tokenizer, output_dir, config, metrics, held_out)
        write_manifest(output_dir)
    return metrics


def _save_weights(model, tokenizer, output_dir: Path, config: ParaphraserConfig, bounds) -> None:
    """The adapter alone (fp16) with its bounds beside it (the registry merges it), or the whole model with
    its bounds in its config; the tokenizer beside either."""
    output_dir.mkdir(parents=True, exist_ok=True)
    if config.lora_rank:
        weights = {k: v.half() if "lora_" in k else v for k, v in model.state_dict().items()}
        model.save_pretrained(output_dir, safe_serialization=True, state_dict=weights)
        (output_dir / ADAPTER_FILE).write_text(
            json.dumps({"deid_hf_clamp": asdict(bounds), "base_model": config.model}, indent=2)
        )
    else:
        bounds.store(model)
        model.save_pretrained(output_dir, safe_serialization=True)
    tokenizer.save_pretrained(output_dir)


def _card_text(config: ParaphraserConfig, metrics: dict, bounds) -> dict:
    """The model card's sections: what was trained on what, how to use it, its privacy and its limits."""
    from ..export.cards import display_name

    return {
        "title": f"{Path(config.model).name} fine-tuned as a DP paraphraser for deid-hf",
        "summary": (
            f"`{display_name(config.model)}` fine-tuned to paraphrase in the "
            f'"source => paraphrase" format '
            f"(Witteveen & Andrews 2019; Mattern et al. 2022) on {metrics['train_pairs']} pairs "
            f"({config.pairs}), {metrics['steps']} optimizer steps"
            f"{_adapter_note(config)}"
            f". Held-out loss per "
            f"paraphrase token: {metrics['eval_loss_before']:.3f} before, "
            f"{metrics['eval_loss']:.3f} after fine-tuning."
        ),
        "usage": 'pipe = deid_hf.pipeline("deid-paraphrase", model="<this folder>")\n'
        'pipe("Text to paraphrase.", epsilon=75.0, max_new_tokens=48)',
        "privacy": (
            f"Clamp bounds [{bounds.low:.3f}, {bounds.high:.3f}] (10% logit quantile, 90% quantile "
            f"of the top logit, on held-out pairs; stored as `deid_hf_clamp` in "
            f"{'`' + ADAPTER_FILE + '`' if config.lora_rank else 'the config'}), "
            f"sensitivity "
            f"{bounds.sensitivity:.3f}: sampling at temperature T = 2 * {bounds.sensitivity:.3f} "
            f"/ epsilon is an exponential mechanism with epsilon per generated token, epsilon * n "
            f"for n tokens (Mattern et al. 2022, sec. 4.2). The fine-tuning data is not "
            f"protected by that guarantee."
        ),
        "limits": (
            "A 135M-parameter model paraphrases loosely; at the per-token epsilon needed for "
            "fluent text the guarantee is weak (see the deid-hf README for the measured "
            "trade-off). Named entities of the input can be copied into the output."
        ),
    }


def _write_model(
    model,
    tokenizer,
    output_dir: Path,
    config: ParaphraserConfig,
    metrics: dict,
    held_out: Iterable[tuple[str, str]],
) -> None:
    from ..export.cards import write_card
    from ..paraphrase import ClampBounds, completion, prompt

    model.eval()
    sample = [prompt(s) + completion(p, "") for s, p in list(held_out)[:64]]
    bounds = ClampBounds.calibrate(model, tokenizer, sample)
    _save_weights(model, tokenizer, output_dir, config, bounds)
    (output_dir / TRAINING_FILE).write_text(
        json.dumps({"config": asdict(config), "metrics": metrics}, indent=2)
    )
    datasets = ["sentence-transformers/stsb", "stanfordnlp/snli"] if config.pairs == "default" else None
    write_card(
        output_dir,
        kind="causal-lm",
        base_model=config.model,
        datasets=datasets,
        tags=["paraphrase", "differential-privacy", *(["peft", "lora"] if config.lora_rank else [])],
        text=_card_text(config, metrics, bounds),
    )


def _adapter_note(config: ParaphraserConfig) -> str:
    return (
        f", as a LoRA adapter (rank {config.lora_rank}, PEFT) over the frozen base"
        if config.lora_rank
        else ""
    )
