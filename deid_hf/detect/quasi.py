"""Quasi-identifiers of the gdpr policy: what singles a person out in combination without naming them.

`QuasiIdentifierDetector` gives spaCy's nationalities, religious and political groups (``NORP`` ->
``DEMOGRAPHIC``), amounts of money, quantities and percentages (-> ``QUANTITY``) and named events
(-> ``OTHER``), and occupations (``OCCUPATION``) from `occupations`, a list built from Faker's job
titles. spaCy's parse is shared with a `ner.SpacyDetector` of the same pipeline (`ner.parse` keeps the
last batches).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from collections.abc import Sequence
from pathlib import Path

from ..spans import Span, merge_spans
from .base import Detector
from .lexicon import folded, given_names, person_names
from .ner import NOT_FOR_NER, SPACY_NAME_SCORE, parse

#: spaCy labels of quasi-identifiers -> the schema's labels
QUASI_LABELS = {
    "NORP": "DEMOGRAPHIC",
    "MONEY": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "PERCENT": "QUANTITY",
    "EVENT": "OTHER",
}
#: an occupation scores below spaCy's names, so a name holding one ("Royal College of Surgeons") stays a name
OCCUPATION_SCORE = 0.4
#: heads of Faker's "Head, qualifier" titles that are no occupation on their own ("Copy, advertising"), and
#: WordNet's "minister" (a clergyman first; in a decision a member of a government)
NOT_OCCUPATIONS = frozenset({"copy", "land", "make", "sub", "runner", "minister"})
#: the occupations WordNet knows, one per line (package data)
OCCUPATIONS_FILE = "occupations.txt"
#: a word: letters, joined by hyphens ("able-bodied", "teacher-training"); a possessive is no part of it
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
#: a character that joins a word to the one beside it (a digit, an underscore, a hyphen)
_JOINED = re.compile(r"[\w-]")


@functools.cache
def job_titles() -> tuple[str, ...]:
    """Faker's English job titles in lower case, longest first, as written ("police officer"), reordered
    where Faker writes "Head, qualifier" ("Journalist, newspaper" -> "newspaper journalist"), and their heads
    ("journalist"); parentheses dropped, a slash read as "or" ("Secretary/administrator")."""
    from faker.providers.job.en_US import Provider

    found = set()
    for title in Provider.jobs:
        title = re.sub(r"\s*\(.*?\)", "", title).lower()
        heads, _, qualifier = (part.strip() for part in title.partition(","))
        slash = re.search(r"[^\s/]+(?:/[^\s/]+)+", heads)  # "commercial/residential surveyor": either word
        alternatives = slash.group(0).split("/") if slash else []
        choices = (
            [heads[: slash.start()] + w + heads[slash.end() :] for w in alternatives] if slash else [heads]
        )
        for head in choices:
            if head and head not in NOT_OCCUPATIONS:
                found.add(head)
                if qualifier and not re.search(r"[,/]", qualifier):
                    found.add(f"{qualifier} {head}")
    return tuple(sorted(found, key=lambda o: (-len(o), o)))


@functools.cache
def occupations() -> tuple[str, ...]:
    """Occupations in lower case, longest first: `job_titles` and the occupations WordNet 3.0 knows
    (``data/occupations.txt``, built by ``benchmarks/wordnet_occupations.py``: "poet", "molecular
    biologist")."""
    listed = (Path(__file__).parents[1] / "data" / OCCUPATIONS_FILE).read_text(encoding="utf-8").splitlines()
    wordnet = {line.strip() for line in listed if line.strip() and not line.startswith("#")} - NOT_OCCUPATIONS
    return tuple(sorted(set(job_titles()) | wordnet, key=lambda o: (-len(o), o)))


@functools.cache
def _by_first_word() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Each occupation's words, grouped by its first word, longest first."""
    grouped: dict[str, list[tuple[str, ...]]] = {}
    for occupation in occupations():
        words = tuple(occupation.split())
        grouped.setdefault(words[0], []).append(words)
    return {first: tuple(entries) for first, entries in grouped.items()}


def _plural_or_word(word: str) -> tuple[str, ...]:
    """``word`` and the singulars it may be the plural of: "teachers", "coaches", "witnesses" (an "es" only
    after s, x, z, ch, sh or o: "Poles" is no plural of "pol")."""
    forms = [word]
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh", "o")):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    return tuple(forms)


def _match(words: list[tuple[int, int, str]], i: int, text: str) -> int | None:
    """The end (a word index) of the longest occupation that starts at word ``i``, its words one blank
    apart and its last word maybe plural; None if none starts there."""
    first, grouped = words[i][2], _by_first_word()
    entries = grouped.get(first, ())
    singular = [e for form in _plural_or_word(first)[1:] for e in grouped.get(form, ()) if len(e) == 1]
    for entry in (*entries, *singular):
        run = words[i : i + len(entry)]
        if len(run) < len(entry) or any(text[a[1] : b[0]] not in (" ", "\t") for a, b in zip(run, run[1:])):
            continue
        if [w[2] for w in run[:-1]] == list(entry[:-1]) and entry[-1] in _plural_or_word(run[-1][2]):
            return i + len(entry)
    return None


def find_occupations(text: str, source: str = "occupations") -> list[Span]:
    """Every occupation of `occupations` written in ``text`` as whole words (not part of a hyphenated word:
    "teacher-training"), in any casing, with a plural "s" or "es"; the longest where several start at one
    word. A lookup of each word's following words, not one pattern of thousands of alternatives."""
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    found, i = [], 0
    while i < len(words):
        end_at = _match(words, i, text)
        if end_at is None:
            i += 1
            continue
        start, end = words[i][0], words[end_at - 1][1]
        if not _JOINED.match(text[start - 1 : start]) and not _JOINED.match(text[end : end + 1]):
            found.append(Span(start, end, "OCCUPATION", OCCUPATION_SCORE, source))
        i = end_at
    return found


class QuasiIdentifierDetector(Detector):
    """spaCy's quasi-identifier entities (`QUASI_LABELS`) and occupations (`find_occupations`)."""

    name = "quasi"

    def __init__(self, nlp="spacy-sm"):
        from ..models import load_spacy

        self.nlp = load_spacy(nlp) if isinstance(nlp, str) else nlp

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        docs = parse(self.nlp, tuple(texts), NOT_FOR_NER)
        return [
            [
                *(
                    Span(ent.start_char, ent.end_char, QUASI_LABELS[ent.label_], SPACY_NAME_SCORE, self.name)
                    for ent in doc.ents
                    if ent.label_ in QUASI_LABELS and ent.text.strip()
                ),
                *find_occupations(text, self.name),
            ]
            for text, doc in zip(texts, docs)
        ]


def quasi_labels_win(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` merged (`spans.merge_spans`), where a merged span is exactly a group (``DEMOGRAPHIC``) that
    a detector found, or exactly an occupation written in lower case, labelled so: a model may type
    "Nepali" a place, "Gujarati" a person or "physiotherapist" an organisation, and the label picks the
    surrogate ("a Lake Logan nun"). A person stays one where the group's words are listed names
    ("Christian"); a capitalised occupation may be a surname ("Baker said")."""
    merged = merge_spans(spans)
    starts = [m.start for m in merged]
    label = {}
    for span in spans:
        i = bisect.bisect_right(starts, span.start) - 1
        whole = merged[i]
        if (span.start, span.end) != (whole.start, whole.end) or whole.label in ("DEMOGRAPHIC", "OCCUPATION"):
            continue
        group = span.label == "DEMOGRAPHIC" and (
            whole.label != "PERSON" or not _a_name(text[span.start : span.end])
        )
        job = span.label == "OCCUPATION" and text[span.start : span.end].islower()
        if group or job:
            label[i] = span.label
    return [dataclasses.replace(m, label=label[i]) if i in label else m for i, m in enumerate(merged)]


def _a_name(piece: str) -> bool:
    """Whether a word of ``piece`` is a listed given name or surname ("Christian", "Jordan")."""
    return any(folded(w) in given_names() or w.lower() in person_names() for w in piece.split())
