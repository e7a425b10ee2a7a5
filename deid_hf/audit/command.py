"""`deid-hf audit canary|reid|all IN` and `deid-hf audit dp`: the audits, with a progress bar, into one
report."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ..errors import InputError
from ..policies import POLICIES

#: the variant of `deid-hf audit reid --strategies` that keeps surrogates consistent across the corpus
CONSISTENT_SUFFIX = "+consistent"
#: the `deid-hf audit reid --strategies` name of the DP paraphraser (`deid-paraphrase` on the original text)
PARAPHRASE = "paraphrase"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-commands and options of ``deid-hf audit``."""
    sub = parser.add_subparsers(dest="audit", required=True)
    _add_dp_arguments(sub)
    for name, help_text in (
        ("canary", "canary recall: synthetic identifiers in copies of a sample, and the share that survive"),
        ("reid", "re-identification: a TF-IDF attacker names the person behind each de-identified document"),
        ("all", "both audits, one report"),
    ):
        audit = sub.add_parser(name, help=help_text)
        audit.add_argument("input", help="JSONL, CSV, Parquet or a saved dataset (as deid-hf run reads)")
        audit.add_argument("--out", default="audit", help="folder of the report (audit.json/.md/.html)")
        audit.add_argument("--text-field", default="text")
        audit.add_argument(
            "--split", default=None, help="split of a saved DatasetDict (needed when it has several)"
        )
        audit.add_argument("--config", default=None, help="YAML/JSON configuration, as deid-hf run --config")
        audit.add_argument("--detector", default=None, help="comma-separated detectors (default: default)")
        audit.add_argument("--policy", default=None, choices=[str(p) for p in POLICIES])
        audit.add_argument("--strategy", default=None, help="replacement strategy (default full_entity)")
        audit.add_argument("--seed", type=int, default=0, help="seed of the sample, canaries and surrogates")
        audit.add_argument("--batch-size", type=int, default=16)
        if name in ("canary", "all"):
            audit.add_argument("--sample", type=int, default=200, help="documents copied with canaries")
            audit.add_argument("--copies", type=int, default=1, help="canary copies of each document")
            audit.add_argument("--inserted", type=int, default=4, help="canary sentences inserted per copy")
            audit.add_argument(
                "--locales",
                default=None,
                help="comma-separated Faker locales of the canary names and places, those of the corpus' "
                "people, in Latin script (e.g. en_US for a US hospital; default: many cultures, a lower "
                "estimate where the people are of one country)",
            )
            audit.add_argument(
                "--reference",
                default=None,
                help="comma-separated detectors of a reference configuration (e.g. default when auditing "
                "fast): canaries re-fill what the reference finds, and the estimate counts them, so a "
                "configuration is measured where this corpus writes identifiers it may miss",
            )
        if name in ("reid", "all"):
            audit.add_argument("--group-field", required=True, help="field naming each document's person")
            audit.add_argument(
                "--strategies",
                default=None,
                help="comma-separated strategies attacked (default: the configuration's); "
                f"NAME{CONSISTENT_SUFFIX}: that strategy with one substitution table for the corpus; "
                f"{PARAPHRASE}: the DP paraphraser on a sample (--paraphrase-sample)",
            )
            audit.add_argument(
                "--paraphrase-sample",
                type=int,
                default=50,
                help="documents the paraphraser rewrites and the attack ranks (it generates token by token)",
            )
            audit.add_argument("--epsilon", type=float, default=None, help="paraphraser's epsilon per token")
            audit.add_argument(
                "--paraphraser", default=None, help="paraphraser model (default: the shipped one)"
            )
            audit.add_argument("--top-k", type=int, default=5)


def _add_dp_arguments(sub) -> None:
    dp = sub.add_parser(
        "dp", help="DP paraphraser: a distinguishing attack gives a measured lower bound on its epsilon"
    )
    dp.add_argument("--out", default="audit", help="folder of the report (audit.json/.md/.html)")
    dp.add_argument(
        "--model", default=None, help="paraphraser (default: the shipped smollm2-135m-paraphraser)"
    )
    dp.add_argument("--epsilons", default="1,10,75", help="comma-separated per-token epsilons attacked")
    dp.add_argument("--trials", type=int, default=200, help="outputs sampled from each sentence of a pair")
    dp.add_argument("--max-new-tokens", type=int, default=24)
    dp.add_argument("--seed", type=int, default=0)


def run_dp(args: argparse.Namespace, console) -> int:
    """`deid-hf audit dp`: the attack at each epsilon, into the report."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    from ..pipelines import pipeline
    from .dp_attack import run_dp_audit
    from .report import check_report_folder, write_audit_report

    try:
        epsilons = [float(e) for e in args.epsilons.split(",") if e.strip()]
    except ValueError:
        raise InputError(f"--epsilons must be comma-separated numbers, got {args.epsilons!r}") from None
    if not epsilons or any(e <= 0 for e in epsilons):
        raise InputError(f"--epsilons must be positive numbers, got {args.epsilons!r}")
    check_report_folder(args.out)
    pipe = pipeline("deid-paraphrase", model=args.model)
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn()) as bar:
        task = bar.add_task("distinguishing attacks", total=None)
        section = run_dp_audit(
            pipe,
            epsilons,
            trials=args.trials,
            max_new_tokens=args.max_new_tokens,
            seed=args.seed,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    configuration = {"paraphraser": args.model or "smollm2-135m-paraphraser", "epsilons": epsilons}
    written = write_audit_report(args.out, {"dp": section}, configuration)
    console.print(f"wrote the audit report to {written['md']}")
    return 0


def pipeline_options(args: argparse.Namespace) -> dict:
    """The configuration audited: the --config file, then the flags given."""
    from ..config import load_config, validate

    options = load_config(args.config) if args.config else {}
    given = {
        "detector": args.detector.split(",") if args.detector else None,
        "policy": args.policy,
        "strategy": args.strategy,
    }
    options.update({k: v for k, v in given.items() if v is not None})
    return validate(options)


def effective(options: dict) -> dict:
    """The options with the pipeline's defaults of strategy, policy (as the pipeline resolves it: strict for
    ZSTS with its own p-filter) and detector filled in."""
    from ..config import PIPELINE_DEFAULTS, PipelineConfig

    filled = {k: v for k, v in options.items() if v is not None}
    filled.setdefault("strategy", PIPELINE_DEFAULTS["strategy"])
    filled.setdefault("policy", str(PipelineConfig.from_dict(filled).resolved_policy()))
    filled.setdefault("detector", "pfilter" if filled["strategy"] == "zsts" else "default")
    return filled


#: the audited configuration's options a reference shares: what counts as an identifier, not how the
#: audited detectors score or replace it
REFERENCE_SHARES = ("entities", "allow_list", "deny_list", "patterns")


def checked_reference(reference: str | None, options: dict) -> list[str] | None:
    """The detectors of ``--reference`` as a list (None without one); an `InputError` for an empty or
    unknown name, or the detectors the audited configuration runs (an ensemble written out counts)."""
    from ..detect import check_detector_name, detector_members

    if reference is None:
        return None
    detectors = [d.strip() for d in reference.split(",")]
    if not all(detectors):
        raise InputError(f"--reference must name detectors separated by commas, got {reference!r}")
    for detector in detectors:
        check_detector_name(detector)
    if detector_members(detectors) == detector_members(effective(options)["detector"]):
        raise InputError(
            f"--reference {reference} runs the detectors audited: a reference must find what they may "
            "miss, so name others (e.g. default when auditing fast)"
        )
    return detectors


def reference_options(options: dict, detectors: list[str]) -> dict:
    """The reference configuration: ``detectors`` under the audited configuration's policy (as resolved)
    and its definitions of what counts (`REFERENCE_SHARES`), replacing with typed placeholders (its spans
    are all the audit uses)."""
    from ..config import PipelineConfig, validate

    policy = PipelineConfig.from_dict(options).resolved_policy()
    shared = {k: v for k, v in options.items() if k in REFERENCE_SHARES and v is not None}
    return validate({**shared, "detector": detectors, "policy": str(policy), "strategy": "typed"})


def read_corpus(args: argparse.Namespace, group_field: str | None) -> tuple[list[str], list[str] | None, int]:
    """Texts (and groups) of the records that have them, and how many records were skipped."""
    from ..corpus_files import read_records

    records = read_records(args.input, args.split)
    if not records:
        raise InputError(f"input {args.input} holds no records")
    unreadable = [r["__unreadable__"] for r in records if isinstance(r, dict) and "__unreadable__" in r]
    if len(unreadable) == len(records):
        raise InputError(f"no record could be read: {unreadable[0]} (the input must be UTF-8)")
    if not any(isinstance(r, dict) and args.text_field in r for r in records):
        raise InputError(f"no record has a field {args.text_field!r}; name the text field with --text-field")
    if group_field and not any(isinstance(r, dict) and group_field in r for r in records):
        raise InputError(f"no record has a field {group_field!r} (--group-field)")
    texts, groups = [], []
    for record in records:
        text = record.get(args.text_field) if isinstance(record, dict) else None
        group = record.get(group_field) if group_field and isinstance(record, dict) else None
        if isinstance(text, str) and text.strip() and (not group_field or group not in (None, "")):
            texts.append(text)
            groups.append(str(group))
    if not texts:
        raise InputError(f"no record has a non-empty string in {args.text_field!r}")
    return texts, groups if group_field else None, len(records) - len(texts)


def deidentify_all(pipe, texts, groups, seed, batch_size, progress: Callable[[int], None]) -> list[str]:
    """The de-identified texts, row for row (a failed record becomes the empty text)."""
    out = []
    for start in range(0, len(texts), batch_size):
        batch = [{"text": t, "group": g} for t, g in zip(texts[start : start + batch_size], groups[start:])]
        results = pipe(batch, seed=seed, batch_size=len(batch), errors="report")
        out += [r.get("text") or "" for r in results]
        progress(len(out))
    return out


def paraphrase_documents(
    pipe, texts, chosen, seed: int, batch_size: int, progress: Callable[[int], None], **options
) -> list[str | None]:
    """The documents at indices ``chosen`` paraphrased by ``pipe`` (`deid-paraphrase`), row for row;
    ``None`` for the others (not attacked) and for a document the paraphraser failed on."""
    out: list[str | None] = [None] * len(texts)
    chosen = sorted(chosen)
    for start in range(0, len(chosen), batch_size):
        batch = chosen[start : start + batch_size]
        results = pipe(
            [texts[i] for i in batch], seed=seed, batch_size=len(batch), errors="report", **options
        )
        for i, result in zip(batch, results):
            out[i] = None if result.get("error") else result["paraphrase"]
        progress(min(start + batch_size, len(chosen)))
    return out


def reid_strategies(args, options: dict) -> list[str]:
    """The strategies the attack runs, checked with the options only one of them uses: each named once, the
    paraphraser's options only with the paraphraser, and ``--top-k`` at least 1."""
    names = [n.strip() for n in args.strategies.split(",")] if args.strategies else []
    names = names or [str(options.get("strategy", "full_entity"))]
    if len(set(names)) < len(names) or not all(names):
        raise InputError(f"--strategies must name each strategy once, got {args.strategies!r}")
    if PARAPHRASE not in names and (args.paraphraser is not None or args.epsilon is not None):
        raise InputError(
            f"--paraphraser and --epsilon apply to the {PARAPHRASE} strategy: add it to --strategies"
        )
    if args.top_k < 1:
        raise InputError(f"--top-k must be at least 1, got {args.top_k}")
    if args.paraphraser is not None:
        from ..models import REGISTRY, model_path

        if args.paraphraser not in REGISTRY:
            model_path(args.paraphraser)  # a folder that is not there: its error now
    return names


def check_strategy(options: dict) -> None:
    """An `InputError` now for a strategy that cannot be built (a keyed operator without its key), before
    any model loads; a strategy that needs a language model is checked when its pipeline is built."""
    from ..replace import get_strategy, needs_language_model

    strategy = options.get("strategy", "full_entity")
    if not needs_language_model(strategy):
        get_strategy(strategy, **(options.get("strategy_options") or {}))


def reid_variants(
    args, options: dict, texts, groups, bar, record: dict
) -> dict[str, Callable[[], list[str | None]]]:
    """Name -> a function de-identifying the corpus with that strategy (progress on ``bar``); every
    strategy is checked before any is run. The paraphrase variant writes its sample into ``record``
    (documents chosen, documents the paraphraser failed on, epsilon per token)."""
    from ..config import validate
    from ..pipelines import pipeline

    names = reid_strategies(args, options)
    variants = {}
    for name in names:
        if name == PARAPHRASE:
            if args.paraphrase_sample < 1 or (args.epsilon is not None and args.epsilon <= 0):
                raise InputError(
                    "--paraphrase-sample must be at least 1 and --epsilon positive, got "
                    f"{args.paraphrase_sample} and {args.epsilon}"
                )

            def paraphrased() -> list[str | None]:
                import random

                from ..pipelines.paraphrase import DEFAULT_EPSILON
                from .reid import attackable

                candidates = attackable(groups)
                chosen = random.Random(args.seed).sample(
                    candidates, min(args.paraphrase_sample, len(candidates))
                )
                task = bar.add_task(f"paraphrasing ({len(chosen)} documents)", total=len(chosen))
                pipe = pipeline("deid-paraphrase", model=args.paraphraser)
                extra = {"epsilon": args.epsilon} if args.epsilon is not None else {}
                update = lambda done: bar.update(task, completed=done)  # noqa: E731
                out = paraphrase_documents(pipe, texts, chosen, args.seed, args.batch_size, update, **extra)
                record.update(
                    documents=len(chosen),
                    failed=sum(out[i] is None for i in chosen),
                    epsilon_per_token=args.epsilon if args.epsilon is not None else DEFAULT_EPSILON,
                )
                return out

            variants[name] = paraphrased
            continue
        strategy, consistent = name.removesuffix(CONSISTENT_SUFFIX), name.endswith(CONSISTENT_SUFFIX)
        chosen = validate({**options, "strategy": strategy, **({"shared_table": True} if consistent else {})})
        check_strategy(chosen)

        def run(chosen=chosen, name=name) -> list[str]:
            task = bar.add_task(f"de-identifying ({name})", total=len(texts))
            pipe = pipeline("deid-substitution", **chosen)
            update = lambda done: bar.update(task, completed=done)  # noqa: E731
            return deidentify_all(pipe, texts, groups, args.seed, args.batch_size, update)

        variants[name] = run
    return variants


def run(args: argparse.Namespace, console) -> int:
    """Run the audit(s) asked for and write the report; prints where it went."""
    if args.audit == "dp":
        return run_dp(args, console)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from ..pipelines import pipeline
    from ..train.augment import checked_locales
    from .recall import run_canary_audit
    from .reid import check_attackable, run_reid_audit
    from .report import check_report_folder, write_audit_report

    if args.batch_size < 1:
        raise InputError(f"--batch-size must be at least 1, got {args.batch_size}")
    check_report_folder(args.out)
    if args.audit in ("canary", "all") and (args.sample < 1 or args.copies < 1 or args.inserted < 0):
        raise InputError(
            f"--sample and --copies must be at least 1 and --inserted at least 0, got {args.sample}, "
            f"{args.copies} and {args.inserted}"
        )
    options = pipeline_options(args)
    reference_detectors = checked_reference(getattr(args, "reference", None), options)
    locales = getattr(args, "locales", None)
    locales = None if locales is None else checked_locales(locales)
    group_field = getattr(args, "group_field", None)
    texts, groups, skipped = read_corpus(args, group_field)
    sections, paraphrased = {}, {}
    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeRemainingColumn(), console=console) as bar:
        # the attack's options and corpus are checked before the canary audit spends its time
        variants = {}
        if args.audit != "canary":
            check_attackable(groups)
            variants = reid_variants(args, options, texts, groups, bar, paraphrased)
        if args.audit in ("canary", "all"):
            reference = None
            if reference_detectors:
                reference = pipeline("deid-substitution", **reference_options(options, reference_detectors))
            task = bar.add_task("canary audit", total=None)
            sections["canary"] = run_canary_audit(
                pipeline("deid-substitution", **options),
                texts,
                sample=args.sample,
                copies=args.copies,
                inserted=args.inserted,
                seed=args.seed,
                batch_size=args.batch_size,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                locales=locales,
                reference=reference,
            )
        if args.audit in ("reid", "all"):
            sections["reid"] = run_reid_audit(texts, groups, variants, k=args.top_k)
    configuration = {"input": Path(args.input).name, "records_skipped": skipped, **effective(options)}
    if reference_detectors:
        configuration["reference_detector"] = reference_detectors
    if paraphrased:
        configuration["paraphrase_sample"] = paraphrased
        if paraphrased["failed"]:
            console.print(
                f"the paraphraser failed on {paraphrased['failed']} of the {paraphrased['documents']} "
                "documents sampled: they are left out of its attack (the report says how many)"
            )
    written = write_audit_report(args.out, sections, configuration)
    console.print(
        f"wrote the audit report to {written['md']} ({', '.join(p.name for p in written.values())})"
    )
    return 0
