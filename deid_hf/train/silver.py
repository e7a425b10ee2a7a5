"""Silver (distilled) training documents: unlabelled text labelled by a slow detector for a fast one to learn.

Texts come from the corpora of the data folder whose own annotation is ignored (`SILVER_SOURCES`): ABCD
dialogues, GUM (train and test), SEC filings, BTC and WNUT17 tweets, SNIPS queries, SST-2 reviews and the
first `WIKIGOLD_SILVER_ARTICLES` wikigold articles (the other articles are held out for evaluation).
presidio_synth_pii and the PhysioNet notes are gold data and not used here. Each source gives a seeded
sample of its texts, or all of them for the sources named in `DetectorConfig.silver_whole`; the labelling
detector (by default the ``zsts`` ensemble with its p-filter) marks the spans under
`DetectorConfig.silver_policy`: an identifier policy (``hipaa``, ``strict``) or ``strict-names``
(`strict_names`: names, places, organisations and addresses as ``strict`` finds them, every other span as
``hipaa`` keeps it). Labelling is slow, so the documents are cached in ``<cache>/silver/`` under a key of
everything that decides them (``strict-names`` reads the ``strict`` labels).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from .._version import __version__
from ..corpora import LabelledDocument
from ..detect.lexicon import stop_words
from ..detect.policy import apply_policy, find_dates, find_phones
from ..errors import InputError
from ..policies import Policy
from ..spans import Span, merge_spans, trim_edge_words

_NO_SPACE_BEFORE = re.compile(
    r" (?=[.,;:!?%)\]}]|n't\b|'(?:s|m|re|ve|ll|d)\b)|(?<=[(\[{$]) | (?=' ?(?:s|m|t|re|ve|ll|d)\b)"
)


def detokenize(tokens: Sequence[str]) -> str:
    """Tokens joined as running text: no space before closing punctuation and clitics, none after opening
    brackets ("I ' m here ( now ) ." -> "I'm here (now).")."""
    return re.sub(r"' (?=(?:s|m|t|re|ve|ll|d)\b)", "'", _NO_SPACE_BEFORE.sub("", " ".join(tokens)))


def _conll_texts(*relative: str) -> Callable[[Path], list[str]]:
    def read(root: Path) -> list[str]:
        from ..evaluation.utility import load_conll

        return [
            detokenize(ex.tokens)
            for ex in load_conll([root / r for r in relative])
            if ex.tokens[0] != "-DOCSTART-"
        ]

    return read


#: wikigold articles (file order) whose sentences are silver text; articles from this index on are held out
WIKIGOLD_SILVER_ARTICLES = 72


def wikigold_articles(path: str | Path) -> list[list]:
    """wikigold's sentences (`evaluation.utility.Example`) grouped by article (split at ``-DOCSTART-``)."""
    from ..evaluation.utility import load_conll

    articles: list[list] = []
    for example in load_conll([path]):
        if example.tokens[0] == "-DOCSTART-":
            articles.append([])
        elif articles:
            articles[-1].append(example)
    return articles


def _wikigold_texts(root: Path) -> list[str]:
    articles = wikigold_articles(root / "wikigold" / "wikigold.conll.txt")
    return [detokenize(ex.tokens) for article in articles[:WIKIGOLD_SILVER_ARTICLES] for ex in article]


def _snips_texts(root: Path) -> list[str]:
    from ..evaluation.utility import load_snips

    return [ex.text for ex in load_snips(root / "snips_slotgated", "train")]


def _sst2_texts(root: Path) -> list[str]:
    lines = (root / "sst2" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t")[1] for line in lines if "\t" in line]


def _abcd_texts(root: Path) -> list[str]:
    dialogues = json.loads((root / "abcd_sample" / "abcd_sample.json").read_text(encoding="utf-8"))
    return ["\n".join(f"{speaker}: {turn}" for speaker, turn in d["original"]) for d in dialogues]


#: source name -> reader of its texts from the data folder
SILVER_SOURCES: dict[str, Callable[[Path], list[str]]] = {
    "abcd": _abcd_texts,
    "gum": _conll_texts("gum_ner/gum-train.conll", "gum_ner/gum-test.conll"),
    "sec": _conll_texts("sec_filings_ner/FIN5_train.txt"),
    "btc": _conll_texts("btc_broad_twitter_corpus/a.conll"),
    "wnut17": _conll_texts("wnut17/emerging.dev.conll"),
    "snips": _snips_texts,
    "sst2": _sst2_texts,
    "wikigold": _wikigold_texts,
}


#: labels that `strict_names` keeps as the strict policy finds them
STRICT_NAME_LABELS = frozenset({"PERSON", "ORG", "LOCATION", "ADDRESS"})
#: policies of the silver labels: the identifier policies and ``strict-names`` (`strict_names`)
#: (not gdpr: its quasi-identifier labels are outside the learned model's schema, `spans.MODEL_LABELS`)
SILVER_POLICIES = (Policy.HIPAA, Policy.STRICT, Policy.STRICT_NAMES)


#: score of a cached silver span (the cache keeps none): below every policy rule's, so the hipaa date and
#: phone rules win the merge over an overlapping name ("May" of "May 5, 1990") and no ID counts as validated
SILVER_SCORE = 0.0


#: characters trimmed off the edges of a silver name span (not "." of "Inc.", not "'" inside "O'Brien")
_EDGE_PUNCTUATION = frozenset("()[]{}\"“”‘’',;:")


def _is_function_word(word: str) -> bool:
    """A lower-case stop word, bare or in brackets or quotes ("the", "'s", "(of")."""
    return word in stop_words() or word.strip(".,;:'\"()[]") in stop_words()


def _without_edge_function_words(text: str, span: Span) -> Span | None:
    """``span`` without lower-case stop words and brackets, quotes or commas at its edges ("the Army of the
    Potomac" -> "Army of the Potomac", "(the Bronx)" -> "Bronx"); None when no word with a letter or digit
    is left."""
    trimmed = trim_edge_words(text, span, _is_function_word)
    if trimmed is None:
        return None
    start, end = trimmed.start, trimmed.end
    while text[start] in _EDGE_PUNCTUATION or text[start].isspace():
        start += 1
    while text[end - 1] in _EDGE_PUNCTUATION or text[end - 1].isspace():
        end -= 1
    return Span(start, end, span.label, span.score, span.source)


def strict_names(document: LabelledDocument) -> LabelledDocument:
    """``document`` labelled under ``strict`` relabelled under ``strict-names``: its PERSON, ORG, LOCATION
    and ADDRESS spans kept without lower-case function words at their edges (general text's organisations
    and places, which hipaa's casing and frequency rules trim), every other span as the hipaa policy keeps
    it (`detect.policy.apply_policy`), and hipaa's date and phone rules over the whole text: dates but not
    durations, relative days or times of day, identifying numbers but not counts, ages over 89 only, as the
    clinical gold marks them. A date or phone found by those rules outranks a name overlapping it."""
    text = document.text
    spans = [Span(s, e, label, SILVER_SCORE, "silver") for s, e, label in document.spans]
    names = [
        trimmed
        for s in spans
        if s.label in STRICT_NAME_LABELS and (trimmed := _without_edge_function_words(text, s))
    ]
    others = apply_policy(text, [s for s in spans if s.label not in STRICT_NAME_LABELS], "hipaa")
    merged = merge_spans(names + others + find_dates(text) + find_phones(text))
    labelled = tuple((s.start, s.end, s.label) for s in merged)
    return LabelledDocument(text, labelled, document.group, document.source, tuple(s[2] for s in labelled))


def unlabelled_texts(
    data_root: str | Path, per_source: int, seed: int = 0, whole: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """(source, text): a seeded sample of at most ``per_source`` texts of three or more words per source;
    every such text of the sources in ``whole``."""
    root = Path(data_root)
    out = []
    for name, read in SILVER_SOURCES.items():
        try:
            texts = [t for t in read(root) if len(t.split()) >= 3]
        except (OSError, KeyError, IndexError, ValueError) as exc:
            raise InputError(
                f"silver source {name!r} could not be read from {root} ({exc.__class__.__name__}: {exc}); "
                f"`deid-hf train-detector --silver 0` trains on gold data only"
            ) from None
        rng = random.Random(f"{seed}-{name}")
        out += [
            (name, t) for t in (texts if name in whole else rng.sample(texts, min(per_source, len(texts))))
        ]
    return out


def label_texts(texts: Sequence[tuple[str, str]], detector, batch_size: int = 32) -> list[LabelledDocument]:
    """Each (source, text) with ``detector``'s spans as its labels."""
    from tqdm.auto import tqdm

    docs = []
    for i in tqdm(range(0, len(texts), batch_size), desc="silver labels", unit="batch"):
        chunk = texts[i : i + batch_size]
        for j, ((source, text), spans) in enumerate(zip(chunk, detector.detect_batch([t for _, t in chunk]))):
            labelled = tuple((s.start, s.end, s.label) for s in spans)
            docs.append(
                LabelledDocument(
                    text,
                    labelled,
                    f"silver-{source}-{i + j}",
                    f"silver:{source}",
                    tuple(s[2] for s in labelled),
                )
            )
    return docs


def silver_documents(
    data_root: str | Path,
    per_source: int,
    *,
    seed: int = 0,
    detector: str = "zsts",
    policy: str = "hipaa",
    whole: Sequence[str] = (),
    cache: Path | None = None,
) -> list[LabelledDocument]:
    """`unlabelled_texts` labelled by ``get_detector(detector, policy=policy)`` (``strict-names``: the
    ``strict`` labels through `strict_names`), read from / written to ``cache`` (a folder; None:
    ``<cache>/silver``)."""
    from ..corpus_files import write_records
    from ..detect import get_detector, needs_language_model
    from ..models import load_causal_lm
    from ..paths import cache_dir

    if policy == Policy.STRICT_NAMES:
        docs = silver_documents(
            data_root, per_source, seed=seed, detector=detector, policy="strict", whole=whole, cache=cache
        )
        return [strict_names(d) for d in docs]
    texts = unlabelled_texts(data_root, per_source, seed, whole)
    key = hashlib.sha256(
        json.dumps([__version__, detector, policy, texts], ensure_ascii=False).encode()
    ).hexdigest()[:16]
    path = (cache or cache_dir() / "silver") / f"{detector}-{policy}-{key}.jsonl"
    if path.is_file():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return [
            LabelledDocument(
                r["text"], tuple(map(tuple, r["spans"])), r["group"], r["source"], tuple(r["labels"])
            )
            for r in rows
        ]
    # the pipelines' default language model, for the detectors that score words with one
    model, tokenizer = load_causal_lm() if needs_language_model(detector) else (None, None)
    docs = label_texts(texts, get_detector(detector, model, tokenizer, policy=policy))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_records(
        [
            {
                "text": d.text,
                "spans": d.spans,
                "group": d.group,
                "source": d.source,
                "labels": d.original_labels,
            }
            for d in docs
        ],
        path,
    )
    return docs
