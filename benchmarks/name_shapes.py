"""Names in hard shapes: synthetic sentences of notes and letters with names of ten Faker cultures and
invented ones, in shapes a model reads poorly (a rare name in ALL CAPS inside a sentence, a surname alone
after "spoke with" or before "called", "Last, First", one item of a list, ...). For each shape, the share
of sentences that keep a name word in clear after de-identification (a name leak), for the deid-hf
`default` pipeline (hipaa, `full_entity`) and Presidio 2.2.366 (AnalyzerEngine + spaCy sm, every entity;
its spans replaced) in the same run. No evaluation data: the sentences are generated from ``--seed``.

    python benchmarks/name_shapes.py --per-shape 40 --seed 0

Prints a table, writes benchmarks/results/name_shapes.json.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table, write_results  # noqa: E402

LOCALES = ("en_US", "de_DE", "fr_FR", "it_IT", "pl_PL", "nl_NL", "tr_TR", "es_ES", "ro_RO", "sv_SE")
#: syllables of invented names (no list holds them)
SYLLABLES = (
    "an el ar mor wind tes wick qu en by har row gate il sa bet vos sen kamp or del thal brin dor ost rik"
)
#: shape -> template ({F}/{L}: a person's given name and surname; {F2}/{L2}: another person's)
SHAPES = {
    "capitals in a sentence": "Reviewed the chart of {F!u} {L!u} today, no changes.",
    "capitals after a verb": "Discussed plan with {F!u} {L!u} and family.",
    "surname after 'spoke with'": "Spoke with {L} about the results.",
    "surname after 'called'": "Called {L} at home, left message.",
    "surname after 'per'": "Per {L}, no changes today.",
    "surname before 'called'": "{L} called about the results.",
    "name field, surname first": "Patient: {L}, {F}\nAge 54",
    "surname first in a sentence": "{L}, {F} was admitted on the ward.",
    "list of attendees": "Attendees: {F} {L}, {F2} {L2}.",
    "cc line": "cc: {F} {L}; {F2} {L2}",
    "name after a role": "I am writing about my client {F} {L}.",
    "possessive": "{F} {L}'s daughter called twice today.",
    "given name alone": "{F} is doing well, eating breakfast.",
    "two surnames": "We met {L} and {L2} yesterday.",
}


def _person(rng: random.Random, fakers: dict) -> tuple[str, str]:
    if rng.random() < 0.5:
        syllables = SYLLABLES.split()
        return tuple(  # type: ignore[return-value]
            "".join(rng.choice(syllables) for _ in range(rng.choice((2, 3)))).capitalize() for _ in range(2)
        )
    faker = fakers[rng.choice(LOCALES)]
    return faker.first_name(), faker.last_name()


def sentences(per_shape: int, seed: int) -> list[tuple[str, str, list[str]]]:
    """(shape, sentence, its name words) for each shape, ``per_shape`` each."""
    from faker import Faker

    rng = random.Random(seed)
    fakers = {locale: Faker(locale) for locale in LOCALES}
    for i, faker in enumerate(fakers.values()):
        faker.seed_instance(seed * 100 + i)
    out = []
    for shape, template in SHAPES.items():
        for _ in range(per_shape):
            (f, last), (f2, last2) = _person(rng, fakers), _person(rng, fakers)
            values = {"F": f, "L": last, "F2": f2, "L2": last2}
            names, text = [], template
            for key, value in values.items():
                for form, written in ((f"{{{key}!u}}", value.upper()), (f"{{{key}}}", value)):
                    if form in text:
                        text = text.replace(form, written)
                        names += written.split()
            out.append((shape, text, names))
    return out


def leaks(outputs: list[str], rows: list[tuple[str, str, list[str]]]) -> dict[str, float]:
    """Per shape, the share of sentences whose output still holds one of their name words as a word."""
    kept: dict[str, list[bool]] = {}
    for output, (shape, _, names) in zip(outputs, rows):
        left = any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", output) for n in names)
        kept.setdefault(shape, []).append(left)
    return {shape: sum(v) / len(v) for shape, v in kept.items()}


def presidio_outputs(texts: list[str]) -> list[str]:
    from detection import presidio_analyzer

    analyzer = presidio_analyzer()
    outputs = []
    for text in texts:
        out = text
        for result in sorted(analyzer.analyze(text, language="en"), key=lambda r: -r.start):
            out = out[: result.start] + f"<{result.entity_type}>" + out[result.end :]
        outputs.append(out)
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-shape", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import deid_hf

    rows = sentences(args.per_shape, args.seed)
    texts = [text for _, text, _ in rows]
    ours = leaks([o["text"] for o in deid_hf.pipeline("deid-substitution")(texts, batch_size=16)], rows)
    theirs = leaks(presidio_outputs(texts), rows)
    table = [{"shape": shape, "deid-hf default": ours[shape], "Presidio": theirs[shape]} for shape in SHAPES]
    table.append(
        {
            "shape": "all",
            "deid-hf default": sum(ours.values()) / len(ours),
            "Presidio": sum(theirs.values()) / len(theirs),
        }
    )
    print(f"share of sentences with a name left in clear ({args.per_shape} per shape, seed {args.seed})")
    print_table(table, ["shape", "deid-hf default", "Presidio"])
    write_results("name_shapes", {"per_shape": args.per_shape, "seed": args.seed, "rows": table})


if __name__ == "__main__":
    main()
