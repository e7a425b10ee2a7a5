"""The accelerate training loop shared by deid-hf's trainers (paraphraser, token-classification detector).

Gradient accumulation with ``accelerator.no_sync`` on all but the last micro-batch of a group, linear warm-up
and decay, evaluation loss on a held-out loader, a checkpoint (``accelerator.save_state`` + the position in
the epoch) every ``save_every`` optimizer steps, written atomically; ``resume=True`` continues from the
newest checkpoint and reaches the same weights as an uninterrupted run (per-epoch order is a pure function
of seed and epoch, the random state of each batch's forward pass one of seed and batch number). The
trainers build rows and a collate function; this module owns everything after that.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import random
import shutil
import uuid
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path

from ..errors import InputError

PROGRESS_FILE = "progress.json"


def flag(default, *, name: str | None = None, help: str | None = None, parse=None, neutral=MISSING):
    """A config field that is also a command-line flag (``--field-name`` unless ``name``): its type is
    ``parse`` or the default's; ``neutral`` as in `recipe_digest`."""
    metadata = {"flag": name or "", "help": help, "parse": parse}
    if neutral is not MISSING:
        metadata["neutral"] = neutral
    return field(default=default, metadata=metadata)


def config_flags(config_class) -> list[tuple[str, str, Callable, str | None]]:
    """(flag, field, parse, help) of every `flag` field of a config dataclass, in field order."""
    found = []
    for f in fields(config_class):
        if "flag" not in f.metadata:
            continue
        name = f.metadata["flag"] or "--" + f.name.replace("_", "-")
        found.append((name, f.name, f.metadata["parse"] or type(f.default), f.metadata["help"]))
    return found


@dataclass(frozen=True)
class LoopSettings:
    """The optimisation settings every trainer config carries."""

    epochs: int
    batch_size: int
    gradient_accumulation_steps: int
    learning_rate: float
    warmup_ratio: float
    eval_every: int
    save_every: int
    seed: int

    @classmethod
    def of(cls, config) -> LoopSettings:
        return cls(**{name: getattr(config, name) for name in cls.__dataclass_fields__})


@dataclass
class LoopResult:
    model: object  # the unwrapped model
    accelerator: object
    state: dict
    total_steps: int
    resumed_from: int
    stopped: bool


def recipe_fields(config) -> dict:
    """A training config's fields, less those added later at their ``neutral`` value (`flag`): what a
    recipe is, so that the recipes made before such a field keep their digest."""
    values = asdict(config)
    for f in fields(config):
        if "neutral" in f.metadata and values[f.name] == f.metadata["neutral"]:
            del values[f.name]
    return values


def recipe_digest(config) -> str:
    """A short digest of a training config's `recipe_fields` (sorted JSON): the recipe a model was built
    from."""
    return hashlib.sha256(json.dumps(recipe_fields(config), sort_keys=True).encode()).hexdigest()[:16]


def epoch_order(size: int, seed: int, epoch: int) -> list[int]:
    """The shuffled order of epoch ``epoch``: a pure function of (seed, epoch), so resuming can replay it."""
    import torch

    return torch.randperm(size, generator=torch.Generator().manual_seed(seed * 1000 + epoch)).tolist()


def length_grouped_order(lengths: Sequence[int], batch_size: int, group: int = 32):
    """An epoch order (pure function of seed and epoch) that batches rows of similar length: the seeded
    permutation cut into chunks of ``batch_size * group`` rows, each sorted by length, then the batches of
    the epoch shuffled (less padding, same randomness across batches)."""

    def order(size: int, seed: int, epoch: int) -> list[int]:
        permutation = epoch_order(size, seed, epoch)
        chunk = batch_size * group
        ordered = [
            j
            for i in range(0, size, chunk)
            for j in sorted(permutation[i : i + chunk], key=lambda k: -lengths[k])
        ]
        batches = [ordered[i : i + batch_size] for i in range(0, size, batch_size)]
        random.Random(seed * 1000 + epoch).shuffle(batches)
        return [j for batch in batches for j in batch]

    return order


def evaluation_loss(model, loader, label_shift: int = 1) -> float:
    """Mean cross-entropy per labelled token over ``loader`` (``label_shift=1`` for causal LMs, whose first
    label is never predicted; 0 for token classification)."""
    import torch

    total, count = 0.0, 0
    model.eval()
    with torch.no_grad():
        for batch in loader:
            tokens = int((batch["labels"][:, label_shift:] != -100).sum())
            total += float(model(**batch).loss) * tokens
            count += tokens
    model.train()
    return total / max(count, 1)


def latest_checkpoint(folder: Path) -> Path | None:
    steps = [p for p in folder.glob("step-*") if (p / PROGRESS_FILE).is_file()] if folder.is_dir() else []
    return max(steps, key=lambda p: int(p.name.split("-")[1]), default=None)


def save_checkpoint(accelerator, folder: Path, progress: dict) -> None:
    """``accelerator.save_state`` into a temporary folder renamed into place; older checkpoints removed."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".tmp-{uuid.uuid4().hex}"
    accelerator.save_state(str(tmp))
    (tmp / PROGRESS_FILE).write_text(json.dumps(progress))
    final = folder / f"step-{progress['step']}"
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)
    for old in [*folder.glob("step-*"), *folder.glob(".tmp-*")]:  # older steps, leftovers of a crash
        if old != final:
            shutil.rmtree(old, ignore_errors=True)


def run_training(
    model,
    train_rows: Sequence[dict],
    eval_rows: Sequence[dict],
    collate: Callable[[list[dict]], dict],
    settings: LoopSettings,
    checkpoints: Path,
    *,
    identity: dict,
    resume: bool = False,
    stop_after: int | None = None,
    progress: bool = True,
    description: str = "fine-tuning",
    label_shift: int = 1,
    order: Callable[[int, int, int], list[int]] = epoch_order,
) -> LoopResult:
    """Train ``model`` on ``train_rows`` (batched by ``collate``) with AdamW under ``settings``.

    ``identity`` (config, data size) is stored in every checkpoint; resuming from a checkpoint of another
    identity is refused. ``order(size, seed, epoch)`` gives each epoch's row order (default: a seeded
    permutation). ``stop_after=n`` ends after optimizer step n with a checkpoint.
    """
    import torch
    from accelerate import Accelerator
    from torch.utils.data import DataLoader
    from tqdm.auto import tqdm
    from transformers import get_linear_schedule_with_warmup

    accelerator = Accelerator(cpu=not torch.cuda.is_available())
    if accelerator.num_processes > 1:
        raise InputError(
            f"{description} runs in one process (CPU or one GPU); multi-process is not supported"
        )
    batches_per_epoch = math.ceil(len(train_rows) / settings.batch_size)
    steps_per_epoch = math.ceil(batches_per_epoch / settings.gradient_accumulation_steps)
    total_steps = steps_per_epoch * settings.epochs
    model.train()
    # only what trains (a LoRA adapter's matrices, or every weight of a full fine-tune)
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate
    )
    scheduler = get_linear_schedule_with_warmup(
        optimizer, int(settings.warmup_ratio * total_steps), total_steps
    )
    eval_loader = DataLoader(list(eval_rows), batch_size=settings.batch_size, collate_fn=collate)
    model, optimizer, scheduler, eval_loader = accelerator.prepare(model, optimizer, scheduler, eval_loader)

    identity = json.loads(json.dumps(identity))  # as a checkpoint stores it (tuples become lists)
    state = {"step": 0, "epoch": 0, "batch": 0, "eval_loss": [], "train_loss": None, **identity}
    found = latest_checkpoint(checkpoints) if resume else None
    if found:
        saved = json.loads((found / PROGRESS_FILE).read_text())
        if any(saved.get(key) != value for key, value in identity.items()):
            raise InputError(
                f"checkpoint {found} was written with other settings or data; resume with the same "
                f"ones or start without --resume"
            )
        accelerator.load_state(str(found))
        state = saved
    resumed_from = state["step"]
    if not state["eval_loss"]:
        state["eval_loss"].append([0, evaluation_loss(model, eval_loader, label_shift)])
    bar = tqdm(
        total=total_steps,
        initial=state["step"],
        desc=description,
        unit="step",
        disable=not progress or not accelerator.is_local_main_process,
    )
    accumulate = settings.gradient_accumulation_steps
    # resumed at or past stop_after: nothing more to train (the caller may write the model as it stands)
    stopped = stop_after is not None and stop_after <= state["step"] < total_steps
    for epoch in range(state["epoch"], 0 if stopped else settings.epochs):
        ordered = order(len(train_rows), settings.seed, epoch)
        loader = accelerator.prepare(
            DataLoader([train_rows[i] for i in ordered], batch_size=settings.batch_size, collate_fn=collate)
        )
        first = state["batch"] if epoch == state["epoch"] else 0
        batches = accelerator.skip_first_batches(loader, first) if first else loader
        group_loss = 0.0
        for index, batch in enumerate(batches, start=first):
            group_start = index - index % accumulate
            group_size = min(accumulate, batches_per_epoch - group_start)
            last = index == group_start + group_size - 1
            # dropout masks: a pure function of (seed, batch number), so a resumed run draws the same ones
            torch.manual_seed(settings.seed * 1_000_003 + epoch * batches_per_epoch + index)
            with contextlib.nullcontext() if last else accelerator.no_sync(model):
                loss = model(**batch).loss / group_size
                accelerator.backward(loss)
            group_loss += loss.detach().item()
            if not last:
                continue
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            state.update(step=state["step"] + 1, epoch=epoch, batch=index + 1, train_loss=group_loss)
            group_loss = 0.0
            if index + 1 == batches_per_epoch:
                state.update(epoch=epoch + 1, batch=0)
            bar.update(1)
            bar.set_postfix(loss=f"{state['train_loss']:.3f}", eval=f"{state['eval_loss'][-1][1]:.3f}")
            if state["step"] % settings.eval_every == 0 or state["step"] == total_steps:
                state["eval_loss"].append([state["step"], evaluation_loss(model, eval_loader, label_shift)])
            stopped = stop_after is not None and state["step"] >= stop_after and state["step"] < total_steps
            if state["step"] % settings.save_every == 0 or stopped:
                save_checkpoint(accelerator, checkpoints, state)
            if stopped:
                break
        if stopped:
            break
    bar.close()
    return LoopResult(
        model=accelerator.unwrap_model(model),
        accelerator=accelerator,
        state=state,
        total_steps=total_steps,
        resumed_from=resumed_from,
        stopped=stopped,
    )
