"""`deid-hf run --engine ray`: the corpus run of `deid_hf.corpus` on a Ray cluster (Ray Data).

Records are shipped as pickled rows to ``Dataset.map_batches`` over an actor pool (``concurrency`` actors,
``num_gpus`` each); every actor builds the pipeline once and runs the local engine's `process_batch` on
its batches, so the output is the local engine's for the same seed (per-document random streams). The
driver reads the input, appends finished batches to the same partial file (resume) and writes the output:
`run_corpus` does everything but the processing. ``ray.init()`` joins the cluster named by ``RAY_ADDRESS``
(or ``address=``), else starts a local one.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator

from .errors import InputError
from .extras import extra


def _require_ray():
    with extra("ray", "deid-hf run --engine ray"):
        import ray
        import ray.data
    return ray


class _DeidActor:
    """One pipeline per actor, built in the actor's process."""

    def __init__(
        self,
        pipeline_options: dict,
        text_field: str,
        p: float,
        seed: int | None,
        use_gpu: bool,
        texts=None,
        key=None,
        group_field: str | None = None,
    ):
        from .pipelines import pipeline

        options = dict(pipeline_options)
        if use_gpu:
            options.setdefault("device", 0)
        self.pipe = pipeline("deid-substitution", key=key, **options)
        fit = self.pipe.detector.fit
        if fit is not None and texts is not None:  # corpus statistics of the whole input, as the local engine
            fit(texts)
        self.text_field, self.p, self.seed, self.group_field = text_field, p, seed, group_field

    def __call__(self, batch: dict) -> dict:
        from .corpus import process_batch

        indices = [int(i) for i in batch["index"]]
        records = {i: pickle.loads(payload) for i, payload in zip(indices, batch["record"])}
        entries = process_batch(
            self.pipe, records, indices, self.text_field, self.p, self.seed, self.group_field
        )
        return {"entry": [pickle.dumps(entry) for entry in entries]}


class RayEngine:
    """Pass as ``pipe`` to `deid_hf.corpus.run_corpus`: processes its batches on Ray actors."""

    def __init__(
        self,
        pipeline_options: dict,
        num_workers: int = 2,
        gpus_per_worker: float = 0.0,
        address: str | None = None,
        key: str | bytes | None = None,
    ):
        if pipeline_options.get("shared_table"):
            raise InputError(
                "shared_table needs one process (one substitution table): not with the ray engine"
            )
        if num_workers < 1:
            raise InputError(f"num_workers must be at least 1, got {num_workers}")
        if gpus_per_worker < 0:
            raise InputError(f"gpus_per_worker must be >= 0, got {gpus_per_worker}")
        self.pipeline_options = pipeline_options
        #: what `deid_hf.corpus.run_fingerprint` records: a resumed run must use the same pipeline
        self.options, self.task_name = dict(pipeline_options), "deid-substitution"
        self.num_workers, self.gpus_per_worker, self.address = num_workers, gpus_per_worker, address
        #: where the actors' learned models run (each actor's pipeline is given its GPU: `_DeidActor`)
        self.detector_device = "cuda" if gpus_per_worker > 0 else None
        self.texts: list[str] | None = None
        self.key = key  # the keyed operators' key: handed to the actors, never part of the fingerprint

    def fit(self, texts: list[str]) -> None:
        """Texts of the whole input, for detectors with corpus statistics (`run_corpus` calls this); every
        actor fits its pipeline's detector on them, so the output equals the local engine's."""
        self.texts = list(texts)

    def _init(self, ray) -> None:
        if ray.is_initialized():
            return
        if self.address or os.environ.get("RAY_ADDRESS"):
            ray.init(address=self.address)
        else:  # a local instance for this run
            ray.init(include_dashboard=False)

    def process_batches(
        self,
        records: list[dict],
        pending: list[int],
        batch_size: int,
        text_field: str,
        p,
        seed,
        group_field: str | None = None,
    ) -> Iterator[list[dict]]:
        if not pending:
            return
        ray = _require_ray()
        self._init(ray)
        rows = [{"index": i, "record": pickle.dumps(records[i])} for i in pending]
        dataset = ray.data.from_items(rows, override_num_blocks=max(1, -(-len(rows) // batch_size)))
        processed = dataset.map_batches(
            _DeidActor,
            fn_constructor_kwargs={
                "pipeline_options": self.pipeline_options,
                "text_field": text_field,
                "p": p,
                "seed": seed,
                "use_gpu": self.gpus_per_worker > 0,
                "texts": self.texts,
                "key": self.key,
                "group_field": group_field,
            },
            batch_size=batch_size,
            concurrency=self.num_workers,
            num_gpus=self.gpus_per_worker,
            batch_format="numpy",
        )
        for batch in processed.iter_batches(batch_size=None, batch_format="numpy"):
            yield [pickle.loads(entry) for entry in batch["entry"]]
