"""The gdpr policy on general text, beside Presidio and deid-hf's hipaa and strict in the same run.

Golds (../shared/data, sentence by sentence, tokens joined by spaces):
- GUM test (`gum_ner/gum-test.conll`): GUM marks every mention, pronouns and common nouns included ("you",
  "the bar"), so only the mentions a de-identifier should find are gold here: persons, places and
  organisations with a capitalised word inside the sentence (not its first word, not "I"), times with a digit
  or a month or weekday name, quantities with a digit. Their whole mention is gold ("Pacific Standard owner,
  Jonathan M. Stan"), so a kept title or occupation costs recall. GUM's text (not its annotation) is
  silver training text of the learned model (`deid_hf.train.silver.SILVER_SOURCES`).
- wikigold (`detection_wikigold.wikigold`): PER/LOC/ORG, and MISC (nationalities, events, works, products)
  as OTHER; rows on the held-out articles too (the first articles' text is silver training text).
- presidio_synth_pii records 750-1499 (synthetic; the learned model saw records 0-399): its gold marks what
  a gdpr policy should find beyond names (ages, titles and job titles as TITLE, nationalities as NRP).
Precision counts every span a tool flags outside these golds (a nationality in GUM, a date in wikigold):
compare it between tools, not with other corpora. Token metrics of EVALUATION.md.
Usage: python benchmarks/detection_gdpr.py [--detectors default] [--policies gdpr,hipaa,strict]
"""

from __future__ import annotations

import argparse
import re
import time

from _common import data_path, print_table, write_results
from detection import presidio_analyzer
from detection_wikigold import conll_gold, first_held_out_sentence

from deid_hf.detect import get_detector
from deid_hf.detect.ner import map_ner_label
from deid_hf.detect.patterns import PRESIDIO_LABELS
from deid_hf.evaluation.detection import GoldDocument, detection_report, load_gold

GUM_KINDS = {
    "person": "PERSON",
    "place": "LOCATION",
    "organization": "ORG",
    "time": "DATE_TIME",
    "quantity": "QUANTITY",
}
WIKIGOLD_KINDS = {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORG", "MISC": "OTHER"}
#: presidio_synth_pii's records no learned model saw (as in benchmarks/detection.py's held-out rows)
SYNTH_HELD_OUT = 750
_NAMED = {"PERSON", "LOCATION", "ORG"}
_CALENDAR = re.compile(
    r"\d|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b|\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"
)


def _identifying(text: str, label: str, start: int, end: int) -> bool:
    """Whether a GUM mention is gold here (module docstring)."""
    piece = text[start:end]
    if label in _NAMED:
        return any(
            w.group(0) != "I" and start + w.start() > 0
            for w in re.finditer(r"(?<![\w'-])[A-Z][\w'-]*", piece)
        )
    if label == "DATE_TIME":
        return _CALENDAR.search(piece) is not None
    return any(ch.isdigit() for ch in piece)


def gum_gold() -> list[GoldDocument]:
    """GUM test's sentences with the identifying mentions (`_identifying`) as gold."""
    docs = conll_gold("gum_ner/gum-test.conll", GUM_KINDS)
    return [
        GoldDocument(d.text, tuple(s for s in d.spans if _identifying(d.text, s.label, s.start, s.end)))
        for d in docs
    ]


def presidio_tool():
    analyzer = presidio_analyzer()
    return lambda texts: [
        [
            (r.start, r.end, PRESIDIO_LABELS.get(r.entity_type) or map_ner_label(r.entity_type))
            for r in analyzer.analyze(t, language="en")
        ]
        for t in texts
    ]


def deid_tool(detector):
    return lambda texts: [
        [(s.start, s.end, s.label) for s in spans] for spans in detector.detect_batch(texts)
    ]


def measure(corpus: str, docs: list[GoldDocument], tool: str, run, held_out: int | None = None) -> dict:
    texts = [d.text for d in docs]
    start = time.perf_counter()
    predictions = run(texts)
    seconds = time.perf_counter() - start
    report = detection_report(docs, predictions)
    row = {
        "corpus": f"{corpus} ({len(docs)})",
        "tool": tool,
        "token_recall": report["token_recall"],
        "token_precision": report["token_precision"],
        "entities_fully_protected": report["entities_fully_protected"],
        **{f"recall_{k}": v for k, v in report["per_type_recall"].items()},
        "docs_per_s": len(docs) / seconds,
    }
    if held_out is not None:
        unseen = detection_report(docs[held_out:], predictions[held_out:])
        row["held_out_recall"] = unseen["token_recall"]
        row["held_out_precision"] = unseen["token_precision"]
    print(f"{row['corpus']}, {tool}: R {row['token_recall']:.3f} P {row['token_precision']:.3f}", flush=True)
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--detectors", default="default", help="deid-hf detectors")
    parser.add_argument(
        "--policies", default="gdpr,hipaa,strict", help="identifier policies of the deid-hf rows"
    )
    parser.add_argument("--limit", type=int, default=None, help="sentences per corpus (a quick look)")
    args = parser.parse_args()
    tools = {"Presidio 2.2.366 + spaCy sm": presidio_tool()}
    for name in args.detectors.split(","):
        for policy in args.policies.split(","):
            tools[f"deid-hf {name} {policy}"] = deid_tool(get_detector(name, policy=policy))
    wikigold = conll_gold("wikigold/wikigold.conll.txt", WIKIGOLD_KINDS)
    synth = load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"))[SYNTH_HELD_OUT:]
    corpora = {
        "GUM test": (gum_gold(), None),
        "wikigold": (wikigold, first_held_out_sentence()),
        "presidio_synth_pii 750-1499": (synth, None),
    }
    rows = []
    for corpus, (docs, held_out) in corpora.items():
        docs = docs[: args.limit] if args.limit else docs
        held_out = held_out if held_out is not None and held_out < len(docs) else None
        for tool, run in tools.items():
            rows.append(measure(corpus, docs, tool, run, held_out))
    print()
    print_table(
        rows,
        ["corpus", "tool", "token_recall", "token_precision", "entities_fully_protected"]
        + ["held_out_recall", "held_out_precision", "docs_per_s"],
    )
    for corpus in corpora:
        ours = [r for r in rows if r["corpus"].startswith(corpus)]
        types = sorted({k for r in ours for k in r if k.startswith("recall_")})
        print(f"\n{corpus}: token recall by gold type")
        print_table(ours, ["tool", *types])
    write_results("detection_gdpr", {"policies": args.policies.split(","), "rows": rows})


if __name__ == "__main__":
    main()
