"""Quasi-identifiers of the gdpr policy: what singles a person out in combination without naming them.

`QuasiIdentifierDetector` gives spaCy's nationalities, religious and political groups (``NORP`` ->
``DEMOGRAPHIC``), amounts of money, quantities and percentages (-> ``QUANTITY``) and named events
(-> ``OTHER``), occupations (``OCCUPATION``) from `occupations`, a list built from Faker's job
titles and WordNet, a person's degree (``OCCUPATION``: "a PhD in physics"), health conditions (``HEALTH``)
from `health_conditions`, a list built from WordNet, and the number of a person's children or siblings
(``QUANTITY``: "a father of five", "three children").
spaCy's parse is shared with a `ner.SpacyDetector` of the same pipeline (`ner.parse` keeps the last
batches).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from collections.abc import Sequence
from pathlib import Path

import regex

from ..spans import Span, merge_spans
from .base import Detector
from .lexicon import folded, given_names, person_names
from .ner import NOT_FOR_NER, SPACY_NAME_SCORE, parse
from .text_shape import COUNT_WORDS

#: spaCy labels of quasi-identifiers -> the schema's labels
QUASI_LABELS = {
    "NORP": "DEMOGRAPHIC",
    "MONEY": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "PERCENT": "QUANTITY",
    "EVENT": "OTHER",
}
#: the labels that only the gdpr policy's lists and spaCy's quasi-identifier entities give
QUASI_ONLY_LABELS = ("DEMOGRAPHIC", "OCCUPATION", "HEALTH")
#: an occupation scores below spaCy's names, so a name holding one ("Royal College of Surgeons") stays a name
OCCUPATION_SCORE = 0.4
#: heads of Faker's "Head, qualifier" titles that are no occupation on their own ("Copy, advertising"), and
#: WordNet's "minister" (a clergyman first; in a decision a member of a government)
NOT_OCCUPATIONS = frozenset({"copy", "land", "make", "sub", "runner", "minister"})
#: the occupations WordNet knows, one per line (package data)
OCCUPATIONS_FILE = "occupations.txt"
#: the health conditions WordNet knows, one per line (package data)
HEALTH_FILE = "health.txt"
#: conditions whose word is also something else ("brush strokes", "an economic depression", "the shingles
#: on a roof"): a condition unless a word of that other sense is beside it (`_other_sense`)
AMBIGUOUS_CONDITIONS = frozenset(
    {"stroke", "depression", "shingles", "paranoia", "hysteria", "blindness", "phobia", "pox"}
)
#: a word before an ambiguous condition that gives it another sense ("brush strokes", "a market depression",
#: "media hysteria", "a lucky stroke", "the wooden shingles")
_OTHER_SENSE_BEFORE = re.compile(
    r"(?i)\b(?:brush|pen|paint|swimming|swim|golf|tennis|rowing|oar|back|master|lucky|single|economic|"
    r"market|financial|great|tropical|atmospheric|mass|media|public|war|moral|wooden|cedar|asphalt|roof|"
    r"slate)[ \t]+$"
)
#: words after an ambiguous condition that give it another sense ("a stroke of luck", "the shingles on my
#: roof", "a depression in the road", "the stroke of the crane")
_OTHER_SENSE_AFTER = re.compile(
    r"(?i)[ \t]+(?:of[ \t]+(?:luck|genius|midnight|the[ \t]+(?:pen|brush|crane|oar|clock))|"
    r"(?:on|of|off|from)[ \t]+(?:the|my|his|her|our|their|a)[ \t]+(?:roof|house|shed|wall|barn)|"
    r"in[ \t]+(?:the[ \t]+)?(?:road|ground|market|markets|economy|prices))\b"
)
#: characters read before an ambiguous condition for a word of its other sense or of illness
OTHER_SENSE_BEFORE = 40
#: a word of illness up to two words before a condition ("had a", "treated for", "diagnosed with"): a
#: condition whatever else is beside it ("had a single stroke", "treated for depression in the market town")
_ILLNESS_CUE = re.compile(
    r"(?i)\b(?:had|has|have|having|suffer\w*|diagnos\w*|treated|treatment|history|hx|developed|recover\w*|"
    r"after|post|minor|severe|mild|acute|chronic|clinical|major|ischa?emic|ha?emorrhagic)"
    r"\b(?:[ \t]+[\w-]+){0,2}[ \t]+$"
)
#: a health condition scores as an occupation: a name holding one ("Parkinson" of "Parkinson's disease")
#: is merged into it by `quasi_labels_win`
HEALTH_SCORE = OCCUPATION_SCORE
#: conditions WordNet lists under another first sense or lacks ("depression", a mental state first;
#: "stroke", a blow), and acronyms, which match in capitals only ("AIDS", not "hearing aids")
EVERYDAY_CONDITIONS = (
    "ADHD",
    "AIDS",
    "autism",
    "bipolar disorder",
    "COPD",
    "covid",
    "Crohn's disease",
    "depression",
    "Down syndrome",
    "Down's syndrome",
    "HIV",
    "HIV-negative",
    "HIV-positive",
    "long covid",
    "migraine",
    "obesity",
    "post-traumatic stress disorder",
    "PTSD",
    "stroke",
)
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
    wordnet = set(_listed(OCCUPATIONS_FILE)) - NOT_OCCUPATIONS
    return tuple(sorted(set(job_titles()) | wordnet, key=lambda o: (-len(o), o)))


@functools.cache
def health_conditions() -> tuple[str, ...]:
    """Health conditions as written, longest first: the conditions WordNet 3.0 knows (``data/health.txt``,
    built by ``benchmarks/wordnet_health.py``: "diabetes", "Parkinson's disease") and
    `EVERYDAY_CONDITIONS`."""
    return tuple(sorted(set(_listed(HEALTH_FILE)) | set(EVERYDAY_CONDITIONS), key=lambda c: (-len(c), c)))


def _listed(name: str) -> list[str]:
    """The entries of a list in ``deid_hf/data``: one per line, ``#`` lines and blank lines left out."""
    lines = (Path(__file__).parents[1] / "data" / name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


class PhraseList:
    """Phrases found as whole words in any casing (an acronym, in capitals only), the last word maybe
    plural, their words written as in the phrase: one blank apart, or a possessive ("Parkinson's disease").
    A lookup of each word's following words, not one pattern of thousands of alternatives."""

    def __init__(self, phrases: Sequence[str], label: str, score: float):
        self.label, self.score = label, score
        grouped: dict[str, list[tuple[tuple[str, ...], tuple[str, ...], str | None]]] = {}
        for phrase in phrases:
            found = list(_WORD.finditer(phrase))
            words = tuple(m.group().lower() for m in found)
            gaps = tuple(_APOSTROPHE.sub("'", phrase[a.end() : b.start()]) for a, b in zip(found, found[1:]))
            exact = phrase if phrase.isupper() else None
            grouped.setdefault(words[0], []).append((words, gaps, exact))
        self.by_first_word = {
            first: sorted(entries, key=lambda e: -len(e[0])) for first, entries in grouped.items()
        }

    def _match(self, words: list[tuple[int, int, str]], i: int, text: str) -> int | None:
        """The end (a word index) of the longest phrase that starts at word ``i``; None if none starts
        there."""
        grouped = self.by_first_word
        entries = grouped.get(words[i][2], [])
        singular = [
            e for form in _plural_or_word(words[i][2])[1:] for e in grouped.get(form, ()) if len(e[0]) == 1
        ]
        for entry, gaps, exact in (*entries, *singular):
            run = words[i : i + len(entry)]
            if len(run) < len(entry) or not all(
                _gap_fits(text[a[1] : b[0]], gap) for a, b, gap in zip(run, run[1:], gaps)
            ):
                continue
            if exact is not None and text[run[0][0] : run[-1][1]] != exact:
                continue
            if [w[2] for w in run[:-1]] == list(entry[:-1]) and entry[-1] in _plural_or_word(run[-1][2]):
                return i + len(entry)
        return None

    def find(self, text: str, source: str) -> list[Span]:
        """Every phrase written in ``text`` as whole words (not part of a hyphenated word:
        "teacher-training"), the longest where several start at one word."""
        words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
        found, i = [], 0
        while i < len(words):
            end_at = self._match(words, i, text)
            if end_at is None:
                i += 1
                continue
            start, end = words[i][0], words[end_at - 1][1]
            if not _JOINED.match(text[start - 1 : start]) and not _JOINED.match(text[end : end + 1]):
                found.append(Span(start, end, self.label, self.score, source))
            i = end_at
        return found


#: an apostrophe, typed or typographic
_APOSTROPHE = re.compile("[\u2019']")


def _gap_fits(written: str, gap: str) -> bool:
    """Whether what stands between two words in the text is the phrase's own: a blank for a blank (a space
    or a tab), else the same characters ("'" of a possessive, either apostrophe)."""
    return written in (" ", "\t") if gap == " " else _APOSTROPHE.sub("'", written) == gap


def _plural_or_word(word: str) -> tuple[str, ...]:
    """``word`` and the singulars it may be the plural of: "teachers", "coaches", "witnesses" (an "es" only
    after s, x, z, ch, sh or o: "Poles" is no plural of "pol")."""
    forms = [word]
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh", "o")):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    return tuple(forms)


@functools.cache
def _occupation_list() -> PhraseList:
    return PhraseList(occupations(), "OCCUPATION", OCCUPATION_SCORE)


@functools.cache
def _health_list() -> PhraseList:
    return PhraseList(health_conditions(), "HEALTH", HEALTH_SCORE)


def find_occupations(text: str, source: str = "occupations") -> list[Span]:
    """Every occupation of `occupations` written in ``text`` (`PhraseList.find`): "a police officer",
    "teachers"."""
    return _occupation_list().find(text, source)


def find_health_conditions(text: str, source: str = "health") -> list[Span]:
    """Every health condition of `health_conditions` written in ``text`` (`PhraseList.find`): "diabetes",
    "Parkinson's disease", "HIV"; a word that is also something else (`AMBIGUOUS_CONDITIONS`) unless a
    word of that other sense is beside it ("brush strokes", "a market depression", "the shingles on my
    roof" are none; "off work with depression", "PMH: Stroke 2018" are)."""
    return [
        span
        for span in _health_list().find(text, source)
        if not set(_plural_or_word(text[span.start : span.end].casefold())) & AMBIGUOUS_CONDITIONS
        or not _other_sense(text, span)
    ]


def _other_sense(text: str, span: Span) -> bool:
    """Whether a word beside an ambiguous condition gives it its other sense (`_OTHER_SENSE_BEFORE`,
    `_OTHER_SENSE_AFTER`) and no word of illness comes before it (`_ILLNESS_CUE`)."""
    window = max(0, span.start - OTHER_SENSE_BEFORE)
    if _ILLNESS_CUE.search(text, window, span.start):
        return False
    before = _OTHER_SENSE_BEFORE.search(text, window, span.start)
    return before is not None or _OTHER_SENSE_AFTER.match(text, span.end) is not None


#: a count of a family's members: two to twenty in words (`text_shape.COUNT_WORDS`), or 1 to 99 in digits
_COUNT = rf"(?:{'|'.join(COUNT_WORDS)}|[1-9][0-9]?)"
#: a family's members after their count ("three children", "two young sons", "4 grandchildren")
_MEMBERS = (
    r"(?:(?:young|small|little|grown|grown-up|adult|minor|teenage|older|younger|elder|dependent|own)[ \t]+)?"
    r"(?:step-?)?(?:children|kids|sons|daughters|grandchildren|grandsons|granddaughters|great-grandchildren|"
    r"siblings|brothers|sisters)"
)
#: the size of a person's family: "a father of five", "the youngest of seven siblings", "three children",
#: "his two daughters" (the count alone is masked, so "a father of five" reads "a father of eight")
FAMILY_COUNT = re.compile(
    rf"(?i)(?:\b(?:father|mother|parent|grandfather|grandmother|grandparent|mum|mom|dad)[ \t]+of[ \t]+"
    rf"(?P<of>{_COUNT})\b(?![ \t]*(?:per\b|years?\b|months?\b|days?\b|weeks?\b|%))"
    rf"|\b(?:one|youngest|eldest|oldest|middle)[ \t]+of[ \t]+(?P<among>{_COUNT})(?=[ \t]+{_MEMBERS}\b)"
    rf"|(?<!grade )(?<!year )(?<!class )\b(?P<count>{_COUNT})[ \t]+{_MEMBERS}\b(?!['’]s))"
)


#: words that end a degree's field of study ("a PhD in physics [from] MIT", "in law [and then] worked", "an
#: MBA in finance [last] year", "in June")
_FIELD_STOP = (
    r"(?i:from|at|in|on|with|for|of|which|that|who|whom|by|to|and|or|but|as|so|because|since|until|during|"
    r"he|she|they|it|his|her|their|was|is|were|had|has|have|then|now|later|also|too|before|after|while|"
    r"when|where|under|the|a|an|this|these|those|our|my|your|its|last|next|ago|yesterday|today|tomorrow|"
    r"recently|once|every|each|some|many|several|both|all|years?|months?|weeks?|days?|one|two|three|four|"
    r"five|six|seven|eight|nine|ten|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
)
#: a word of a field of study: letters, not a stop word, no past tense but "applied" ("argued", "moved")
_FIELD_WORD = rf"(?!{_FIELD_STOP}\b)(?![^\W\d_]+(?i:ed)\b(?<!(?i:applied)))(?![\w-]*['’]s\b)[^\W\d_][\w'’-]*"
#: the last word of a field of study of two words ("computer science", "Russian studies", "art history")
_FIELD_HEAD = (
    r"(?i:sciences?|studies|engineering|literature|history|administration|law|education|management|"
    r"biology|chemistry|physics|mathematics|economics|policy|health|medicine|nursing|arts?|design|theory|"
    r"linguistics|relations|technology|philosophy|psychology|sociology|anthropology|work|languages?|"
    r"communications?|finance|accounting|marketing|planning|architecture|statistics|geography|music|"
    r"theology|journalism|development|therapy|pharmacy|dentistry|care)\b"
)
#: a field of study after a degree: "in", a word or a word and a field's last word, and one more such after
#: "and" where the field ends there ("in political science", "in molecular and cellular biology", "in law
#: and economics from"; not "in law and then worked", "in physics helps"); a comma ends it ("a PhD in
#: economics, argued")
_FIELD = (
    rf"[ \t]+(?i:in)[ \t]+{_FIELD_WORD}(?:[ \t]+{_FIELD_HEAD})?"
    rf"(?:[ \t]+(?i:and)[ \t]+{_FIELD_WORD}(?:[ \t]+{_FIELD_HEAD})?(?![ \t]+{_FIELD_WORD}))?"
)
#: a degree's abbreviation as written ("PhD", "Ph.D.", "MBA", "M.B.A.", "M.Sc.", "LLB", "LL.M.", "M.D.",
#: "J.D.", "PharmD", "DVM", "BSN"; not "LLM", a language model, "MS", an illness, nor "MD", "JD", "DO",
#: "MSN" or "DDS" without their dots: a state or a physician, a verb, a messenger, a file format)
_DEGREE_ACRONYM = (
    r"(?:Ph\.?[ ]?D\.?|Ph[Dd]s|PHD[Ss]?|[Pp]hd|D\.?Phil\.?|M\.?Phil\.?|MBAs?|M\.B\.A\.?|MPH|M\.?Sc\.?|"
    r"B\.?Sc\.?|LLB|LL\.[BM]\.?|B\.?Eng\.?|M\.?Eng\.?|Ed\.?D\.?|M\.D\.|J\.D\.|Pharm\.?D\.?|Psy\.?D\.?|"
    r"D\.V\.M\.|DVM|D\.D\.S\.|D\.M\.D\.|B\.S\.N\.|BSN|M\.S\.N\.)"
)
#: a degree in words ("a master's degree", "a Bachelor of Science", "a doctorate")
_DEGREE_WORDS = (
    r"(?i:(?:(?:bachelor|master)['’]?s|doctoral|undergraduate|postgraduate|graduate|associate|law|medical|"
    r"engineering|university|college|honou?rs|joint)[ \t]+degree|"
    r"(?:bachelor|master|doctor)[ \t]+of[ \t]+(?:arts|sciences?|laws?|philosophy|engineering|education|"
    r"medicine|business[ \t]+administration|fine[ \t]+arts|music)|doctorate)"
)
#: an article or a possessive right before a degree that needs one ("a degree in law", "Her diploma in
#: nursing", "an MS in biology"; not "the degree in question", "third degree in severity", "MS in remission")
_AFTER_ARTICLE = (
    r"(?:(?<=\b[Aa] )|(?<=\b[Aa]n )|(?<=\b[Hh]is )|(?<=\b[Hh]er )|(?<=\b[Tt]heir )|(?<=\b[Mm]y )|"
    r"(?<=\b[Yy]our )|(?<=\b[Oo]ur )|(?<=\bA )|(?<=\bAN )|(?<=\bHIS )|(?<=\bHER )|(?<=\bTHEIR )|"
    r"(?<=\bMY )|(?<=\bYOUR )|(?<=\bOUR ))"
)
#: what is a degree only with its field: an abbreviation ("a BA in history", "an M.S. in biology"; "MS" and
#: "BS" after an article), a word after an article ("a degree in law", "a master's in law")
_DEGREE_WITH_FIELD = (
    rf"(?:B\.?A\.?|M\.?A\.?|B\.S\.?|M\.S\.?|{_AFTER_ARTICLE}(?:MS|BS|(?i:degree|diploma|"
    r"(?:bachelor|master)['’]?s)))"
)
#: a person's degree and its field (education singles a person out): "a PhD in physics", "an MBA", "a
#: master's degree in economics", "a BA in English literature"; not "the degree of the burn"
DEGREE = re.compile(
    rf"\b(?:(?:{_DEGREE_ACRONYM}|{_DEGREE_WORDS})(?:{_FIELD})?"
    rf"|{_DEGREE_WITH_FIELD}{_FIELD})(?![\w])"
)
#: after a full stop, what shows it ends a sentence: blanks and a capital, a line's end or the text's end
_SENTENCE_END = re.compile(r"(?:[ \t]+[A-Z]|[ \t]*(?:\r?\n|$))")


@functools.cache
def languages() -> frozenset[str]:
    """The English names of the ISO 639-1 languages (CLDR's, through Babel: "Kurdish", "Swahili",
    "Chechen") and Cantonese and Mandarin."""
    from babel import Locale

    names = Locale("en").languages
    return frozenset(name for code, name in names.items() if len(code) == 2) | {"Cantonese", "Mandarin"}


#: what says a language is a person's: speaking, understanding or being interpreted in it ("speaks only
#: Kurdish", "her native language is Chechen", "an interpreter in Georgian", "fluent in Swahili and Arabic")
LANGUAGE_CUE = re.compile(
    r"(?i:\b(?:speaks?|spoke|speaking|understands?|understood|reads?|writes?|fluent[ \t]+in|"
    r"(?:native|first|home|mother)[ \t]+(?:language|tongue)(?:[ \t]+(?:is|was))?|"
    r"interpreters?[ \t]+(?:in|for|of)|translat\w*[ \t]+(?:into|from))"
    r"[ \t]+(?:(?:only|some|little|no|fluent|good|basic|broken|mainly|mostly)[ \t]+)?)"
)
#: a language's name after a cue, and the ones joined to it ("Swahili and Arabic", "Kurdish, Turkish or
#: Arabic")
_LANGUAGE_NAME = regex.compile(r"\p{Lu}[\p{L}’'-]*(?:[ \t]+\p{Lu}[\p{L}’'-]*)?")
_LANGUAGE_JOIN = re.compile(r"(?:[ \t]*,[ \t]*|[ \t]+(?:and|or)[ \t]+)")


def find_languages(text: str, source: str = "languages") -> list[Span]:
    """A language a person speaks, understands or is interpreted in (`LANGUAGE_CUE`, `languages`) as a
    ``DEMOGRAPHIC``: "speaks only [Kurdish]", "her native language is [Chechen]", "fluent in [Swahili] and
    [Arabic]"; not "the judgment was delivered in French"."""
    spans = []
    for cue in LANGUAGE_CUE.finditer(text):
        at = cue.end()
        while (name := _LANGUAGE_NAME.match(text, at)) is not None:
            words = name.group().split()
            found = " ".join(words) if " ".join(words) in languages() else words[0]
            if found not in languages():
                break
            spans.append(
                Span(name.start(), name.start() + len(found), "DEMOGRAPHIC", OCCUPATION_SCORE, source)
            )
            join = _LANGUAGE_JOIN.match(text, name.start() + len(found))
            if join is None:
                break
            at = join.end()
    return spans


def is_degree(written: str) -> bool:
    """Whether ``written`` is a degree as `find_degrees` finds one (read after an article: "degree in
    law"; its last full stop may be the sentence's: "a J.D")."""
    written = written.strip()
    return any(DEGREE.fullmatch("a " + w, 2) for w in (written, written + "."))


def find_degrees(text: str, source: str = "degrees") -> list[Span]:
    """A person's degree with its field of study (`DEGREE`) as an ``OCCUPATION``: "a [PhD in physics] from
    MIT", "an [MBA]"; a full stop after it that ends the sentence is the sentence's ("her [Ph.D]. She"),
    one inside it the abbreviation's ("a [Ph.D.] student")."""
    spans = []
    for m in DEGREE.finditer(text):
        end = m.end() - (m.group().endswith(".") and _SENTENCE_END.match(text, m.end()) is not None)
        spans.append(Span(m.start(), end, "OCCUPATION", OCCUPATION_SCORE, source))
    return spans


#: a people named before a word of origin ("of Roma origin", "of Kurdish descent", "of Yoruba heritage")
#: or after "ethnic" in lower case ("an ethnic Chechen", "ethnically Uzbek"); no acronym ("of EU origin",
#: "of UNESCO heritage") nor a title's "Ethnic Conflict"
ORIGIN = regex.compile(
    r"\bof[ \t]+(?P<of>\p{Lu}\p{Ll}[\p{L}’'-]*(?:[ \t]+\p{Lu}\p{Ll}[\p{L}’'-]*)?)[ \t]+"
    r"(?:origin|descent|ethnicity|heritage|extraction|ancestry)\b"
    r"|\bethnic(?:ally)?[ \t]+(?P<ethnic>\p{Lu}\p{Ll}[\p{L}’'-]*)"
)


def find_origins(text: str, source: str = "origins") -> list[Span]:
    """The people a person comes from, named before a word of origin or after "ethnic" (`ORIGIN`), as a
    ``DEMOGRAPHIC``: "of [Roma] origin", "of [Yoruba] descent", "an ethnic [Chechen]"; a model may read
    such a name as a place or an organisation."""
    return _matched_groups(ORIGIN, text, ("of", "ethnic"), "DEMOGRAPHIC", source)


def find_family_counts(text: str, source: str = "family") -> list[Span]:
    """The count of a person's children or siblings as a QUANTITY (`FAMILY_COUNT`): "a father of
    [five]", "the youngest of [seven] children", "[three] children"; not "one of the children", "a mother
    of 30 years", "one of two men"."""
    return _matched_groups(FAMILY_COUNT, text, ("of", "among", "count"), "QUANTITY", source)


def _matched_groups(pattern, text: str, groups: Sequence[str], label: str, source: str) -> list[Span]:
    """A ``label`` span for each of ``groups`` that a match of ``pattern`` in ``text`` fills."""
    return [
        Span(m.start(g), m.end(g), label, OCCUPATION_SCORE, source)
        for m in pattern.finditer(text)
        for g in groups
        if m.group(g)
    ]


class QuasiIdentifierDetector(Detector):
    """spaCy's quasi-identifier entities (`QUASI_LABELS`), occupations (`find_occupations`), degrees
    (`find_degrees`), the languages a person speaks (`find_languages`), health conditions
    (`find_health_conditions`), a person's people (`find_origins`) and the size of a family
    (`find_family_counts`)."""

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
                *find_health_conditions(text, self.name),
                *find_family_counts(text, self.name),
                *find_degrees(text, self.name),
                *find_languages(text, self.name),
                *find_origins(text, self.name),
            ]
            for text, doc in zip(texts, docs)
        ]


def quasi_labels_win(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` told apart from the degrees they hold (`degrees_apart`) and merged (`spans.merge_spans`),
    where a merged span is exactly a group (``DEMOGRAPHIC``) that
    a detector found, exactly an occupation written in lower case or a degree ("a BA in [English]" is no
    nationality), or exactly a health condition, labelled so: a model may type "Nepali" a place, "Gujarati"
    a person, "physiotherapist" an organisation or "Parkinson" of "Parkinson's disease" a person, and the
    label picks the surrogate ("a Lake Logan nun").
    A person stays one where the group's words are listed names ("Christian"); a capitalised occupation
    may be a surname ("Baker said"), and so may a condition of one capitalised word ("Stroke said")."""
    merged = merge_spans(spans := degrees_apart(text, spans))
    starts = [m.start for m in merged]
    label = {}
    for span in spans:
        i = bisect.bisect_right(starts, span.start) - 1
        whole = merged[i]
        if (span.start, span.end) != (whole.start, whole.end):
            continue
        piece = text[span.start : span.end]
        if span.label == "OCCUPATION" and is_degree(piece):  # over a group read in its field
            label[i] = span.label
            continue
        if whole.label in QUASI_ONLY_LABELS:
            continue
        group = span.label == "DEMOGRAPHIC" and (whole.label != "PERSON" or not _a_name(piece))
        job = span.label == "OCCUPATION" and piece.islower()
        health = span.label == "HEALTH" and (whole.label != "PERSON" or not _capitalised_word(piece))
        if group or job or health:
            label[i] = span.label
    return [dataclasses.replace(m, label=label[i]) if i in label else m for i, m in enumerate(merged)]


#: the "in" between a degree and its field of study
_FIELD_IN = re.compile(r"[ \t]+in[ \t]+", re.IGNORECASE)


def degrees_apart(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with each degree (`is_degree`) told apart from a place read as its field and from the name
    it follows: a degree whose field starts where a place does ends before "in" ("a PhD in Paris": "PhD" and
    "Paris"), a person's span that ends with a degree ends before it ("Anna Nowak PhD": "Anna Nowak" and
    "PhD"), and another span that is the degree and the sentence's full stop after it ("M.D." at a text's
    end, read by a model as a name) leaves the full stop out; a degree that is one only with its field
    keeps it ("a BA in English")."""
    degrees = {s for s in spans if s.label == "OCCUPATION" and is_degree(text[s.start : s.end])}
    if not degrees:
        return list(spans)
    places = {s.start for s in spans if s.label == "LOCATION"}
    last_start = {}  # each end -> the latest start of a degree ending there
    for d in degrees:
        last_start[d.end] = max(last_start.get(d.end, d.start), d.start)
    ends = {(d.start, d.end + 1) for d in degrees if text[d.end : d.end + 1] == "."}
    apart = []
    for span in spans:
        piece = text[span.start : span.end]
        field = _FIELD_IN.search(piece) if span in degrees else None
        if field and span.start + field.end() in places and is_degree(piece[: field.start()]):
            span = dataclasses.replace(span, end=span.start + field.start())
        elif (span.start, span.end) in ends and span not in degrees:
            span = dataclasses.replace(span, end=span.end - 1)  # the sentence's full stop, read with it
        elif span.label == "PERSON" and span.start < last_start.get(span.end, span.start):
            name = text[span.start : last_start[span.end]].rstrip(" \t,")
            if name:
                span = dataclasses.replace(span, end=span.start + len(name))
        apart.append(span)
    return apart


def _capitalised_word(piece: str) -> bool:
    """Whether ``piece`` is one word, capitalised ("Stroke"; not "Parkinson's disease", "HIV")."""
    return piece.isalpha() and piece[:1].isupper() and piece[1:].islower()


def _a_name(piece: str) -> bool:
    """Whether a word of ``piece`` is a listed given name or surname ("Christian", "Jordan")."""
    return any(folded(w) in given_names() or w.lower() in person_names() for w in piece.split())
