"""The detector's training-data engine: more ways to see the gold contexts, and clinical look-alikes.

- `refilled`: a gold document whose every span is re-filled with a sampled surrogate of the same type,
  from many cultures (Faker locales), spellings, casings and formats, one surrogate per distinct original
  in the copy; the model learns the context, not the names it saw.
- `case_copy`: a copy of a document in ALL CAPS or lower case (spans keep their offsets).
- `with_look_alikes`: a gold note with sentences of clinical vocabulary that looks like identifiers (drug
  and nutrition brands and their misspellings, eponymous devices and signs, ventilator and pump settings,
  times of day) inserted at its line and sentence breaks, in the note's casing; none of it is labelled.
- `line_pieces`: a gold note cut into pieces of a few consecutive lines, each a training text of its own
  (a note's windows are long; short clinical texts, most without an identifier, teach the model that a
  short text is not a record full of identifiers).

`augmented` applies the parts `DetectorConfig` asks for to the gold documents (silver text gets case copies
only). Every draw comes from one seeded `random.Random`, so a recipe gives the same documents every run.
"""

from __future__ import annotations

import functools
import random
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from ..corpora import LabelledDocument
from ..detect.lexicon import NAME_LOCALES
from ..errors import InputError

#: drug, nutrition and supply brands written like names in clinical notes
BRANDS = [
    "Lasix",
    "Levophed",
    "Vancomycin",
    "Zosyn",
    "Flagyl",
    "Ativan",
    "Haldol",
    "Dilaudid",
    "Fentanyl",
    "Propofol",
    "Precedex",
    "Heparin",
    "Coumadin",
    "Lopressor",
    "Captopril",
    "Protonix",
    "Pepcid",
    "Reglan",
    "Zofran",
    "Tylenol",
    "Percocet",
    "Morphine",
    "Versed",
    "Dopamine",
    "Dobutamine",
    "Milrinone",
    "Amiodarone",
    "Digoxin",
    "Lantus",
    "Humalog",
    "Kayexalate",
    "Lactulose",
    "Colace",
    "Senna",
    "Dulcolax",
    "Nexium",
    "Solumedrol",
    "Decadron",
    "Bactrim",
    "Cipro",
    "Levaquin",
    "Ceftriaxone",
    "Cefepime",
    "Meropenem",
    "Gentamicin",
    "Fluconazole",
    "Diflucan",
    "Albuterol",
    "Atrovent",
    "Combivent",
    "Nipride",
    "Cardizem",
    "Labetalol",
    "Hydralazine",
    "Plavix",
    "Integrilin",
    "Lovenox",
    "Argatroban",
    "Keppra",
    "Dilantin",
    "Nimodipine",
    "Mannitol",
    "Vasopressin",
    "Neurontin",
    "Seroquel",
    "Zyprexa",
    "Ensure",
    "Boost",
    "Promote",
    "Impact",
    "Nepro",
    "Jevity",
    "Osmolite",
    "Pulmocare",
    "Glucerna",
    "Replete",
    "Peptamen",
    "Novasource",
    "Vivonex",
    "Tegaderm",
    "Duoderm",
    "Xeroform",
    "Aquacel",
    "Mepilex",
    "Kerlix",
    "Pyxis",
    "Alaris",
]
#: devices, positions, scales and signs named after people
EPONYMS = [
    "Swan-Ganz",
    "Foley",
    "Dobhoff",
    "Salem",
    "Hickman",
    "Groshong",
    "Quinton",
    "Cordis",
    "Shiley",
    "Passy-Muir",
    "Pleurevac",
    "Jackson-Pratt",
    "Hemovac",
    "Penrose",
    "Blakemore",
    "Trendelenburg",
    "Fowler",
    "Glasgow",
    "Ramsay",
    "Braden",
    "Morse",
    "Allen",
    "Babinski",
    "Kussmaul",
    "Cheyne-Stokes",
    "Whipple",
    "Nissen",
    "Hartmann",
    "Yankauer",
    "Seldinger",
    "Bair",
    "Kinair",
    "Stryker",
    "Medtronic",
    "Baxter",
    "Ambu",
]
_SENTENCES = (
    "started on {brand} gtt at {small} mcg/kg/min",
    "{brand} {dose} mg iv given at {clock}",
    "{eponym} in place, draining well",
    "{eponym} {device} changed today",
    "vent settings {mode} {vt}/{rate}/{peep}/{fio2}%",
    "peep {peep}, ps {small}/{peep}, fio2 {fio2}%",
    "bp {sbp}/{dbp}, hr {hr}, {brand} titrated to map > {small}0",
    "tf {brand} @ {small}0cc/hr, residuals {small}0cc",
    "{brand} {small}/{small} held for sbp < {sbp}",
    "{eponym} score {small}, turned q{small}h",
    "k {small}.{small}, repleted with {brand}",
    "sats {hr}-{fio2}% on {small}l nc from {clock} to {clock}",
    "{abbr} done, {brand} and {brand} given per {abbr}",
)
_FILL = {
    "brand": lambda rng: misspelt(rng.choice(BRANDS), rng),
    "eponym": lambda rng: rng.choice(EPONYMS),
    "device": lambda rng: rng.choice(("catheter", "line", "tube", "drain", "mattress", "sheath")),
    "mode": lambda rng: rng.choice(("ac", "cpap", "simv", "psv", "imv")),
    "abbr": lambda rng: rng.choice(("cxr", "abg", "ekg", "kub", "tte", "picc", "ngt", "ogt", "prbc", "ffp")),
    "clock": lambda rng: f"{rng.randrange(24):02d}{rng.choice(('00', '15', '30', '45'))}",
    "small": lambda rng: str(rng.randint(1, 9)),
    "dose": lambda rng: str(rng.choice((5, 10, 20, 25, 40, 50, 100, 250, 500))),
    "vt": lambda rng: str(rng.randrange(350, 750, 50)),
    "rate": lambda rng: str(rng.randint(8, 28)),
    "peep": lambda rng: str(rng.randint(0, 15)),
    "fio2": lambda rng: str(rng.randrange(21, 100)),
    "sbp": lambda rng: str(rng.randint(80, 180)),
    "dbp": lambda rng: str(rng.randint(40, 100)),
    "hr": lambda rng: str(rng.randint(50, 130)),
}
_BREAK = re.compile(r"\n|(?<=[.;])\s")


def misspelt(word: str, rng: random.Random, share: float = 0.3) -> str:
    """``word`` unchanged, or with one letter dropped, doubled or swapped with the next (``share`` of
    calls): the misspellings of drug names that notes are full of."""
    if len(word) < 5 or rng.random() >= share:
        return word
    i = rng.randrange(1, len(word) - 2)
    edit = rng.randrange(3)
    if edit == 0:
        return word[:i] + word[i + 1 :]
    if edit == 1:
        return word[:i] + word[i] + word[i:]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def cased_like(original: str, surrogate: str, rng: random.Random) -> str:
    """The surrogate in the original's casing when it is ALL CAPS or lower case, else now and then (one in
    five) in one of those: notes write names and places every way."""
    if original.isupper() and len(original) > 1:
        return surrogate.upper()
    if original.islower():
        return surrogate.lower()
    roll = rng.random()
    return surrogate.upper() if roll < 0.1 else surrogate.lower() if roll < 0.2 else surrogate


#: Latin letters that Unicode does not decompose into a base letter and an accent, as written in ASCII
_UNDECOMPOSED = str.maketrans(
    {"ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L"}
    | {"đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i", "ħ": "h", "Ħ": "H"}
)


def ascii_folded(text: str) -> str:
    """``text`` in ASCII letters: accents dropped ("José" -> "Jose"), letters without a decomposition
    written out ("Michał Groß" -> "Michal Gross"), anything else removed."""
    return unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED)).encode("ascii", "ignore").decode()


def checked_locales(locales: str | Sequence[str]) -> tuple[str, ...]:
    """``locales`` (a sequence, or names separated by commas) as a tuple of locales Faker knows; an
    `InputError` naming the others. Names are mostly folded to ASCII (`SurrogateSource.person`), so a
    locale of another script gives few names of its own."""
    from faker.config import AVAILABLE_LOCALES

    items = [x.strip() for x in locales.split(",") if x.strip()] if isinstance(locales, str) else locales
    unknown = [x for x in items if x not in AVAILABLE_LOCALES]
    if unknown or not items:
        raise InputError(f"locales must be Faker locales such as en_US or de_DE, got {unknown or locales!r}")
    other_script = [x for x in items if not _latin_names(x)]
    if other_script:
        raise InputError(
            f"locales must write names in Latin letters (they are folded to ASCII), got {other_script}"
        )
    return tuple(items)


@functools.cache
def _latin_names(locale: str) -> bool:
    """Whether most of a sample of Faker's names for ``locale`` are written in Latin letters."""
    from faker import Faker

    fake = Faker(locale)
    fake.seed_instance(0)
    names = [fake.name() for _ in range(20)]
    latin = [all("LATIN" in unicodedata.name(ch, "") for ch in name if ch.isalpha()) for name in names]
    return sum(latin) > len(latin) / 2


class SurrogateSource:
    """Same-type surrogates for gold spans: person names in the original's shape from Faker's ``locales``
    (default `NAME_LOCALES`, many cultures), everything else from `deid_hf.replace.full_entity.FullEntity`
    (dates and numbers keep their format)."""

    def __init__(self, locales: Sequence[str] = NAME_LOCALES) -> None:
        from faker import Faker

        from ..replace.full_entity import FullEntity

        self.locales = checked_locales(locales)
        self.fakers = {locale: Faker(locale) for locale in self.locales}
        self.full_entity = FullEntity()

    def person(self, original: str, rng: random.Random) -> str:
        fake = self.fakers[rng.choice(self.locales)]
        fake.seed_instance(rng.getrandbits(64))
        first, last = fake.first_name(), fake.last_name()
        if rng.random() < 0.7:
            first, last = ascii_folded(first) or "Ana", ascii_folded(last) or "Lee"
        words = original.split()
        if "," in original:
            name = f"{last}, {first}"
        elif re.fullmatch(r"(?:[A-Z]\.?\s?){1,3}", original.strip()):
            name = " ".join(f"{c}." for c in (first[0], last[0])[: max(1, len(words))])
        elif len(words) == 1:
            name = rng.choice((first, last, last))
        else:
            middle = f" {fake.first_name()[0]}." if len(words) >= 3 else ""
            name = f"{first}{middle} {last}"
        return name

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        if label == "PERSON":
            return self.person(original, rng)
        drawn = self.full_entity.surrogate(original, label, rng)
        return drawn if drawn.strip() else original


def refilled(document: LabelledDocument, source: SurrogateSource, rng: random.Random) -> LabelledDocument:
    """``document`` with every gold span replaced by a surrogate of its label (one per distinct original
    text), offsets moved to match."""
    chosen: dict[tuple[str, str], str] = {}
    pieces, spans, originals, at = [], [], [], 0
    labels = document.original_labels or tuple(label for _, _, label in document.spans)
    for (start, end, label), corpus_label in sorted(zip(document.spans, labels)):
        if start < at:  # overlapping gold: keep the first
            continue
        original = document.text[start:end]
        key = (label, original.casefold())
        if key not in chosen:
            chosen[key] = source.surrogate(original, label, rng)
        surrogate = cased_like(original, chosen[key], rng)
        pieces.append(document.text[at:start])
        begin = sum(map(len, pieces))
        pieces.append(surrogate)
        spans.append((begin, begin + len(surrogate), label))
        originals.append(corpus_label)
        at = end
    pieces.append(document.text[at:])
    return replace(
        document,
        text="".join(pieces),
        spans=tuple(spans),
        source=f"{document.source}:refilled",
        original_labels=tuple(originals),
    )


def case_copy(document: LabelledDocument, rng: random.Random) -> LabelledDocument | None:
    """One copy of ``document`` in another casing: an ALL-CAPS text in lower case, any other text in ALL
    CAPS (two times in three) or lower case; None where casing would change the text's length (offsets)."""
    upper = document.text.isupper() or rng.random() >= 2 / 3
    name, cased = ("lower", document.text.lower()) if upper else ("upper", document.text.upper())
    if cased == document.text or len(cased) != len(document.text):
        return None
    return replace(document, text=cased, source=f"{document.source}:{name}")


def look_alike_sentence(rng: random.Random) -> str:
    """One sentence of clinical vocabulary that looks like identifiers (names, dates, phones)."""
    template = rng.choice(_SENTENCES)
    return re.sub(r"\{(\w+)\}", lambda m: _FILL[m.group(1)](rng), template)


def with_look_alikes(document: LabelledDocument, rng: random.Random, sentences: int = 3) -> LabelledDocument:
    """``document`` with ``sentences`` look-alike sentences inserted at line or sentence breaks outside its
    spans, in the note's casing (ALL CAPS notes get ALL CAPS sentences); its gold spans moved to match."""
    breaks = [m.end() for m in _BREAK.finditer(document.text)]
    breaks = [b for b in breaks if not any(s < b < e for s, e, _ in document.spans)] or [len(document.text)]
    upper = document.text.isupper()
    inserts = sorted((rng.choice(breaks), look_alike_sentence(rng)) for _ in range(sentences))
    text, shift, spans = document.text, 0, list(document.spans)
    for at, sentence in inserts:
        sentence = sentence.upper() if upper else sentence.capitalize() if rng.random() < 0.5 else sentence
        piece = f"{sentence}. "
        text = text[: at + shift] + piece + text[at + shift :]
        spans = [
            (s + len(piece), e + len(piece), lab) if s >= at + shift else (s, e, lab) for s, e, lab in spans
        ]
        shift += len(piece)
    return replace(document, text=text, spans=tuple(spans), source=f"{document.source}:look-alikes")


#: the most lines of a note one piece holds (`line_pieces`)
PIECE_LINES = 3
_LINE = re.compile(r"[^\n]*\S[^\n]*")


def line_pieces(document: LabelledDocument, rng: random.Random) -> list[LabelledDocument]:
    """``document`` cut at line breaks into pieces of 1 to `PIECE_LINES` consecutive non-blank lines (drawn
    by ``rng``), each piece with the gold spans that lie inside it, moved to its offsets; a cut never
    falls inside a span."""
    lines = [m.span() for m in _LINE.finditer(document.text)]
    pieces, i = [], 0
    while i < len(lines):
        j = min(len(lines), i + rng.randint(1, PIECE_LINES))
        while j < len(lines) and any(s < lines[j - 1][1] < e for s, e, _ in document.spans):
            j += 1  # a span runs over the line break: the piece takes the next line too
        start, end = lines[i][0], lines[j - 1][1]
        spans = tuple((s - start, e - start, lab) for s, e, lab in document.spans if start <= s and e <= end)
        pieces.append(
            replace(
                document,
                text=document.text[start:end],
                spans=spans,
                source=f"{document.source}:piece",
                original_labels=(),
            )
        )
        i = j
    return pieces


def augmented(
    documents: Sequence[LabelledDocument],
    *,
    refills: int,
    case_variants: bool,
    look_alikes: int,
    seed: int,
    pieces: int = 0,
) -> list[LabelledDocument]:
    """The training documents plus: ``refills`` surrogate-refilled copies of every gold document with spans,
    ``look_alikes`` look-alike copies of every gold clinical note (PhysioNet), ``pieces`` copies of every gold
    clinical note cut into pieces of a few lines (`line_pieces`), and with ``case_variants`` one copy of
    every document (silver and the copies included) in another casing (`case_copy`)."""
    rng = random.Random(seed)
    source = SurrogateSource() if refills else None
    out = list(documents)
    for doc in documents:
        gold = not doc.source.startswith("silver:")
        if gold and doc.spans and source is not None:
            out += [refilled(doc, source, rng) for _ in range(refills)]
        if gold and doc.source == "physionet_deid_dev":
            out += [with_look_alikes(doc, rng) for _ in range(look_alikes)]
            for _ in range(pieces):
                out += line_pieces(doc, rng)
    if case_variants:
        out += [copy for copy in (case_copy(doc, rng) for doc in list(out)) if copy is not None]
    return out
