"""Re-identification attack: name the person behind each de-identified document from background knowledge.

The attacker knows every document of the corpus in its original text except the one attacked (for each
person, their other documents). It represents documents as TF-IDF vectors (lower-cased words, sublinear
term frequency, inverse document frequency of the original corpus) and ranks the people by the cosine
similarity between the attacked document and the sum of each person's other documents (a nearest-centroid
classifier). A document is attacked when its person has another document; every person with a background
document is a candidate. Top-1 and top-k accuracy are reported beside chance (k / candidates) and beside
the same attack on the original text.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import InputError
from .stats import wilson_interval

_WORD = re.compile(r"\w+")
#: what the attack does not measure, stated in every report
NOT_COVERED = (
    "attackers with other background knowledge (registries, social media, a person's demographics)",
    "stronger classifiers (a fine-tuned encoder could do better than TF-IDF: the accuracy is a lower bound)",
    "linking documents to each other without naming the person",
    "identifiers the detector missed are attacked only as words: no lookup of a leaked name",
)


def words(text: str) -> list[str]:
    """Lower-cased word tokens of the attacker's vectors."""
    return _WORD.findall(text.lower())


Vector = dict[str, float]


def _dot(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(value * b.get(word, 0.0) for word, value in a.items())


class TfidfSpace:
    """Sparse TF-IDF vectors (word -> weight, unit length) over the document frequencies of ``background``."""

    def __init__(self, background: Sequence[str]) -> None:
        counted = [Counter(words(text)) for text in background]
        frequency = Counter(word for counts in counted for word in counts)
        total = len(background)
        self.idf = {word: math.log((1 + total) / (1 + n)) + 1 for word, n in frequency.items()}
        self.background = [self._vector(counts) for counts in counted]

    def _vector(self, counts: Counter) -> Vector:
        vector = {w: (1 + math.log(n)) * self.idf[w] for w, n in counts.items() if w in self.idf}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {w: v / norm for w, v in vector.items()}

    def vector(self, text: str) -> Vector:
        """The unit-length vector of ``text`` (words outside the vocabulary are dropped)."""
        return self._vector(Counter(words(text)))


def true_person_ranks(
    originals: Sequence[str], people: Sequence[str], attacked: Sequence[str | None], seed: int = 0
) -> list[int]:
    """For each attacked document (``attacked[i]`` stands for ``originals[i]``; ``None``: not attacked)
    whose person has another document: the rank (1 = first) of the true person among all candidates,
    leave-one-document-out; ties are broken at random (``seed``)."""
    space = TfidfSpace(originals)
    names = sorted(set(people))
    column = {name: j for j, name in enumerate(names)}
    profiles: list[Vector] = [{} for _ in names]
    postings: dict[str, list[tuple[int, float]]] = {}
    for person, vector in zip(people, space.background):
        profile = profiles[column[person]]
        for word, value in vector.items():
            profile[word] = profile.get(word, 0.0) + value
    for j, profile in enumerate(profiles):
        for word, value in profile.items():
            postings.setdefault(word, []).append((j, value))
    squared = np.array([sum(v * v for v in p.values()) for p in profiles])
    sizes, ranks, rng = Counter(people), [], random.Random(seed)
    for i, person in enumerate(people):
        if sizes[person] < 2 or attacked[i] is None:
            continue
        query, own, x = space.vector(attacked[i]), column[person], space.background[i]
        dots = np.zeros(len(names))
        for word, value in query.items():
            for j, weight in postings.get(word, ()):
                dots[j] += value * weight
        scores = dots / np.sqrt(np.where(squared > 0, squared, 1.0))
        own_squared = squared[own] - 2 * _dot(profiles[own], x) + _dot(x, x)
        scores[own] = (dots[own] - _dot(query, x)) / math.sqrt(max(own_squared, 1e-12))
        ties = int(np.sum(scores == scores[own])) - 1  # broken at random: an empty text names nobody
        ranks.append(1 + int(np.sum(scores > scores[own])) + rng.randint(0, ties))
    return ranks


def attack_summary(ranks: Sequence[int], candidates: int, k: int) -> dict:
    """Top-1 / top-k accuracy with Wilson intervals, beside chance."""
    n = len(ranks)
    top1, topk = sum(r == 1 for r in ranks), sum(r <= k for r in ranks)
    one, many = wilson_interval(top1, n), wilson_interval(topk, n)
    return {
        "documents": n,
        "top1": top1 / n if n else None,
        "top1_interval": list(one) if one else None,
        f"top{k}": topk / n if n else None,
        f"top{k}_interval": list(many) if many else None,
        "mean_reciprocal_rank": sum(1 / r for r in ranks) / n if n else None,
    }


def check_attackable(people: Sequence[str]) -> None:
    """InputError unless some person has two documents (the attack's background)."""
    if not attackable(people):
        raise InputError(
            "no person has two documents: the attack needs a person's other documents as background"
        )


def attackable(people: Sequence[str]) -> list[int]:
    """Indices of the documents whose person has another document (the ones the attack can rank)."""
    sizes = Counter(people)
    return [i for i, person in enumerate(people) if sizes[person] > 1]


def tfidf_attack(
    originals: Sequence[str], people: Sequence[str], attacked: Sequence[str | None], k: int = 5
) -> dict:
    """`true_person_ranks` summarised (`attack_summary`)."""
    if not (len(originals) == len(people) == len(attacked)):
        raise InputError("originals, people and attacked documents must be as many")
    return attack_summary(true_person_ranks(originals, people, attacked), len(set(people)), k)


def run_reid_audit(
    originals: Sequence[str],
    people: Sequence[str],
    variants: dict[str, Callable[[], Sequence[str]]],
    *,
    k: int = 5,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """The attack on the original text and on each variant (name -> a function giving the de-identified
    documents, row for row; ``None`` for a document the variant leaves unattacked, as a variant too slow
    for the whole corpus does). A variant that attacks a subset also gets the attack on the original text
    of the same documents (``original_same_documents``), the fair comparison. Returns rates and counts
    only, never text."""
    people = [str(p) for p in people]
    candidates, sizes = len(set(people)), Counter(people)
    check_attackable(people)
    results = {"original text": tfidf_attack(originals, people, originals, k)}
    for name, deidentify in variants.items():
        if progress:
            progress(name)
        attacked = list(deidentify())
        results[name] = tfidf_attack(originals, people, attacked, k)
        if any(text is None for text in attacked):
            same = [o if a is not None else None for o, a in zip(originals, attacked)]
            results[name]["original_same_documents"] = tfidf_attack(originals, people, same, k)
    return {
        "audit": "reid",
        "attacker": "TF-IDF nearest centroid (cosine) over each person's other documents, original text",
        "documents": len(originals),
        "people": candidates,
        "people_with_two_or_more": sum(n > 1 for n in sizes.values()),
        "k": k,
        "chance": {"top1": 1 / candidates, f"top{k}": min(1.0, k / candidates)},
        "results": results,
        "not_covered": list(NOT_COVERED),
    }
