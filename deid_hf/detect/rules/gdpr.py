"""The gdpr policy's own rules, tried before the identifier rules (`rules.identifiers`): the first that
applies to a span decides. gdpr keeps what hipaa keeps (names, organisations, places, dates, contact details,
identifying numbers) and adds the quasi-identifiers that single a person out in combination: every age,
nationalities, ethnic, religious and political groups, occupations, amounts and events. Public bodies and
laws are no personal data and are not masked; a court that tried the person is (it locates them)."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence

from ...spans import Span, merge_spans
from ..lexicon import folded, is_known_name, zipf
from . import Rule, SpanRule, decided, register_rule

#: the bodies of a state, which a country's adjective may precede ("the Turkish Government", "the Hungarian
#: Ministry of Justice", "the Polish Sejm"); a ministry's name is its capitalised words ("the Ministry of
#: Justice in Ankara": not "in Ankara"); a prosecutor's office or a police force that dealt with the person
#: is no such body (it locates them)
_STATE_BODIES = (
    r"government(?:\s+of\s+the\s+(?-i:[A-Z][a-z]+(?:\s+(?:of\s+)?[A-Z][a-z]+){0,3}))?|parliament|"
    r"(?:grand\s+)?national\s+assembly|house\s+of\s+(?:representatives|commons|lords)|senate|congress|"
    r"bundestag|bundesrat|landtag|sejm|(?:state\s+)?duma|knesset|storting|riksdag|folketing|"
    r"ministry\s+of\s+(?:the\s+)?(?-i:[A-Z][a-z]+(?:\s+(?:and\s+)?[A-Z][a-z]+)*)|"
    r"prosecutor\s+general['’]s\s+office"
)
#: the institutions a decision or an article speaks of rather than the people in it ("the State" alone; not
#: "the Islamic State"), and the bodies of a state; a court that tried someone ("the Ankara State Security
#: Court") is none of these
#: public bodies whose names are fixed words (no run of capitalised words that might go on into the next
#: name: not "the Ministry of Health and Acme Pharma"), so a span anywhere inside one is part of it
_NAMED_BODIES = (
    r"european\s+court\s+of\s+human\s+rights|european\s+commission\s+of\s+human\s+rights|"
    r"(?:european\s+)?court\s+of\s+justice(?:\s+of\s+the\s+european\s+(?:union|communities))?|"
    r"information\s+commissioner['’]s\s+office|council\s+of\s+europe|committee\s+of\s+ministers|"
    r"house\s+of\s+(?:representatives|commons|lords)|grand\s+national\s+assembly|european\s+union|"
    r"united\s+nations"
)
_PUBLIC_BODIES = (
    rf"{_NAMED_BODIES}|(?:european\s+)?commission(?:\s+of\s+human\s+rights)?|court|"
    r"information\s+commissioner|"
    r"(?:grand\s+)?chamber|(?:section\s+|deputy\s+)?registrar|"
    r"(?:employment\s+(?:appeal\s+)?)?tribunal|home\s+office|"
    r"department\s+for\s+(?-i:[A-Z][a-z]+(?:\s+(?:and\s+)?[A-Z][a-z]+)*)|department\s+of\s+(?:the\s+)?"
    r"(?:justice|state|health|education|labou?r|defen[cs]e|homeland\s+security|transportation|energy|"
    r"agriculture|commerce|treasury|veterans\s+affairs|interior|housing(?:\s+and\s+urban\s+development)?)|"
    rf"council\s+of\s+state|state(?!s)|{_STATE_BODIES}"
)
#: a state's body after a word ("the federal government", "the Turkish Government") in a detected name...
_PUBLIC_BODY = re.compile(
    rf"(?i)^(?:the\s+)?(?:[a-z]+\s+(?=(?:{_STATE_BODIES})(?!\w)))?(?:{_PUBLIC_BODIES})['’]?s?$"
)
#: ...and in running text after "the" and a country's adjective on the same line ("Turkish " of "the Turkish
#: Government"; not a city's "Moscow", nor "Adana" of "lived in Adana\nGovernment observations", nor
#: "Catholic" of "a Catholic Parliament member")
_COUNTRY_ADJECTIVE = r"(?-i:[A-Z][a-z]*(?:ish|ian|ean|an|ese|ic|i|ch|ss|ek))[ \t]+"
#: a public body's name written in the text, where a detector's span may hold only its first words
_PUBLIC_BODY_IN_TEXT = re.compile(
    rf"(?i)(?<!\w)(?P<the>the\s+)?(?(the)(?:{_COUNTRY_ADJECTIVE}(?=(?:{_STATE_BODIES})(?!\w)))?)"
    rf"(?:{_PUBLIC_BODIES})['’]?s?(?!\w)"
)
#: a public body's name of fixed words written in the text (`_NAMED_BODIES`)
_NAMED_BODY_IN_TEXT = re.compile(rf"(?i)(?<!\w)(?:{_NAMED_BODIES})(?!\w)")
#: a country written after its code, its constitution, its government or its representative ("the Criminal
#: Code of the Russian Federation", "Representative of the Republic of Moldova at the Court"): the law's or
#: the state's, no person's (not "the Faculty of Law of Ankara University")
_LAW_OF_COUNTRY = re.compile(
    r"(?:\b[A-Z][a-z]+\s+Code|\bConstitution|\bRepresentative|\bGovernment)\s+of\s+"
    r"(?P<country>(?:the\s+)?[A-Z][a-zß-öø-ÿ]+(?:\s+(?:of\s+)?[A-Z][a-zß-öø-ÿ]+){0,2})"
)
#: characters read on each side of a span for the public body's name around it (the longest name fits)
PUBLIC_BODY_AROUND = 60
#: a law by its kind ("Criminal Code", "Prevention of Terrorism Act 1991", "Article 6 of the Convention")
_LAW = re.compile(
    r"\b(?:Act|Code|Convention|Constitution|Treaty|Protocol|Directive|Regulations?|Law)\b(?:\s+(?:No\.?\s*)?"
    r"\d+)?|\bArticles?\s+\d"
)
#: an article of a law at the start of a span ("Article 6 § 1", "Art. 5")
_ARTICLE_START = re.compile(r"(?:Articles?|ARTICLES?|Art\.)[ \t]*\d")
#: characters read before a number for a law's "no."
LAW_NUMBER_BEFORE = 24
#: the kinds of a law whose number is the law's ("Law no. 3713", "Act No. 45"), written as a title is
#: (capitalised or in capitals); not a code, a protocol or a rule: "Code No. 4471" opens a door, "Protocol
#: No. 2231" names a clinical study
_LAW_KINDS = ("Law", "Act", "Decree", "Regulation", "Directive", "Ordinance", "Statute", "Resolution")
_LAW_KINDS += ("Convention", "Treaty")
_LAW_KIND = "|".join(k for kind in _LAW_KINDS for k in (kind, kind.upper()))
_LAW_NUMBER_CUE = re.compile(rf"\b(?:{_LAW_KIND})s?[ \t]+(?i:no)\.?[ \t:#.]*$")
#: a law's date after "Law" and its number or "Law" alone ("Law no. 575 of 31 May 1965", "the Law of 18 July
#: 1997"); not a decree's, an ordinance's or an act's, which are often acts about one person ("a Decree of 3
#: June 1990 pardoned the applicant", "the Act of 14 June 2003 recorded his injuries")
_LAW_DATE = re.compile(
    r"\b(?:Law|LAW)(?:[ \t]+(?i:no)\.?[ \t]*[\w/.-]{0,12}?\d[\w/.-]{0,12})?[ \t]+of[ \t]+(?P<date>"
    r"\d{1,2}(?:st|nd|rd|th)?[ \t]+[A-Z][a-z]+,?[ \t]+\d{4}|[A-Z][a-z]+[ \t]+\d{1,2},?[ \t]+\d{4}"
    r"|\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2}))(?!\d)"
)
#: an article's or a paragraph's number, or a range of them ("126", "52-54")
_SECTION_NUMBER = re.compile(r"\d+(?:[–-]\d+)?")
#: an article or a section of a law before its number alone ("Article 126 § 2", "Art. 5", "§ 3"; not "the
#: article 12/05/2019", a date)
_ARTICLE_CUE = re.compile(r"(?:\bArticles?|\bARTICLES?|\bArt\.|§)[ \t]*$")
#: a statute's year after its name ("the Employment Rights Act 1996", "the Civil Rights Act of 1964"); not a
#: court's order ("Court Order 12/03/2019" may be the person's)
_YEAR = r"(?:1[89]|20)\d\d"
_STATUTE_YEAR = re.compile(rf"\b[A-Z][a-z]+\)?[ \t]+(?:Act|Regulations)[ \t]+(?:of[ \t]+)?(?={_YEAR}\b)")
#: a statute's name: capitalised words (and "and", "of", a bracketed word) before "Act" or "Regulations"
#: and its year ("Trade Union and Labour Relations (Consolidation) Act 1992"), or after "the" without "and"
#: before "Act" ("the Equality Act"), where a model may read "Labour Relations" as a company; not "Barclays
#: Bank and Data Protection Act duties", "Tesco's Equality Act policy", nor an "Order" (a religious order:
#: "the Carmelite Order")
_STATUTE_WORD = r"(?:[A-Z][A-Za-z-]+|\([A-Z][A-Za-z]+\))"
_STATUTE_YEAR_AFTER = rf"[ \t]+{_YEAR}\b"
_STATUTE = re.compile(
    # its year written after it: "Trade Union and Labour Relations (Consolidation) Act 1992"
    rf"(?:[Tt]he[ \t]+)?{_STATUTE_WORD}(?:[ \t]+(?:{_STATUTE_WORD}|and|of)){{0,8}}[ \t]+(?:Act|Regulations)"
    rf"{_STATUTE_YEAR_AFTER}"
    # or after "the", an Act of capitalised words and "of" ("the Prevention of Terrorism Act")
    rf"|\b[Tt]he[ \t]+{_STATUTE_WORD}(?:[ \t]+(?:{_STATUTE_WORD}|of)){{0,8}}[ \t]+Act\b"
)
#: a treaty's or a charter's name: its kind, "for", "on", "of", "against" or "relating to", and capitalised
#: words joined by "and", "of", "the", "on", "for" or "in" ("the Convention for the Protection of Human Rights
#: and Fundamental Freedoms", "the International Covenant on Civil and Political Rights"), where a model
#: reads "Protection of Human Rights" or "Freedoms" as an organisation
_TREATY = re.compile(
    r"\b(?:Convention|Treaty|Charter|Covenant|Protocol|Declaration)[ \t]+(?:for|on|of|against|relating[ \t]+"
    rf"to)[ \t]+(?:the[ \t]+)?{_STATUTE_WORD}(?:[ \t]+(?:{_STATUTE_WORD}|and|of|the|on|for|in)){{0,10}}"
)
#: every capitalised word of a treaty's name is at least this frequent (wordfreq Zipf): names are rarer
TREATY_WORD_ZIPF = 3.0
#: characters read on each side of a span for the treaty's name around it (the longest name fits)
TREATY_AROUND = 160
#: a law's or a treaty's short name in brackets after its name ("the General Data Protection Regulation
#: (GDPR)"): the law's, no organisation
_LAW_ACRONYM_BEFORE = re.compile(
    r"\b(?:Act|Code|Convention|Treaty|Charter|Covenant|Regulation|Directive|Law)[ \t]*\([ \t]*$"
)
#: a case's name in a citation: capitalised words, with "and", "of", "the", particles and "Others" ("Öcalan",
#: "Selmouni", "Salduz and Others", "DEMİR AND BAYKARA")
_CAPITAL = "[A-ZÀ-ÖØ-ÞĆČĐŁŃŚŞŠŹŻŽİ]"
_CASE_WORD = rf"{_CAPITAL}[\w'’.-]{{0,40}}"
_CASE_NAME = rf"{_CASE_WORD}(?:[ ](?:and|AND|of|the|de|van|von|Others|{_CASE_WORD})){{0,6}}"
#: a citation of case law, as a judgment writes it: a case's name ("Öcalan v. Turkey"), its decision marks
#: ("(dec.)", "[GC]") and at least one reference: an application's number, a report's volume or a paragraph
#: ("([GC], no. 46221/99, §§ 52-54, ECHR 2005-IV)", "Selmouni v. France [GC], no. 25803/94, § 95"); a date
#: after it is not read as its own (it may be a date of the person's: "..., 12 May 2021 being the day ...")
_CITATION = re.compile(
    rf"{_CASE_NAME}[ ]v\.[ ](?:the[ ])?{_CASE_NAME}(?:[ ]\((?:dec\.|no\.[ ]\d+)\))*[ ]?\(?(?:\[GC\])?"
    r"(?:,?[ ]*(?:\[GC\],[ ]*)?(?:nos?\.[ ]\d+/\d+(?:(?:,[ ]|[ ]and[ ])\d+/\d+){0,9}|"
    r"Series[ ]A[ ]no\.[ ]\d+|ECHR[ ]\d{4}(?:-[IVX]+)?(?:[ ]\(extracts\))?|"
    r"§§?[ ][\d–-]+(?:[ ]and[ ]\d+)?)){1,6}"
)
#: the respondent of a case's name, after "v." ("Turkey", "the United Kingdom", "the Republic of Moldova")
_RESPONDENT = re.compile(rf"[ ]v\.[ ](?P<state>(?:the[ ])?{_CASE_WORD}(?:[ ](?:of[ ])?{_CASE_WORD}){{0,3}})")
#: a citation's published reference: an application's number or a report's volume (a date or a paragraph
#: alone may cite a private dispute: "Marrowind v. Harrowgate, 14 March 2019")
_REFERENCE = re.compile(r"\bnos?\.[ ]\d+/\d+|\bSeries[ ]A[ ]no\.|\bECHR[ ]\d{4}")
#: the document's own application numbers ("(Application no. 41758/04)", "an application (no. 41758/04)")
_OWN_APPLICATION = re.compile(r"(?i)\bapplications?[ ]\(?nos?\.[ ](\d+/\d+)")
#: the document's own case by its name ("CASE OF DEMIRTAŞ v. TURKEY", "In the case of Demirtaş v. Turkey")
_OWN_CASE = re.compile(rf"(?:\bCASE[ ]OF|\b[Ii]n[ ]the[ ]case[ ]of)[ ]+(?P<name>{_CASE_NAME})[ ]v\.")
#: a law's kind before its number ("Law no. 3713"), which an NER model may read as a person's name
_LAW_KIND_BEFORE_NUMBER = re.compile(rf"(?:{_LAW_KIND})[ \t]+(?i:no)\.?[ \t]*\d")
_MONTH_OR_DAY = re.compile(
    r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.?(?!\w)|"
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
)
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[a-z]+teen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|half|dozen)"
)
_NUMBER_WORD = re.compile(rf"(?i)\b{_NUMBER_WORDS}\b")
#: a length of time in words ("eleven days", "four years", "two and a half months"; in the plural: not "one
#: day", mostly an idiom), which a digit's ("11 days") would be...
_DURATION_IN_WORDS = re.compile(
    rf"(?i)\b{_NUMBER_WORDS}(?:[ -]{_NUMBER_WORDS}){{0,4}}(?:[ \t]+and[ \t]+a[ \t]+half)?[ \t]+"
    r"(?:days|weeks|months|years|hours)\b"
)
#: ...unless it says when from another time ("two days later", "three years ago", in the span or after it)
_RELATIVE_TIME = re.compile(r"(?i)\b(?:later|earlier|ago|before|after|afterwards|previously|beforehand)\b")
#: characters read before and after a length of time for a word that makes it relative
RELATIVE_AROUND = 12
#: a word before a length of time that makes it relative ("in two weeks", "within three days")
_RELATIVE_BEFORE = re.compile(r"(?i)\b(?:in|within)[ \t]+$")
#: a length of time that starts with such a word, or with "the" (one of a kind: "the first three months")
_RELATIVE_START = re.compile(r"(?i)(?:in|within)[ \t]|the\b")

#: a currency written after an amount ("5,000 euros", with its country's adjective or initials: "45,000
#: Russian roubles", "300 new Turkish liras", "2,000 US dollars") or before it ("EUR 5,000", "$300", "US$300")
_CURRENCY_AFTER = re.compile(
    r"(?i)[ \t]*(?:(?-i:new[ \t]+)?(?-i:[A-Z][a-z]+|U\.S\.|US|NZ|HK|NT|AU|SG|CA)[ \t]+)?"
    r"(?:euros?|eur|dollars?|usd|pounds?(?: sterling)?|gbp|liras?|try|francs?|chf|roubles?|rubles?|"
    r"pesos?|yen|kron(?:a|or|er)|rupees?|z[lł]otys?|pln|sek|nok|dkk|forints?|huf|czk|hryvnias?|uah|"
    # in lower case or as an ISO code only: "Mark", "Lei", "Lari" are also given names
    r"(?-i:marks?|(?<=Deutsche[ \t])Marks?|lei|leu|levs?|leva|kunas?|dinars?|denars?|lari|drams?|manats?|"
    r"tenge|korun[ay]?|litai|litas|lats|lati|leks?|RON|BGN|HRK|GEL|LTL|LVL))\b"
)
#: ISO codes of currencies (not "INR" or "CAD": lab values and a diagnosis in clinical notes; not "ALL",
#: "TOP": words in capitals)
_ISO_CURRENCY = (
    r"(?:EUR|USD|GBP|TRY|CHF|TRL|RUB|PLN|SEK|NOK|DKK|JPY|CNY|AUD|NZD|HUF|CZK|UAH|BGN|ZAR|BRL|MXN|HKD|SGD|AED|"
    r"RON|MDL|GEL|HRK|RSD|AZN|AMD|BAM|MKD|BYN|KZT|LTL|LVL|EEK|SKK|ISK)"
)
#: a currency's ISO code or sign written before an amount ("EUR 5,000", "MDL 3,500", "$300")
_CURRENCY_BEFORE = re.compile(rf"(?:\b(?:US|A|C|NZ|HK|S)[$]|[$€£¥₹₽₺]|\b{_ISO_CURRENCY}\b)[ \t]*$")
#: a currency's ISO code in brackets after its name ("15,000 Turkish liras (TRY)"): part of the amount
_BRACKETED_CURRENCY = re.compile(rf"[ \t]*\({_ISO_CURRENCY}\)")


#: score of a number with its currency: its shape says amount, so it outranks a nationality read inside it
#: ("Russian" of "45,000 Russian roubles") when spans merge
AMOUNT_SCORE = 1.0


def _amount(seen, span: Span) -> Span | None:
    """A number with its currency as a QUANTITY ("5,000 euros", "EUR 5,000"); None without one."""
    after = _CURRENCY_AFTER.match(seen.text, span.end)
    if after:
        code = _BRACKETED_CURRENCY.match(seen.text, after.end())
        return Span(span.start, (code or after).end(), "QUANTITY", AMOUNT_SCORE, span.source)
    before = _CURRENCY_BEFORE.search(seen.text, max(0, span.start - 6), span.start)
    if before:
        return Span(before.start(), span.end, "QUANTITY", AMOUNT_SCORE, span.source)
    return None


def public_body_or_law(piece: str) -> bool:
    """Whether a name is a public body (`_PUBLIC_BODY`) or a law (`_LAW`)."""
    core = piece.strip()
    return _PUBLIC_BODY.match(core) is not None or _LAW.search(core) is not None


def law_number(text: str, start: int, end: int | None = None) -> bool:
    """Whether the number at ``start`` is written as a law's number ("Law no. 3713", `_LAW_KINDS`), an
    article's ("Article 126 § 2") or a law's date ("Law no. 575 of 31 May 1965", "the Law of 18 July 1997"),
    or (with its ``end``) is a year alone after a statute's name ("Equality Act 2010")."""
    before = text[max(0, start - LAW_NUMBER_BEFORE) : start]
    if _LAW_NUMBER_CUE.search(before):
        return True
    if end is not None and _SECTION_NUMBER.fullmatch(text[start:end].strip()) and _ARTICLE_CUE.search(before):
        return True
    if end is not None and _inside_match(_LAW_DATE, text, Span(start, end, "DATE_TIME", 0.0, ""), "date"):
        return True
    year = end is not None and re.fullmatch(_YEAR, text[start:end].strip()) is not None
    return year and _STATUTE_YEAR.search(before + text[start:end]) is not None


def inside_public_body(text: str, span: Span) -> bool:
    """Whether ``span`` is the first words of a public body's name written in ``text`` (a model's "The
    European Court of Human" of "The European Court of Human Rights", "Polish" of "the Polish
    Government"): it starts where the name starts, with or without its "the", and ends inside it; or lies
    anywhere inside a name of fixed words ("Justice" of "the Court of Justice of the European Union")."""
    if _inside_match(_NAMED_BODY_IN_TEXT, text, span):
        return True
    start = max(0, span.start - PUBLIC_BODY_AROUND)
    around = text[start : span.end + PUBLIC_BODY_AROUND]
    for m in _PUBLIC_BODY_IN_TEXT.finditer(around):
        first = {start + m.start(), start + m.end("the")} if m.group("the") else {start + m.start()}
        if span.start in first and span.end <= start + m.end():
            return True
    return False


def _folded_words(piece: str) -> set[str]:
    """The words of two letters or more of ``piece`` ("Xu", "Ng"), case-folded and without diacritics
    ("DEMİRTAŞ", "Demirtaş", "Demirtas": one word), less the joining words of a case's name."""
    return set(re.findall(r"[^\W\d_]{2,}", folded(piece))) - _NOT_NAME_WORDS


#: words of a case's name that name no one
_NOT_NAME_WORDS = frozenset({"and", "others", "the", "of", "de", "van", "von", "no", "dec", "gc", "ltd"})


def own_case(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The document's own case: its application numbers (`_OWN_APPLICATION`) and the words of its name
    (`_OWN_CASE`, or a citation that starts the document's first line: its title; `_folded_words`)."""
    names = {w for m in _OWN_CASE.finditer(text) for w in _folded_words(m["name"])}
    first = text.lstrip().split("\n", 1)[0]
    title = _CITATION.match(first)  # a first line that starts with a citation: the document's title
    if title:
        names |= _folded_words(title.group())
    return frozenset(_OWN_APPLICATION.findall(text)), frozenset(names)


def without_cited_cases(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` less those inside a citation of another case (`CASE_LAW`, `_CITATION`): published case law,
    no data of the people the document is about. Only a citation against a state (`_RESPONDENT`,
    `_country`) with a published reference (an application's number, a report's volume) is one; a citation
    of the document's own case (its application number, its name or title, `own_case`) or one naming a
    person found outside citations, on either side of "v." (an earlier case of the applicant: "Demirtaş v.
    Turkey (no. 1)"), is no other case: its spans stay."""
    citations = [(m.start(), m.end()) for m in _CITATION.finditer(text)] if " v. " in text else []
    citations = [(a, b) for a, b in citations if _REFERENCE.search(text, a, b)]
    if not citations:
        return list(spans)
    numbers, names = own_case(text)

    def inside(span: Span) -> bool:
        return any(a <= span.start and span.end <= b for a, b in citations)

    people = set().union(
        *(_folded_words(text[s.start : s.end]) for s in spans if s.label == "PERSON" and not inside(s))
    )
    others = []
    for a, b in citations:
        cited = text[a:b]
        parties = _REFERENCE.split(cited)[0]
        words = _folded_words(parties)
        state = _RESPONDENT.search(parties)  # a case of the Convention is brought against a state, not a
        if (  # person named like one ("Kessler v. Jordan")
            state
            and _country(state["state"])
            and not is_known_name(state["state"].removeprefix("the "))
            and not numbers & set(re.findall(r"\d+/\d+", cited))
            and not (names | people) & words
        ):
            others.append((a, b))
    kept = []
    for span in spans:
        if any(a <= span.start and span.end <= b for a, b in others):
            decided(CASE_LAW.name, span, False)
        else:
            kept.append(span)
    return kept


def _treaty_words(match: re.Match) -> bool:
    """Whether a treaty's name is written in everyday words that name no one ("Protection of Human Rights";
    not "the Declaration of Ilsabet Marrowind", "the Protocol for Maria Smith")."""
    words = re.findall(r"[A-Z][a-z]+", match.group())
    return all(zipf(w) >= TREATY_WORD_ZIPF and not is_known_name(w) for w in words)


def inside_statute(text: str, span: Span) -> bool:
    """Whether ``span`` lies inside a statute's name before "Act" ("Employment Rights" of "the Employment
    Rights Act 1996", `_STATUTE`) or a treaty's name ("Protection of Human Rights" of "the Convention for the
    Protection of Human Rights and Fundamental Freedoms", `_TREATY`), or is a law's short name in brackets
    after it ("GDPR" of "the General Data Protection Regulation (GDPR)")."""
    before = text[max(0, span.start - LAW_NUMBER_BEFORE) : span.start]
    acronym = (
        text[span.start : span.end].isupper()
        and text[span.end : span.end + 1] == ")"
        and _LAW_ACRONYM_BEFORE.search(before) is not None
    )
    return (
        acronym
        or _inside_match(_STATUTE, text, span)
        or _inside_match(_TREATY, text, span, around=TREATY_AROUND, accept=_treaty_words)
    )


def country_of_a_law(text: str, span: Span) -> bool:
    """Whether ``span`` lies in the country named right after a code, a constitution, a government or a
    representative ("Russian" and "Federation" of "the Criminal Code of the Russian Federation"): a country's
    English name or a state's formal name (`_country`); not "Representative of Orange Moldova" nor "of the
    Núñez household"."""
    return _inside_match(
        _LAW_OF_COUNTRY,
        text,
        span,
        "country",
        accept=lambda m: _country(m.group("country")),
    )


#: the words of a state's formal name ("the Russian Federation", "the Republic of Moldova")
_STATE_WORDS = re.compile(
    r"\b(?:Republic|Federation|Kingdom|Emirates|States|Union|Confederation|Principality)\b"
)


def _country(name: str) -> bool:
    """A country's English name (`countries`), with or without "the", or a state's formal name after "the"."""
    bare = re.sub(r"^the\s+", "", name)
    return bare in countries() or (name != bare and _STATE_WORDS.search(bare) is not None)


@functools.cache
def countries() -> frozenset[str]:
    """The English names of the world's countries and territories, today's (CLDR's, through Babel:
    "Türkiye", "Czechia") and the older ones still written (Faker's: "Turkey", "Czech Republic")."""
    from babel import Locale
    from faker.providers.address.en import Provider

    return frozenset(Locale("en").territories.values()) | frozenset(Provider.countries)


def _inside_match(
    pattern: re.Pattern,
    text: str,
    span: Span,
    group: int | str = 0,
    accept=None,
    around: int = PUBLIC_BODY_AROUND,
) -> bool:
    """Whether ``span`` lies inside ``group`` of a match of ``pattern`` within ``around`` characters of it
    that ``accept`` (if given) accepts."""
    start = max(0, span.start - around)
    window = text[start : span.end + around]
    return any(
        start + m.start(group) <= span.start
        and span.end <= start + m.end(group)
        and (accept is None or accept(m))
        for m in pattern.finditer(window)
    )


def calendar_date(piece: str, after: str = "", before: str = "") -> bool:
    """A date or time written with a digit, a month or a weekday ("12 May 1998", "May", "Monday"), or a
    length of time in words ("for eleven days"); not a relative one ("today", "two days later", "the
    following year", "in two weeks"; ``after`` and ``before``: the text around the span) nor one after "the"
    ("the first three months")."""
    return (
        any(ch.isdigit() for ch in piece)
        or _MONTH_OR_DAY.search(piece) is not None
        or (
            _DURATION_IN_WORDS.search(piece) is not None
            and _RELATIVE_TIME.search(piece + " " + after) is None
            and _RELATIVE_BEFORE.search(before) is None
            and _RELATIVE_START.match(piece) is None
        )
    )


def counted(piece: str) -> bool:
    """An amount with a number in digits or in words ("5,000 euros", "two million dollars")."""
    return any(ch.isdigit() for ch in piece) or _NUMBER_WORD.search(piece) is not None


def _quasi_identifier(label: str, piece: str) -> bool:
    """An amount with a number (`counted`), or a group or occupation written with a letter."""
    return counted(piece) if label == "QUANTITY" else any(ch.isalpha() for ch in piece)


def _register(name: str, labels: tuple[str, ...], reason: str, examples: tuple[str, ...], keep, applies):
    return register_rule(
        SpanRule(
            name=name,
            family="gdpr",
            labels=labels,
            reason=reason,
            examples=examples,
            keep=keep,
            applies=applies,
        )
    )


LAW_KIND = _register(
    "gdpr.law-kind",
    ("PERSON", "ORG", "LOCATION", "OTHER"),
    "the kind of a law written before its number ('Law' of 'Law no. 3713') is no name: NER reads it as one",
    ("Law no. 3713",),
    lambda seen, span: [],
    lambda seen, span, piece: (
        _LAW_KIND_BEFORE_NUMBER.match(seen.text, span.start) is not None
        and re.fullmatch(_LAW_KIND, piece.strip()) is not None
    ),
)
PUBLIC_BODY_OR_LAW = _register(
    "gdpr.public-body-or-law",
    ("ORG", "LOCATION", "OTHER", "DEMOGRAPHIC", "ADDRESS"),
    "a public body or a law, the first words of a public body's name (a state's adjective: 'the Polish "
    "Government'), a law's country or a piece of a statute's name, is no personal data (the court that "
    "tried the person is, and stays masked)",
    (
        "the European Court of Human Rights",
        "the Government",
        "the Polish Government",
        "Criminal Code",
        "Article 6",
        "the Criminal Code of the Russian Federation",
    ),
    lambda seen, span: [],
    lambda seen, span, piece: (
        inside_statute(seen.text, span)
        # an address may hold "Law" or "Court" ("12 Law Street"); an article is no address ("Article 6")
        or (span.label != "ADDRESS" or _ARTICLE_START.match(piece.strip()) is not None)
        and (
            public_body_or_law(piece)
            or inside_public_body(seen.text, span)
            or country_of_a_law(seen.text, span)
        )
    ),
)
_register(
    "gdpr.amount-with-currency",
    ("NUMBER",),
    "a number with a currency is an amount (a QUANTITY), however NER typed it",
    ("5,000 euros", "EUR 5,000", "$300"),
    lambda seen, span: [_amount(seen, span)],
    lambda seen, span, piece: _amount(seen, span) is not None,
)
_register(
    "gdpr.every-age",
    ("AGE",),
    "an age singles a person out with other attributes, at any age",
    ("aged 34",),
    lambda seen, span: [span],
    lambda seen, span, piece: True,
)
LAW_NUMBER = _register(
    "gdpr.law-number",
    ("DATE_TIME", "NUMBER", "ID", "PHONE", "ADDRESS"),
    "a number written as a law's number or date is the law's, no personal data (NER reads it as a year, a "
    "model as a phone number or an ID, a pattern a date's 'July 1997' as an address)",
    ("Law no. 3713", "Law no. 575 of 31 May 1965"),
    lambda seen, span: [],
    lambda seen, span, piece: law_number(seen.text, span.start, span.end),
)
_register(
    "gdpr.calendar-date",
    ("DATE_TIME",),
    "a date with a digit, a month or a weekday, and a length of time in words, are kept; a relative one "
    "('today', 'two years later') is not",
    ("12 May 1998", "in March", "for eleven days", "today"),
    lambda seen, span: (
        [span]
        if calendar_date(
            seen.text[span.start : span.end],
            seen.text[span.end : span.end + RELATIVE_AROUND],
            seen.text[max(0, span.start - RELATIVE_AROUND) : span.start],
        )
        else []
    ),
    lambda seen, span, piece: True,
)
_register(
    "gdpr.quasi-identifier",
    ("DEMOGRAPHIC", "OCCUPATION", "QUANTITY", "HEALTH"),
    "nationality, ethnicity, religion, political group, occupation and health condition are kept (a word, "
    "not a sign: spaCy reads '§' as a group); an amount needs a number",
    ("Turkish", "police officer", "5,000 euros", "diabetes"),
    lambda seen, span: [span] if _quasi_identifier(span.label, seen.text[span.start : span.end]) else [],
    lambda seen, span, piece: True,
)
#: the gdpr rules that also judge the spans of a model trained on hipaa gold: a law's kind and number, and
#: public bodies and laws, are no personal data whoever found them
NOT_PERSONAL_DATA = (LAW_KIND, LAW_NUMBER, PUBLIC_BODY_OR_LAW)


CASE_LAW = register_rule(
    Rule(
        name="gdpr.case-law-citation",
        family="whole mentions",
        labels=(
            "PERSON",
            "ORG",
            "LOCATION",
            "OTHER",
            "DEMOGRAPHIC",
            "ID",
            "NUMBER",
            "DATE_TIME",
            "ADDRESS",
            "PHONE",
        ),
        reason="a citation of another case ('Öcalan v. Turkey ([GC], no. 46221/99, §§ 52-54, ECHR "
        "2005-IV)') is published case law, no data of the people the document is about; the document's own "
        "case (its application number or name) and a case naming a person found elsewhere in it stay masked",
        examples=("see Selmouni v. France [GC], no. 25803/94, § 95, ECHR 1999-V",),
    )
)
WHOLE_TITLED_NAME = register_rule(
    Rule(
        name="gdpr.whole-titled-name",
        family="whole mentions",
        labels=("ORG", "OTHER"),
        reason="an organisation or other name found in part of capitalised words joined by 'of' or 'for' is "
        "the whole of them: an award, a university ('Order of Merit', 'University of Sofia'); not "
        "over another span or an office ('Head of Security for Lukoil'), nor where the whole is a public "
        "body or a law (a place stays itself: 'the Embassy of Bulgaria')",
        examples=("awarded the Order of Merit", "a degree from the University of Sofia"),
    )
)
_TITLED = (
    r"(?!(?:The|A|An|This|That|These|Those|Its|His|Her|Their)\b)[A-Z][\w'’.-]*"
    r"(?:[ ](?:(?:of|for|and)[ ](?:the[ ])?)?[A-Z][\w'’.-]*)*"
)
#: an office's or a role's word: the words before a name that name a person's position, not the name
_OFFICE = re.compile(
    r"\b(?:Minister|President|Chief|Head|Member|Secretary|Governor|Mayor|Director|Chair(?:man|woman|person)?|"
    r"Commissioner|Ambassador|Consul|Judge|Justice|Prosecutor|Officer|Inspector|Deputy|Speaker|Leader|"
    r"Embassy|Consulate|Office)\b"
)
#: capitalised words and "of"/"for" (and "the") just before a span, and after it
_TITLED_BEFORE = re.compile(rf"(?<![\w'’.-])(?P<words>{_TITLED})[ ](?:of|for)[ ](?:the[ ])?$")
_TITLED_AFTER = re.compile(rf"[ ](?:of|for)[ ](?:the[ ])?(?P<words>{_TITLED})(?![\w'’-])")
#: the characters read on each side of a span for the words of its name
TITLED_AROUND = 60


def whole_titled_names(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with each organisation or other name widened over the capitalised words that "of" or
    "for" join to it (`WHOLE_TITLED_NAME`), merged."""
    taken = sorted((s.start, s.end) for s in spans)
    out = []
    for span in spans:
        if WHOLE_TITLED_NAME.covers(span.label) and text[span.start : span.start + 1].isupper():
            span = _titled(text, span, taken)
        out.append(span)
    return merge_spans(out)


def _titled(text: str, span: Span, taken: list[tuple[int, int]]) -> Span:
    before = _TITLED_BEFORE.search(text, max(0, span.start - TITLED_AROUND), span.start)
    last_word = text[span.start : span.end].split()[-1:]
    after = (
        _TITLED_AFTER.match(text, span.end, span.end + TITLED_AROUND)
        if last_word and last_word[0][:1].isupper()
        else None
    )
    start = before.start() if before else span.start
    end = after.end() if after else span.end
    free = all(b <= start or a >= end or (a, b) == (span.start, span.end) for a, b in taken)
    added = [m["words"] for m in (before, after) if m]
    if (
        (start, end) == (span.start, span.end)
        or not free
        or any(map(public_body_or_law, [text[start:end], *added]))
        or any(_OFFICE.search(words) for words in added)
    ):
        return span
    widened = dataclasses.replace(span, start=start, end=end)
    decided(WHOLE_TITLED_NAME.name, widened, True)
    return widened
