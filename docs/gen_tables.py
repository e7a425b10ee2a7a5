"""Tables generated from deid-hf's registries, so the documentation cannot drift from the code.

mkdocs runs this file as a hook (``hooks:`` in mkdocs.yml): a page line that is exactly ``<!-- gen:NAME -->``
is replaced by ``TABLES[NAME]()``. An unknown NAME fails the build. tests/test_readme.py imports it too.
"""

from __future__ import annotations

import argparse
import inspect
import re

#: one sentence per identifier policy; a policy registered in the code without one here fails the build
POLICY_TEXT = {
    "hipaa": (
        "HIPAA Safe Harbor as the PhysioNet deid corpus applies it: names, places, dates, contact details "
        "and ID numbers; not times of day, durations, measurements or ages of 89 and under."
    ),
    "strict": "Every span any detector finds: every number, time and capitalised word.",
    "gdpr": (
        "The people in general text (decisions, transcripts, interviews, biographies): what hipaa keeps, "
        "every age, and the quasi-identifiers nationality, ethnicity, religion, political group, occupation, "
        "amounts and events; not public bodies or laws."
    ),
}

_MARKER = re.compile(r"^<!-- gen:([a-z-]+) -->$", flags=re.MULTILINE)


def _cell(text: object) -> str:
    """One table cell: a single line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _first_sentence(text: str | None) -> str:
    paragraph = " ".join((text or "").strip().split("\n\n")[0].split())
    match = re.match(r"(.+?(?<!\bal)\.)(\s+[A-Z(]|$)", paragraph)  # not at "et al."
    return (match.group(1) if match else paragraph).replace("``", "`")


def detectors() -> str:
    """Every registered detector with the argument it takes and its help text."""
    from deid_hf.detect import DETECTORS

    return _table(
        ["name", "what it runs"], [[f"`{entry.usage}`", entry.help] for entry in DETECTORS.values()]
    )


def strategies() -> str:
    """Every registered replacement strategy, what it writes and whether the randomized-response lemma
    gives it an epsilon."""
    from deid_hf.replace import STRATEGIES
    from deid_hf.replace.base import Strategy

    rows = []
    for name, cls in STRATEGIES.items():
        dp = cls.replacement_distribution is not Strategy.replacement_distribution
        notes = []
        if cls.per_word:
            notes.append("per word")
        if cls.needs_lm:
            notes.append("uses the pipeline's LM")
        if cls.needs_key:
            notes.append("needs a key")
        if cls.python_only:
            notes.append(f"Python only ({cls.python_only})")
        privacy = "epsilon (randomized response)" if dp else "no DP guarantee"
        rows.append(
            [f"`{name}`", _first_sentence(inspect.getmodule(cls).__doc__), privacy, ", ".join(notes) or "-"]
        )
    return _table(["name", "replacement", "privacy reported", "notes"], rows)


def policies() -> str:
    """Every identifier policy the detectors accept."""
    from deid_hf.detect.policy import DEFAULT_POLICY, POLICIES

    missing = [p for p in POLICIES if p not in POLICY_TEXT]
    if missing:
        raise KeyError(f"docs/gen_tables.py has no description of the policies {missing}")
    return _table(
        ["policy", "what counts as identifying"],
        [[f"`{p}`" + (" (default)" if p == DEFAULT_POLICY else ""), POLICY_TEXT[p]] for p in POLICIES],
    )


def labels() -> str:
    """The label schema every detector maps its output to."""
    from deid_hf.spans import LABELS

    return " · ".join(f"`{label}`" for label in LABELS)


def pipelines() -> str:
    """The transformers tasks deid-hf registers."""
    from deid_hf.pipelines import TASKS

    return _table(
        ["task", "pipeline class", "what"],
        [
            [
                f"`{task}`",
                f"`{cls.__name__}`",
                _first_sentence(inspect.getmodule(cls).__doc__).split(": ", 1)[-1],
            ]
            for task, cls in TASKS.items()
        ],
    )


def models() -> str:
    """The offline model registry."""
    from deid_hf.models import REGISTRY

    rows = [
        [
            f"`{spec.name}`",
            getattr(spec, "kind", ""),
            getattr(spec, "description", ""),
            f"`{getattr(spec, 'base_model', '') or '-'}`",
            getattr(spec, "license", "") or "-",
        ]
        for spec in REGISTRY.values()
    ]
    return _table(["name", "kind", "what", "base model", "licence"], rows)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return {name: (helps.get(name, ""), sub) for name, sub in action.choices.items()}
    return {}


def _options(prefix: str, parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        name = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.dest.upper()}`"
        default = action.default
        shown = "" if default in (None, False, argparse.SUPPRESS) else f"`{default}`"
        if action.choices and not isinstance(action.choices, dict):
            choices = ", ".join(str(c) for c in action.choices)
            help_text = f"{action.help or ''} (one of {choices})".strip()
        else:
            help_text = action.help or ""
        rows.append([name, shown, help_text])
    text = f"### `{prefix}`\n\n"
    if rows:
        return [text + _table(["option", "default", "meaning"], rows)]
    return [text + ("Subcommands below." if _subcommands(parser) else "No options.")]


def cli() -> str:
    """Every subcommand of ``deid-hf`` with its options, from the argparse parser itself."""
    from deid_hf.cli import build_parser

    sections = []

    def walk(prefix: str, parser: argparse.ArgumentParser, summary: str) -> None:
        subs = _subcommands(parser)
        if prefix != "deid-hf":
            body = _options(prefix, parser)[0]
            if summary:
                body = body.replace("\n\n", f"\n\n{_cell(summary)}\n\n", 1)
            sections.append(body)
        for name, (help_text, sub) in subs.items():
            walk(f"{prefix} {name}", sub, help_text)

    walk("deid-hf", build_parser(), "")
    return "\n\n".join(sections)


def cli_summary() -> str:
    """One row per subcommand."""
    from deid_hf.cli import build_parser

    return _table(
        ["command", "what"],
        [[f"`deid-hf {n}`", h] for n, (h, _) in _subcommands(build_parser()).items()],
    )


def rules() -> str:
    """Every named rule of the identifier policy and the context rules, by family, in the order they apply."""
    from deid_hf.detect.rules import RULES

    return _table(
        ["family", "rule", "labels", "why", "examples"],
        [
            [
                rule.family,
                f"`{rule.name}`",
                ", ".join(rule.labels) or "any",
                rule.reason,
                "; ".join(f"`{e}`" for e in rule.examples),
            ]
            for rule in RULES
        ],
    )


def stages() -> str:
    """The detection stages in the order they run, with the object that runs each."""
    from deid_hf.detect.stages import DETECTION_STAGES

    return _table(
        ["#", "stage", "part", "what"],
        [[i, f"`{s.name}`", s.part, s.help] for i, s in enumerate(DETECTION_STAGES, 1)],
    )


TABLES = {
    "detectors": detectors,
    "rules": rules,
    "stages": stages,
    "strategies": strategies,
    "policies": policies,
    "labels": labels,
    "pipelines": pipelines,
    "models": models,
    "cli": cli,
    "cli-summary": cli_summary,
}


def expand(markdown: str) -> str:
    """``markdown`` with every ``<!-- gen:NAME -->`` line replaced by its table."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in TABLES:
            raise KeyError(f"unknown generated table {name!r}; known: {', '.join(TABLES)}")
        return TABLES[name]()

    return _MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, **kwargs) -> str:
    """mkdocs hook: expand the generated tables of a page."""
    return expand(markdown)
