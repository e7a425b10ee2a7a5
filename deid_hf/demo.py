"""The main job on the offline defaults, for `deid-hf demo`."""

from __future__ import annotations


def deidentify_examples(examples: list[dict], seed: int | None = 0, strategy: str = "full_entity"):
    """Yield (example, result) for each example, de-identified by `deid-substitution` on the defaults."""
    from .pipelines import pipeline

    pipe = pipeline("deid-substitution", strategy=strategy)
    results = pipe([example["text"] for example in examples], seed=seed, batch_size=len(examples))
    yield from zip(examples, results)
