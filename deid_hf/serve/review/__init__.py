"""The review workflow at ``/review``: open a corpus, check and correct its spans, export the corrections.

A reviewer uploads a JSONL/CSV/Parquet corpus, which the service de-identifies in the model thread (chunk by
chunk, with progress) with ``explain=True`` so that each span names the rule or stage that kept it; or a
finished run's input, output and report. Per document the reviewer accepts, rejects, relabels or adds
spans; the de-identified text is recomputed at once from the corrected spans (`apply_strategy`, the
pipeline's own strategy). Exports: the corrected corpus (JSONL), a ``--config`` file with allow and deny
lists for the next run, and gold spans (``train-detector --documents``). Decisions are saved after each
change in ``DEID_HF_REVIEW_DIR`` (default ``./deid-hf-review``) as offsets and labels only, never text, so
the file needs no encryption; opening the same files with the same options resumes them. Originals stay in
memory; logs hold counts only.
"""

from .exports import next_run_yaml, shape_pattern
from .routes import DecisionRequest, ReviewAPI, mount_review
from .sessions import Document, Session, fingerprint, review_dir, review_key, uploaded_records
from .store import ReviewStore

__all__ = [
    "DecisionRequest",
    "Document",
    "ReviewAPI",
    "ReviewStore",
    "Session",
    "fingerprint",
    "review_key",
    "mount_review",
    "next_run_yaml",
    "review_dir",
    "shape_pattern",
    "uploaded_records",
]
