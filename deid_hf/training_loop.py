"""The one accelerate training loop of deid-hf: the paraphraser and detector trainers (`deid_hf.train`) and
the downstream-utility classifier (`deid_hf.evaluation.utility`) all train through `run_training`.

Gradient accumulation with ``accelerator.no_sync`` on all but the last micro-batch of a group, linear warm-up
and decay, evaluation loss on a held-out loader, a checkpoint (``accelerator.save_state`` + the position in
the epoch) every ``save_every`` optimizer steps, written atomically; ``resume=True`` continues from the
newest checkpoint and reaches the same weights as an uninterrupted run (per-epoch order is a pure function
of seed and epoch, the random state of each batch's forward pass one of seed and batch number). The
callers build rows and a collate function; this module owns everything after that.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import shutil
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from .errors import InputError

PROGRESS_FILE = "progress.json"


@dataclass(frozen=True)
class LoopSettings:
    """The optimisation settings every trainer config carries; ``max_steps`` (when set) ends the schedule
    after that many optimizer steps, within the ``epochs``."""

    epochs: int
    batch_size: int
    gradient_accumulation_steps: int
    learning_rate: float
    warmup_ratio: float
    eval_every: int
    save_every: int
    seed: int
    max_steps: int | None = None

    @classmethod
    def of(cls, config) -> LoopSettings:
        """The settings of a config carrying these fields (``max_steps`` where it has one)."""
        return cls(**{f.name: getattr(config, f.name) for f in fields(cls) if hasattr(config, f.name)})


@dataclass
class LoopResult:
    model: object  # the unwrapped model
    accelerator: object
    state: dict
    total_steps: int
    resumed_from: int
    stopped: bool

    def metrics(self, **sizes: int) -> dict:
        """steps, total steps, the given data ``sizes``, the losses (held-out: before, after, curve), the
        step resumed from and whether the run completed."""
        state = self.state
        return {
            "steps": state["step"],
            "total_steps": self.total_steps,
            **sizes,
            "train_loss": state["train_loss"],
            "eval_loss": state["eval_loss"][-1][1],
            "eval_loss_before": state["eval_loss"][0][1],
            "eval_loss_curve": state["eval_loss"],
            "resumed_from": self.resumed_from,
            "completed": not self.stopped,
        }


def padding_collate(pad_id: int) -> Callable[[list[dict]], dict]:
    """The collate function of the trainers' rows (``input_ids`` and ``labels`` lists): tensors padded to
    the batch's longest row with ``pad_id``, attention 0 and label -100."""
    import torch

    def collate(rows: list[dict]) -> dict:
        width = max(len(r["input_ids"]) for r in rows)
        pad = [width - len(r["input_ids"]) for r in rows]
        return {
            "input_ids": torch.tensor([r["input_ids"] + [pad_id] * n for r, n in zip(rows, pad)]),
            "attention_mask": torch.tensor([[1] * len(r["input_ids"]) + [0] * n for r, n in zip(rows, pad)]),
            "labels": torch.tensor([r["labels"] + [-100] * n for r, n in zip(rows, pad)]),
        }

    return collate


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


@dataclass(frozen=True)
class Schedule:
    """How many micro-batches an epoch has, how many optimizer steps the run makes, over how many epochs."""

    batches_per_epoch: int
    total_steps: int
    epochs: int

    @classmethod
    def of(cls, settings: LoopSettings, rows: int) -> Schedule:
        batches_per_epoch = math.ceil(rows / settings.batch_size)
        steps_per_epoch = math.ceil(batches_per_epoch / settings.gradient_accumulation_steps)
        total_steps = steps_per_epoch * settings.epochs
        if settings.max_steps is not None:
            total_steps = min(total_steps, settings.max_steps)
        return cls(batches_per_epoch, total_steps, math.ceil(total_steps / max(steps_per_epoch, 1)))


class _Loop:
    """One run of `run_training`: the prepared model, optimizer, scheduler and held-out loader, the
    progress state (what a checkpoint stores) and the progress bar; ``options``: `run_training`'s keyword
    arguments that shape the run (description, progress, label_shift, order, checkpoints, stop_after)."""

    def __init__(self, model, eval_rows, collate, settings: LoopSettings, schedule: Schedule, options: dict):
        import torch
        from accelerate import Accelerator
        from torch.utils.data import DataLoader
        from transformers import get_linear_schedule_with_warmup

        self.accelerator = Accelerator(cpu=not torch.cuda.is_available())
        if self.accelerator.num_processes > 1:
            raise InputError(
                f"{options['description']} runs in one process (CPU or one GPU); multi-process is not "
                "supported"
            )
        self.settings, self.schedule, self.collate, self.options = settings, schedule, collate, options
        model.train()
        # only what trains (a LoRA adapter's matrices, or every weight of a full fine-tune)
        optimizer = torch.optim.AdamW(
            [p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate
        )
        scheduler = get_linear_schedule_with_warmup(
            optimizer, int(settings.warmup_ratio * schedule.total_steps), schedule.total_steps
        )
        self.model, self.optimizer, self.scheduler = self.accelerator.prepare(model, optimizer, scheduler)
        self.eval_loader = (
            self.accelerator.prepare(
                DataLoader(list(eval_rows), batch_size=settings.batch_size, collate_fn=collate)
            )
            if eval_rows
            else None
        )

    def start(self, identity: dict, resume: bool) -> None:
        """The progress state: fresh, or the newest checkpoint's (refused when written for another
        ``identity``); the held-out loss before training; the progress bar."""
        from tqdm.auto import tqdm

        identity = json.loads(json.dumps(identity))  # as a checkpoint stores it (tuples become lists)
        self.state = {"step": 0, "epoch": 0, "batch": 0, "eval_loss": [], "train_loss": None, **identity}
        checkpoints = self.options["checkpoints"]
        found = latest_checkpoint(checkpoints) if resume and checkpoints is not None else None
        if found:
            saved = json.loads((found / PROGRESS_FILE).read_text())
            if any(saved.get(key) != value for key, value in identity.items()):
                raise InputError(
                    f"checkpoint {found} was written with other settings or data; resume with the same "
                    f"ones or start without --resume"
                )
            self.accelerator.load_state(str(found))
            self.state = saved
        self.resumed_from = self.state["step"]
        if not self.state["eval_loss"]:
            self.evaluate()
        self.bar = tqdm(
            total=self.schedule.total_steps,
            initial=self.state["step"],
            desc=self.options["description"],
            unit="step",
            disable=not self.options["progress"] or not self.accelerator.is_local_main_process,
        )

    def evaluate(self) -> None:
        if self.eval_loader is not None:
            loss = evaluation_loss(self.model, self.eval_loader, self.options["label_shift"])
            self.state["eval_loss"].append([self.state["step"], loss])

    def epoch(self, train_rows: Sequence, epoch: int) -> bool:
        """Train one epoch (from the saved position when resuming into it); True when the run ends in it."""
        import torch
        from torch.utils.data import DataLoader

        settings, accumulate = self.settings, self.settings.gradient_accumulation_steps
        ordered = self.options["order"](len(train_rows), settings.seed, epoch)
        loader = self.accelerator.prepare(
            DataLoader(
                [train_rows[i] for i in ordered], batch_size=settings.batch_size, collate_fn=self.collate
            )
        )
        first = self.state["batch"] if epoch == self.state["epoch"] else 0
        batches = self.accelerator.skip_first_batches(loader, first) if first else loader
        group_loss = 0.0
        for index, batch in enumerate(batches, start=first):
            group_start = index - index % accumulate
            group_size = min(accumulate, self.schedule.batches_per_epoch - group_start)
            last = index == group_start + group_size - 1
            # dropout masks: a pure function of (seed, batch number), so a resumed run draws the same ones
            torch.manual_seed(settings.seed * 1_000_003 + epoch * self.schedule.batches_per_epoch + index)
            with contextlib.nullcontext() if last else self.accelerator.no_sync(self.model):
                loss = self.model(**batch).loss / group_size
                self.accelerator.backward(loss)
            group_loss += loss.detach().item()
            if not last:
                continue
            if self.step(epoch, index, group_loss):
                return True
            group_loss = 0.0
        return False

    def step(self, epoch: int, index: int, group_loss: float) -> bool:
        """One optimizer step after the last micro-batch ``index`` of a group: schedule, progress,
        evaluation, checkpoint. True when the run ends here (``stop_after`` or ``max_steps``)."""
        self.accelerator.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad()
        state, total_steps = self.state, self.schedule.total_steps
        checkpoints, stop_after = self.options["checkpoints"], self.options["stop_after"]
        state.update(step=state["step"] + 1, epoch=epoch, batch=index + 1, train_loss=group_loss)
        if index + 1 == self.schedule.batches_per_epoch:
            state.update(epoch=epoch + 1, batch=0)
        self.bar.update(1)
        shown = {"eval": f"{state['eval_loss'][-1][1]:.3f}"} if state["eval_loss"] else {}
        self.bar.set_postfix(loss=f"{state['train_loss']:.3f}", **shown)
        if state["step"] % self.settings.eval_every == 0 or state["step"] == total_steps:
            self.evaluate()
        self.stopped = stop_after is not None and state["step"] >= stop_after and state["step"] < total_steps
        if checkpoints is not None and (state["step"] % self.settings.save_every == 0 or self.stopped):
            save_checkpoint(self.accelerator, checkpoints, state)
        return self.stopped or state["step"] >= total_steps


def run_training(
    model,
    train_rows: Sequence,
    eval_rows: Sequence,
    collate: Callable[[list], dict],
    settings: LoopSettings,
    checkpoints: Path | None,
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
    permutation). ``stop_after=n`` ends after optimizer step n with a checkpoint. No ``eval_rows``: no
    held-out loss; ``checkpoints`` None: no checkpoints (and nothing to resume).
    """
    schedule = Schedule.of(settings, len(train_rows))
    options = {
        "description": description,
        "progress": progress,
        "label_shift": label_shift,
        "order": order,
        "checkpoints": checkpoints,
        "stop_after": stop_after,
    }
    loop = _Loop(model, eval_rows, collate, settings, schedule, options)
    loop.start(identity, resume)
    # resumed at or past stop_after: nothing more to train (the caller may write the model as it stands)
    loop.stopped = stop_after is not None and stop_after <= loop.state["step"] < schedule.total_steps
    for epoch in range(loop.state["epoch"], 0 if loop.stopped else schedule.epochs):
        if loop.epoch(train_rows, epoch):
            break
    loop.bar.close()
    return LoopResult(
        model=loop.accelerator.unwrap_model(loop.model),
        accelerator=loop.accelerator,
        state=loop.state,
        total_steps=schedule.total_steps,
        resumed_from=loop.resumed_from,
        stopped=loop.stopped,
    )
