"""Word lexicons the identifier policy and the case restorer consult: public resources only.

- Common English: `wordfreq` (Speer et al.) Zipf frequency of the lower-cased word, ``zipf >= COMMON_ZIPF``.
- Person names: Faker's en_US first and last names (positive evidence for a name), except names that are
  very frequent words ("Will", "Long", ``zipf >= NAME_MAX_ZIPF``).
- Corpus statistics (`DocumentFrequency`): a word found in at least ``min_share`` of the documents of a
  corpus (and at least ``min_docs`` of them) is domain vocabulary (clinical abbreviations, drug names,
  units: "gtt", "CPAP"), not an identifier, unless a context rule says otherwise; a known person name only
  when written in lower case (a common word: "foley") in that many documents.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections import Counter
from collections.abc import Iterable

from .text_shape import (
    ASCII_LETTERS,
    CLITIC,
    COMMON_WORD_ZIPF,
    NAME_IS_COMMON_WORD_ZIPF,
    RARE_NAME_ZIPF,
    TYPO_MAX_ZIPF,
    TYPO_TARGET_ZIPF,
    uses_capitals,
)

# the thresholds' former names (`text_shape` names what each decides)
COMMON_ZIPF = COMMON_WORD_ZIPF
NAME_MAX_ZIPF = NAME_IS_COMMON_WORD_ZIPF


@functools.lru_cache(maxsize=200_000)
def zipf(word: str) -> float:
    """wordfreq's Zipf frequency (log10 per billion words + 9) of the lower-cased word; 0 if unseen."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en")


@functools.lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English stop words (spaCy's list), lower case."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@functools.lru_cache(maxsize=1)
def person_names() -> frozenset[str]:
    """Lower-cased first and last names of Faker's en_US person provider."""
    from faker.providers.person.en_US import Provider

    names = [*Provider.first_names_male, *Provider.first_names_female, *Provider.last_names]
    names += list(getattr(Provider, "first_names_nonbinary", ()))
    return frozenset(name.lower() for name in names)


#: Faker locales whose names are written in Latin script: names of many cultures (training surrogates,
#: canaries, `given_names`)
NAME_LOCALES = (
    "en_US",
    "en_GB",
    "en_IN",
    "en_NG",
    "en_PH",
    "es_MX",
    "es_ES",
    "pt_BR",
    "fr_FR",
    "de_DE",
    "it_IT",
    "pl_PL",
    "nl_NL",
    "tr_TR",
    "vi_VN",
    "ga_IE",
    "hu_HU",
    "ro_RO",
    "cs_CZ",
    "sv_SE",
    "fi_FI",
    "id_ID",
    "zu_ZA",
    "yo_NG",
)


def folded(word: str) -> str:
    """``word`` case-folded without accents ("Thị" -> "thi"), as `given_names` lists names."""
    import unicodedata

    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode().casefold()


def _names_of_locales(attributes: tuple[str, ...]) -> frozenset[str]:
    """The names in ``attributes`` of the person providers of Faker's `NAME_LOCALES` (their romanized lists
    where a locale has them), case-folded without accents."""
    import importlib

    names: set[str] = set()
    for locale in NAME_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ModuleNotFoundError:  # Faker gives such a locale its language's names (en_PH: en)
            continue
        for attribute in attributes:
            romanized = attribute.replace("_names", "_romanized_names")
            names.update(getattr(provider, romanized, None) or getattr(provider, attribute, ()) or ())
    return frozenset(f for f in map(folded, names) if f.isalpha())


@functools.lru_cache(maxsize=1)
def given_names() -> frozenset[str]:
    """Given and middle names of Faker's `NAME_LOCALES`, case-folded without accents ("Thị" as "thi")."""
    return _names_of_locales(("first_names_female", "first_names_male", "first_names", "middle_names"))


@functools.lru_cache(maxsize=1)
def family_names() -> frozenset[str]:
    """Family names of Faker's `NAME_LOCALES`, case-folded without accents."""
    return _names_of_locales(("last_names", "last_names_male", "last_names_female"))


def is_known_name(word: str) -> bool:
    """A given or family name of any of Faker's `NAME_LOCALES` (en_US's `person_names` among them)."""
    key = folded(word.strip(".,:;'’\"()"))
    return key in person_names() or key in given_names() or key in family_names()


#: endings of English adjectives, abstract nouns, specialties and roles ("Afebrile", "Arousable",
#: "Physiatry", "Intensivist", "Urology"): a rare word with one is no name unless it is a known one
#: ("Olive", "Rory"); not "-ic", "-ent", "-al", which end as many surnames ("Radic", "Florent", "Vidal")
#: as adjectives
_WORD_ENDING = re.compile(
    r"(?i)(?:ile|able|ible|ous|ive|ary|ory|ness|ment|tion|sion|olog(?:y|ist|ists)|iatry|iatric|ist|ists|ics)$"
)


def rare_or_known(word: str, known_max_zipf: float) -> bool:
    """A word rarer than `text_shape.RARE_NAME_ZIPF` without an English word's ending (`_WORD_ENDING`), or
    a known name (`is_known_name`) rarer than ``known_max_zipf``: evidence that a capitalised word where a
    name may stand is one ("Marrowind", "Dorel"; not "MRSA", "Afebrile", "Intensivist")."""
    if is_known_name(word):
        return zipf(word) < known_max_zipf
    return zipf(word) < RARE_NAME_ZIPF and _WORD_ENDING.search(word) is None


def rare_name_word(word: str) -> bool:
    """A rare word of 3+ letters (`rare_or_known`, known names as rare as that), no clinical term: part of
    a name right beside one."""
    return len(word) >= 3 and rare_or_known(word, RARE_NAME_ZIPF) and not is_clinical_term(word)


def is_name_word(word: str) -> bool:
    """A known person name that is not also a very frequent English word."""
    word = word.strip(".,:;'’\"()")
    return word.lower() in person_names() and zipf(word) < NAME_MAX_ZIPF


def is_common_word(word: str) -> bool:
    """A frequent English word (wordfreq) that is not a known person name."""
    word = word.strip(".,:;'’\"()")
    return bool(word) and zipf(word) >= COMMON_ZIPF and not is_name_word(word)


def is_abbreviation(word: str) -> bool:
    """Looks like an abbreviation, unit or code rather than a name: has a digit or '/', has no vowel, or is
    at most 3 letters long."""
    word = word.strip(".,:;'’\"()")
    letters = "".join(ch for ch in word if ch.isalpha())
    return (
        any(ch.isdigit() for ch in word)
        or "/" in word
        or len(letters) <= 3
        or not any(ch in "aeiouyAEIOUY" for ch in letters)
    )


#: endings of drug names and clinical terms (pharmacological stems, medical suffixes), and medical roots
CLINICAL_SUFFIXES = (
    "itis",
    "emia",
    "aemia",
    "osis",
    "ectomy",
    "otomy",
    "ostomy",
    "plasty",
    "scopy",
    "gram",
    "graphy",
    "pnea",
    "uria",
    "algia",
    "cardia",
    "penia",
    "plegia",
    "paresis",
    "megaly",
    "oma",
    "opathy",
    "trophy",
    "lysis",
    "cillin",
    "mycin",
    "micin",
    "cycline",
    "floxacin",
    "azole",
    "conazole",
    "vir",
    "olol",
    "pril",
    "sartan",
    "dipine",
    "statin",
    "prazole",
    "tidine",
    "sone",
    "olone",
    "azepam",
    "azolam",
    "barbital",
    "caine",
    "parin",
    "xaban",
    "gatran",
    "platin",
    "mab",
    "nib",
    "tropin",
    "pressin",
    "phrine",
    "amine",
    "idine",
    "ipine",
    "oxetine",
    "triptyline",
    "afil",
    "terol",
    "uride",
    "thiazide",
    "semide",
    "tide",
    "lukast",
    "pam",
    "lam",
    "done",
    "codone",
    "morphone",
    "fentanil",
    "cort",
    "insulin",
    "ase",
)
CLINICAL_ROOTS = (
    "cardi",
    "pulmon",
    "neph",
    "hepat",
    "gastr",
    "neuro",
    "oste",
    "arthr",
    "hemo",
    "haem",
    "thromb",
    "vaso",
    "angio",
    "broncho",
    "pneumo",
    "cerebr",
    "encephal",
    "myo",
    "ventric",
    "atri",
    "sept",
    "aort",
    "coron",
    "diure",
    "sedat",
    "intubat",
    "extubat",
)


@functools.lru_cache(maxsize=1)
def drug_names() -> frozenset[str]:
    """Lower-cased one-word drug names and brands of the `drug-named-entity-recognition` dictionary
    (DrugBank, MeSH, Wikipedia; Fast Data Science), without Faker's person names. Loading that dictionary
    takes seconds, so the word list is kept in the deid-hf cache, one file per version of both packages."""
    from importlib.metadata import version

    from ..paths import cache_dir

    versions = f"{version('drug-named-entity-recognition')}-faker{version('faker')}"
    path = cache_dir() / "lexicon" / f"drug-names-{versions}.txt"
    try:
        return frozenset(path.read_text(encoding="utf-8").split())
    except (OSError, UnicodeDecodeError):
        pass
    from drug_named_entity_recognition import drugs_finder

    names = frozenset(
        w for w in drugs_finder.drug_variant_to_canonical if w.isalpha() and w not in person_names()
    )
    _write_quietly(path, "\n".join(sorted(names)))
    return names


def _write_quietly(path, text: str) -> None:
    """``text`` into ``path`` atomically (a temporary file renamed); nothing when the cache is read-only."""
    import os
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except OSError:
        return


def is_clinical_term(word: str) -> bool:
    """A drug name or brand of at least 4 letters (`drug_names`: "Motrin", "Oxycontin"), or a word of at
    least 6 letters ending in a drug-name stem or medical suffix (`CLINICAL_SUFFIXES`) or starting with a
    medical root (`CLINICAL_ROOTS`)."""
    w = word.strip(".,:;'’\"()").lower()
    if len(w) < 4 or not w.isalpha():
        return False
    if w in drug_names():
        return True
    return len(w) >= 6 and (w.endswith(CLINICAL_SUFFIXES) or w.startswith(CLINICAL_ROOTS))


MISSPELLING_MIN_LEN = 6
MISSPELLING_ZIPF = TYPO_TARGET_ZIPF
MISSPELLING_MAX_ZIPF = TYPO_MAX_ZIPF
#: a longer word is no typo of a frequent word (none is this long): not checked, so the edits (about 54 times
#: the word's length, each as long as the word) stay bounded whatever the input
MISSPELLING_MAX_LEN = 30


@functools.lru_cache(maxsize=100_000)
def is_misspelling(word: str) -> bool:
    """A rare word (zipf < MISSPELLING_MAX_ZIPF) of at least MISSPELLING_MIN_LEN letters, not a known
    name, one edit (delete, transpose, replace, insert; Norvig's spelling corrector) from a frequent word
    (zipf >= MISSPELLING_ZIPF): a typo ("defecits", "eariler"), not a name."""
    w = word.strip(".,:;'’\"()").lower()
    if (
        not MISSPELLING_MIN_LEN <= len(w) <= MISSPELLING_MAX_LEN
        or not w.isalpha()
        or w in person_names()
        or zipf(w) >= MISSPELLING_MAX_ZIPF
    ):
        return False
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(w[:i], w[i:]) for i in range(len(w) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + c + b[1:] for a, b in splits if b for c in letters}
    edits |= {a + c + b for a, b in splits for c in letters}
    edits.discard(w)
    return any(zipf(e) >= MISSPELLING_ZIPF for e in edits)


def words(text: str) -> list[str]:
    return ASCII_LETTERS.findall(text)


class DocumentFrequency:
    """In how many documents of a corpus each word occurs (any case; in lower case; in lower case in a text
    that uses capitals; ``fit``), and which words are therefore corpus vocabulary (``df >= max(min_docs,
    min_share * documents)``) or common nouns (`is_common_noun`)."""

    def __init__(self, min_share: float = 0.02, min_docs: int = 5, min_common_docs: int = 3):
        self.min_share = min_share
        self.min_docs = min_docs
        self.min_common_docs = min_common_docs
        self.counts: Counter[str] = Counter()
        self.lower_counts: Counter[str] = Counter()
        self.common_counts: Counter[str] = Counter()
        self.documents = 0

    def fit(self, texts: Iterable[str]) -> DocumentFrequency:
        for text in texts:
            found = words(text)
            self.counts.update({w.lower() for w in found})
            self.lower_counts.update({w for w in found if w.islower()})
            if uses_capitals(text):
                self.common_counts.update({CLITIC.sub("", w) for w in found if w.islower()})
            self.documents += 1
        return self

    def is_vocabulary(self, word: str) -> bool:
        """Found in many documents; a known person name must be written in lower case (as a common word:
        "foley") in that many."""
        if not self.documents:
            return False
        word = word.lower().strip(".,:;'’\"()")
        counts = self.lower_counts if is_name_word(word) else self.counts
        return counts[word] >= max(self.min_docs, self.min_share * self.documents)

    def is_common_noun(self, word: str) -> bool:
        """Written in lower case amid capitals (a text that `uses_capitals`) in ``min_common_docs`` documents:
        the authors treat it as a common noun ("Flovent" in one note, "flovent" in others), not a name."""
        word = CLITIC.sub("", word.strip(".,:;'’\"()-")).lower()
        return self.common_counts[word] >= self.min_common_docs

    def vocabulary(self) -> Vocabulary:
        """The words this corpus makes vocabulary and common nouns, as sets (what a model folder ships)."""
        return Vocabulary(
            frozenset(w for w in self.counts if self.is_vocabulary(w)),
            frozenset(w for w, n in self.common_counts.items() if n >= self.min_common_docs),
        )


@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """Corpus vocabulary decided once (`DocumentFrequency.vocabulary`, or a model folder's
    ``VOCABULARY_FILE``): the same questions as `DocumentFrequency`, answered from two word sets."""

    words: frozenset[str]
    common_nouns: frozenset[str]

    def is_vocabulary(self, word: str) -> bool:
        return word.lower().strip(".,:;'’\"()") in self.words

    def is_common_noun(self, word: str) -> bool:
        return CLITIC.sub("", word.strip(".,:;'’\"()-")).lower() in self.common_nouns

    def without(self, words: Iterable[str]) -> Vocabulary:
        """This vocabulary less ``words`` (lower case)."""
        drop = {w.lower() for w in words}
        return Vocabulary(self.words - drop, self.common_nouns - drop)

    def to_json(self) -> str:
        return json.dumps(
            {"words": sorted(self.words), "common_nouns": sorted(self.common_nouns)}, ensure_ascii=False
        )

    @classmethod
    def from_json(cls, text: str) -> Vocabulary:
        data = json.loads(text)
        return cls(frozenset(data["words"]), frozenset(data["common_nouns"]))


#: the file of a model folder holding the vocabulary of its training corpora (`Vocabulary`)
VOCABULARY_FILE = "deid_hf_vocabulary.json"
