"""`deid-hf audit`: evidence about a de-identified corpus without gold labels.

- `canary`: synthetic identifiers put into copies of a sample of the user's documents; the share the
  configuration misses estimates its recall on that corpus (`run_canary_audit`).
- `reid`: a TF-IDF attacker that names the person behind each de-identified document from that person's
  other documents (`run_reid_audit`).
- `dp`: a distinguishing attack on the DP paraphraser gives a measured lower bound on its epsilon beside the
  nominal one (`run_dp_audit`).
- `report`: one JSON + Markdown + HTML report of either audit; it holds counts and rates, never text.
- `stats`: the intervals (Wilson score, document-level bootstrap).
"""

from .canary import CANARY_LABELS, CanaryDocument, make_canary_document
from .dp_attack import distinguishing_attack, run_dp_audit
from .recall import run_canary_audit
from .reid import run_reid_audit, tfidf_attack
from .report import write_audit_report

__all__ = [
    "CANARY_LABELS",
    "CanaryDocument",
    "make_canary_document",
    "distinguishing_attack",
    "run_canary_audit",
    "run_dp_audit",
    "run_reid_audit",
    "tfidf_attack",
    "write_audit_report",
]
