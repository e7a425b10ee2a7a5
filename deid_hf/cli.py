"""`deid-hf` command line: demo, models (more sub-commands register themselves in ``COMMANDS``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .errors import DeidError, InputError

#: messages are never wrapped (logs and pipes get whole lines; a terminal wraps them itself); tables still fit
#: the terminal width
console = Console(soft_wrap=True)


def cmd_demo(args: argparse.Namespace) -> None:
    """De-identify the bundled examples with the offline defaults and show them side by side."""
    from .demo import deidentify_examples
    from .paths import bundled_examples

    for example, result in deidentify_examples(bundled_examples(), seed=args.seed):
        table = Table(title=f"{example['id']} ({example['kind']})", show_lines=True, expand=True)
        table.add_column("original")
        table.add_column("de-identified")
        table.add_row(example["text"], result["text"])
        console.print(table)
        found = Table(show_header=True, box=None)
        for column in ("span", "label", "source", "replacement"):
            found.add_column(column)
        for span in result["spans"]:
            found.add_row(
                f"{span['start']}-{span['end']}", span["label"], span["source"], span["replacement"]
            )
        console.print(found)
        console.print(f"[dim]privacy: {result['privacy']['guarantee']}[/dim]\n")


def cmd_models(args: argparse.Namespace) -> None:
    """List the offline default models: shipped ones with version, size and digest, where each lives and
    whether it is ready."""
    from . import models
    from .paths import cache_dir

    if args.rebuild:
        for name, spec in models.REGISTRY.items():
            if spec.kind == "causal-lm":
                console.print(f"rebuilding {name} ...")
                models.model_path(name, rebuild=True)
    if args.build:
        for row in models.status():
            if not row["ready"]:
                console.print(f"building {row['name']}: {row['note']}")
                models.model_path(row["name"])
    table = Table(title=f"deid-hf offline models (cache: {cache_dir()})")
    for column in ("name", "kind", "package", "size", "digest", "ready", "path", "note"):
        # names are what users type: never wrapped; long paths and notes fold instead
        table.add_column(column, overflow="fold", no_wrap=column in ("name", "ready", "size"))
    rows = models.status()
    for row in rows:
        table.add_row(
            row["name"],
            row["kind"],
            row["package"],
            f"{row['bytes'] / 1e6:.1f} MB" if "bytes" in row else "-",
            row.get("digest", "-"),
            "yes" if row["ready"] else "no",
            row["path"] or "-",
            row["note"],
        )
    console.print(table)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


def _run_options(args: argparse.Namespace) -> dict:
    """The pipeline options of `deid-hf run`: the --config file, then the flags given on the command line."""
    from .config import load_config, validate
    from .replace.per_label import with_operators

    options = load_config(args.config) if args.config else {}
    given = {
        "strategy": args.strategy,
        "detector": args.detector.split(",") if args.detector else None,
        "model": args.model,
        "p": args.p,
        "seed": args.seed,
        "shared_table": True if args.shared_table else None,
        "policy": args.policy,
    }
    options.update({k: v for k, v in given.items() if v is not None})
    options["strategy"] = with_operators(options.get("strategy"), args.operator)
    if options["strategy"] is None:
        del options["strategy"]
    if options.get("strategy") == "word_by_word" and args.pool:
        options["strategy_options"] = {**(options.get("strategy_options") or {}), "pool": args.pool}
    return validate(options)  # no detector given: the pipeline's choice (zsts: its p-filter; else default)


def cmd_run(args: argparse.Namespace) -> int:
    """De-identify a corpus (JSONL, CSV, Parquet or a saved dataset) into OUTPUT, resumably."""
    import os

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from .corpus import run_corpus
    from .pipelines import pipeline
    from .reidentify import SealedMappingPipe

    options = _run_options(args)
    model, p, seed = options.pop("model", None), options.pop("p", 1.0), options.pop("seed", None)
    key = os.environ.get(args.key_env) or None
    if args.engine == "ray":
        from .corpus_ray import RayEngine

        if args.mapping_out:
            raise InputError("--mapping-out needs the local engine (--engine local)")
        engine_options = {"model": model, **options}
        pipe = RayEngine(
            engine_options, num_workers=args.num_workers, gpus_per_worker=args.gpus_per_worker, key=key
        )
    else:
        pipe = pipeline("deid-substitution", model=model, key=key, **options)
        if args.mapping_out:
            pipe = SealedMappingPipe(pipe, key_env=args.key_env)
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
    ) as bar:
        task = bar.add_task("de-identifying", total=None)
        report = run_corpus(
            pipe,
            args.input,
            args.output,
            text_field=args.text_field,
            batch_size=args.batch_size,
            p=p,
            seed=seed,
            split=args.split,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
            restart=args.restart,
            mapping_out=args.mapping_out,
            group_field=args.group_field,
            fit_corpus=args.fit_corpus,
        )
    console.print(
        f"wrote {report['written']} of {report['records']} records to {report['output']}; "
        f"{len(report['errors'])} error(s); privacy: {report['privacy']['guarantee']}"
    )
    for error in report["errors"][:20]:
        console.print(f"  record {error['index']}: {error['error']}")
    if report["records"] and not report["written"]:
        print("deid-hf: error: every record failed (see the errors above)", file=sys.stderr)
        return 1
    return 0


def cmd_serve(args: argparse.Namespace) -> None:
    """HTTP service (FastAPI): /v1/deidentify, /v1/detect, /v1/reidentify, /health, /docs; UI at /ui."""
    from .serve.command import run

    run(args)


def cmd_reidentify(args: argparse.Namespace) -> None:
    """Restore the originals of a de-identified corpus: [ENC:...] envelopes, or an encrypted mapping file."""
    from .corpus_files import read_records, write_records
    from .corpus_guard import check_clashes
    from .reidentify import decrypt_envelopes, read_mapping, restore_text

    output = Path(args.output)
    if output.suffix not in (".jsonl", ".csv", ".parquet"):
        raise DeidError(f"unsupported output {output.name}: use .jsonl, .csv or .parquet")
    read = {"input": Path(args.input), **({"mapping file": Path(args.mapping)} if args.mapping else {})}
    check_clashes(read, {"output": output, "temporary output": output.with_name(f".{output.name}.tmp")})
    records = read_records(args.input)
    mapping = read_mapping(args.mapping, key_env=args.key_env) if args.mapping else None
    if mapping is not None and (extra := sorted(set(mapping) - set(range(len(records))))):
        raise DeidError(f"the mapping file has entries for rows the input lacks (row {extra[0]}, ...)")
    restored = []
    for row, record in enumerate(records):
        text = record.get(args.text_field)
        if not isinstance(text, str):
            raise DeidError(f"record {row} has no string field {args.text_field!r}")
        if mapping is not None:
            if row not in mapping:
                raise DeidError(
                    f"record {row} has no entry in the mapping file: is this the output of the run that "
                    "wrote it?"
                )
            text = restore_text(text, mapping[row])
        else:
            text = decrypt_envelopes(text, key_env=args.key_env)
        restored.append({**record, args.text_field: text})
    write_records(restored, output)
    console.print(f"re-identified {len(restored)} records into {output}")


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit a corpus without gold labels: canary recall, re-identification risk (docs/guides/audit.md)."""
    from .audit.command import run

    return run(args, console)


def cmd_keygen(args: argparse.Namespace) -> None:
    """Print a fresh random key for the hash and encrypt operators and mapping files (set DEID_HF_KEY)."""
    from .replace.keys import generate_key

    print(generate_key())


def cmd_evaluate_detection(args: argparse.Namespace) -> None:
    """Detection metrics of shared/EVALUATION.md against gold spans (JSON/JSONL), printed and as JSON."""
    from rich.progress import Progress

    from .evaluation.detection import evaluate_pipeline, load_gold
    from .pipelines import pipeline

    docs = load_gold(args.data, text_field=args.text_field, limit=args.limit)
    pipe = pipeline(
        "deid-substitution",
        model=args.model,
        detector=args.detector.split(","),
        strategy=args.strategy,
        policy=args.policy,
    )
    fit = getattr(pipe.detector, "fit", None)
    if args.fit_corpus and fit is not None:  # the identifier policy's vocabulary from the whole gold corpus
        fit([d.text for d in docs])
    with Progress(console=console) as bar:
        task = bar.add_task("evaluating", total=len(docs))
        report = evaluate_pipeline(
            pipe, docs, seed=args.seed, progress=lambda done, total: bar.update(task, completed=done)
        )
    table = Table(title=f"detection on {args.data} ({len(docs)} documents, detector {args.detector})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in (
        "token_precision",
        "token_recall",
        "token_f1",
        "entities_fully_protected",
        "entities_partially_protected",
        "leakage",
    ):
        value = report[key]
        table.add_row(key, "-" if value is None else f"{value:.3f}")
    for label, value in report["per_type_recall"].items():
        table.add_row(f"recall {label}", f"{value:.3f}")
    console.print(table)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"data": str(args.data), "detector": args.detector, "strategy": args.strategy, **report},
                indent=2,
            )
        )
        console.print(f"wrote {args.json}")


def _utility_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-root",
        default=None,
        help="folder holding the evaluation data (default: $DEID_HF_DATA or ../shared/data)",
    )
    parser.add_argument("--strategies", default="redact,typed,full_entity")
    parser.add_argument(
        "--detectors", default="gold,default", help="gold spans (p = 1 setting) and/or detectors"
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--train-size", type=int, default=800, help="subsample the training split")
    parser.add_argument("--test-size", type=int, default=300, help="subsample the test split")
    parser.add_argument("--max-steps", type=int, default=50, help="optimizer steps per run")
    parser.add_argument("--batch-size", type=int, default=16)


def _utility_runs(args, datasets: list[str], detectors_for: dict[str, list[str]]):
    from .evaluation.report import load_setup, utility_rows
    from .evaluation.utility import TrainConfig
    from .paths import data_root
    from .pipelines import pipeline

    config = TrainConfig(max_steps=args.max_steps, batch_size=args.batch_size)
    seeds = list(range(args.seeds))

    def make_pipe(strategy, detector):
        return pipeline(
            "deid-substitution",
            model="smollm2-135m",
            strategy=strategy,
            detector=detector if not isinstance(detector, str) else detector.split("+"),
        )

    rows, setups = [], {}
    for name in datasets:
        setups[name] = load_setup(name, data_root(args.data_root), args.train_size, args.test_size)
        rows += utility_rows(
            setups[name],
            make_pipe,
            args.strategies.split(","),
            detectors_for[name],
            seeds,
            config,
            progress=lambda msg: console.print(f"[dim]{msg}[/dim]"),
        )
    return rows, setups, make_pipe, config


def cmd_evaluate_utility(args: argparse.Namespace) -> None:
    """Downstream utility: train on de-identified data, test on original data, beside the original model."""
    rows, *_ = _utility_runs(args, [args.dataset], {args.dataset: args.detectors.split(",")})
    table = Table(title="downstream utility (mean ± std over seeds)")
    for column in ("data", "strategy", "detector", "privacy", "score"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["data"], r["strategy"], r["detector"], r["privacy"], f"{r['mean']:.3f} ± {r['std']:.3f}"
        )
    console.print(table)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


def cmd_evaluate_report(args: argparse.Namespace) -> None:
    """One command: detection table, utility tables (SNIPS intent, BTC NER), trade-off plot over p."""
    from .corpora import PRESIDIO_FILE, PRESIDIO_HELD_OUT
    from .evaluation.detection import evaluate_pipeline, load_gold
    from .evaluation.report import screenshot, utility_rows, write_report
    from .paths import data_root
    from .pipelines import pipeline
    from .replace.word_by_word import WordByWord

    held = PRESIDIO_HELD_OUT  # the default's learned model trains on records of PRESIDIO_TUNING
    docs = load_gold(data_root(args.data_root) / PRESIDIO_FILE)[held.start : held.stop]
    docs = docs[: args.detection_limit]
    console.print(
        f"[dim]detection on {len(docs)} held-out presidio_synth_pii records "
        f"({held.start}-{held.stop - 1})[/dim]"
    )
    detection = evaluate_pipeline(pipeline("deid-substitution", strategy="full_entity"), docs)
    detectors = args.detectors.split(",")
    rows, setups, make_pipe, config = _utility_runs(
        args, ["snips", "btc"], {"snips": detectors, "btc": ["gold"]}
    )
    # the trade-off curve uses word-by-word value dissociation: pi = word frequencies of the training
    # split's gold entities, so every private word has pi > 0 and epsilon stays finite for p < 1
    # (Adelani et al. Fig. 1)
    snips = setups["snips"]
    strategy = WordByWord(pool="dissociation").fit(
        (span.label, word)
        for ex in snips.train
        for span in ex.spans
        for word in ex.text[span.start : span.end].split()
    )
    curve = []
    for p in (0.25, 0.5, 0.75, 1.0):
        curve += utility_rows(
            snips,
            lambda _, detector: make_pipe(strategy, detector),
            ["word_by_word"],
            ["gold"],
            [0],
            config,
            p=p,
            with_original=False,
            progress=lambda msg: console.print(f"[dim]{msg}[/dim]"),
        )
    out = Path(args.out)
    write_report(out, detection, rows, curve)
    console.print(f"wrote {out / 'report.md'}, {out / 'report.html'}, {out / 'tradeoff.png'}")
    if args.screenshot:
        console.print(f"wrote {screenshot(out / 'report.html', out / 'report.png')}")


def cmd_export(args: argparse.Namespace) -> None:
    """Export a model (offline name, path or Hub id) to ONNX with Optimum, optionally int8 / optimised."""
    from .export.onnx import export

    folder = export(args.model, args.output, args.kind, int8=args.int8, optimize=args.optimize)
    console.print(
        f"exported {args.model} ({args.kind}) to {folder}"
        f"{' with model_quantized.onnx (int8)' if args.int8 else ''}; model card: {folder / 'README.md'}"
    )


def cmd_train_paraphraser(args: argparse.Namespace) -> None:
    """Fine-tune a causal LM to paraphrase ("source => paraphrase"), with accelerate; resumable."""
    from .paths import data_root
    from .train.paraphraser import ParaphraserConfig, default_pairs, read_pairs, train_paraphraser

    config = ParaphraserConfig(
        model=args.model,
        pairs=Path(args.pairs).name if args.pairs else "default",
        **_config_values(args, ParaphraserConfig),
    )
    pairs = read_pairs(args.pairs) if args.pairs else default_pairs(data_root(args.data_root))
    console.print(f"[dim]{len(pairs)} paraphrase pairs[/dim]")
    metrics = train_paraphraser(pairs, args.output, config, resume=args.resume, stop_after=args.stop_after)
    if not metrics["completed"]:
        console.print(
            f"stopped after step {metrics['steps']} of {metrics['total_steps']}; continue with --resume"
        )
        return
    console.print(
        f"wrote {args.output}: held-out loss {metrics['eval_loss_before']:.3f} -> "
        f"{metrics['eval_loss']:.3f} after {metrics['steps']} steps; model card {args.output}/README.md"
    )


def cmd_train_detector(args: argparse.Namespace) -> None:
    """Fine-tune an encoder as a token classifier over the label schema (BIO), with accelerate; resumable.
    Writes the checkpoint, tokenizer, ONNX fp32 + int8 and a model card with held-out metrics."""
    from .corpora import read_documents
    from .paths import data_root
    from .train.detector import DetectorConfig, default_documents, train_detector

    values = _config_values(args, DetectorConfig)
    if args.documents:  # silver texts join the default data only
        values["silver_per_source"] = 0
    config = DetectorConfig(
        model=args.model,
        held_out_fold=None if args.held_out_fold < 0 else args.held_out_fold,
        sealed_fold=None if args.sealed_fold < 0 else args.sealed_fold,
        data=Path(args.documents).name if args.documents else "default",
        **{**values, "max_windows": values["max_windows"] or None},
    )
    if args.documents:
        documents, held_out = read_documents(args.documents), {}
    else:
        documents, held_out = default_documents(data_root(args.data_root), config)
    console.print(
        f"[dim]{len(documents)} training documents; held out: {', '.join(held_out) or 'none'}[/dim]"
    )
    metrics = train_detector(
        documents,
        args.output,
        config,
        held_out=held_out,
        resume=args.resume,
        stop_after=args.stop_after,
        export_onnx=not args.no_onnx,
        write_stopped=args.write_stopped,
    )
    if not metrics["completed"] and not args.write_stopped:
        console.print(
            f"stopped after step {metrics['steps']} of {metrics['total_steps']}; continue with --resume"
        )
        return
    console.print(
        f"wrote {args.output}: held-out loss {metrics['eval_loss_before']:.3f} -> {metrics['eval_loss']:.3f} "
        f"after {metrics['steps']} steps"
    )
    for name, result in metrics["held_out"].items():
        r = result["all"]
        console.print(f"  {name}: token P {r['token_precision']:.3f} R {r['token_recall']:.3f}")


def _add_config_flags(parser: argparse.ArgumentParser, defaults) -> None:
    """The flags of a training config's `deid_hf.train.loop.flag` fields, with its defaults."""
    from .train.loop import config_flags

    for flag, field, parse, help in config_flags(type(defaults)):
        parser.add_argument(flag, dest=field, type=parse, default=getattr(defaults, field), help=help)


def _config_values(args: argparse.Namespace, config_class) -> dict:
    from .train.loop import config_flags

    return {field: getattr(args, field) for _, field, _, _ in config_flags(config_class)}


def _detectors(value: str) -> str:
    """argparse type of ``--detector``: comma-separated registered detector names."""
    from .detect import check_detector_name

    try:
        for part in value.split(","):
            check_detector_name(part)
    except DeidError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _strategy(value: str) -> str:
    """argparse type of ``--strategy``: a registered strategy a command line can run (else why not)."""
    from .replace import STRATEGIES, offered_strategies, unavailable

    if value not in STRATEGIES:
        raise argparse.ArgumentTypeError(
            f"unknown strategy {value!r}; choose one of {', '.join(offered_strategies())}"
        )
    reason = unavailable(value)
    if reason:
        raise argparse.ArgumentTypeError(reason)
    return value


def build_parser() -> argparse.ArgumentParser:
    from .detect import DETECTORS
    from .replace import offered_strategies
    from .train.detector import DetectorConfig
    from .train.paraphraser import ParaphraserConfig

    detector_help = "comma-separated: " + "; ".join(f"{e.usage}: {e.help}" for e in DETECTORS.values())

    parser = argparse.ArgumentParser(prog="deid-hf", description="De-identify free text with HF models.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help=cmd_demo.__doc__)
    demo.add_argument("--seed", type=int, default=0, help="seed for reproducible replacements")
    demo.set_defaults(func=cmd_demo)
    run = sub.add_parser("run", help=cmd_run.__doc__)
    run.add_argument("input")
    run.add_argument("output", help="output file: .jsonl, .csv or .parquet")
    run.add_argument("--text-field", default="text")
    run.add_argument(
        "--group-field",
        default=None,
        help="field naming each record's group (e.g. patient): a group's records share one date offset and "
        "one pseudonym per person (keyed with --key-env's key when set, else the seed)",
    )
    run.add_argument("--split", default="train", help="split of a saved DatasetDict")
    run.add_argument(
        "--fit-corpus",
        action="store_true",
        help="fit the identifier policy's corpus vocabulary on the input (more precision, less privacy: a "
        "name recurring across many records then needs other evidence); default: the model's vocabulary, "
        "so each record's output is what one call on it gives",
    )
    run.add_argument(
        "--config",
        default=None,
        help="YAML/JSON configuration (docs/guides/configuration.md); flags override it",
    )
    run.add_argument(
        "--strategy",
        default=None,
        type=_strategy,
        metavar="STRATEGY",
        help=f"one operator for every label: {', '.join(offered_strategies())} (default full_entity); per "
        "label: --operator or --config",
    )
    run.add_argument(
        "--operator",
        action="append",
        default=[],
        metavar="LABEL=OPERATOR",
        help="operator of one label, over --strategy and --config (repeatable): DATE_TIME=date_shift, "
        "ID=mask:keep_last=4, default=typed",
    )
    run.add_argument("--pool", default=None, help="word_by_word pool: distortion or dissociation")
    run.add_argument(
        "--detector",
        default=None,
        type=_detectors,
        help=detector_help + " (default: default; pfilter with --strategy zsts)",
    )
    run.add_argument(
        "--policy",
        default=None,
        choices=["hipaa", "strict"],
        help="identifier policy (default hipaa: names, places, dates, contact details, ID numbers; not "
        "measurements or times of day); strict: every span any detector finds",
    )
    run.add_argument("--model", default=None, help="LM of the pipeline (default smollm2-135m)")
    run.add_argument("--p", type=float, default=None, help="probability that a detected item is replaced")
    run.add_argument("--seed", type=int, default=None, help="reproducible run (default: secure randomness)")
    run.add_argument("--batch-size", type=int, default=32)
    run.add_argument("--shared-table", action="store_true", help="one substitution table for the corpus")
    run.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="ray: Ray Data actors (RAY_ADDRESS: cluster)",
    )
    run.add_argument("--num-workers", type=int, default=2, help="ray engine: actors, one pipeline each")
    run.add_argument("--gpus-per-worker", type=float, default=0.0, help="ray engine: GPUs per actor")
    run.add_argument(
        "--restart", action="store_true", help="discard a partial output of another run instead of refusing"
    )
    run.add_argument(
        "--mapping-out",
        default=None,
        help="write the restore mapping here, encrypted with the key (for deid-hf reidentify --mapping)",
    )
    run.add_argument(
        "--key-env", default="DEID_HF_KEY", help="environment variable holding the key (deid-hf keygen)"
    )
    run.set_defaults(func=cmd_run)
    serve = sub.add_parser("serve", help=cmd_serve.__doc__)
    from .serve.command import add_arguments as add_serve_arguments

    add_serve_arguments(serve)
    serve.set_defaults(func=cmd_serve)
    reidentify = sub.add_parser("reidentify", help=cmd_reidentify.__doc__)
    reidentify.add_argument("input", help="de-identified JSONL/CSV/Parquet (output of deid-hf run)")
    reidentify.add_argument("output")
    reidentify.add_argument("--text-field", default="text")
    reidentify.add_argument(
        "--mapping", default=None, help="encrypted mapping file of deid-hf run --mapping-out"
    )
    reidentify.add_argument("--key-env", default="DEID_HF_KEY", help="environment variable holding the key")
    reidentify.set_defaults(func=cmd_reidentify)
    audit = sub.add_parser("audit", help=cmd_audit.__doc__)
    from .audit.command import add_arguments as add_audit_arguments

    add_audit_arguments(audit)
    audit.set_defaults(func=cmd_audit)
    keygen = sub.add_parser("keygen", help=cmd_keygen.__doc__)
    keygen.set_defaults(func=cmd_keygen)
    evaluate = sub.add_parser("evaluate", help="detection metrics and downstream utility")
    evaluate_sub = evaluate.add_subparsers(dest="what", required=True)
    detection = evaluate_sub.add_parser("detection", help=cmd_evaluate_detection.__doc__)
    detection.add_argument("--data", required=True, help="gold JSON/JSONL (presidio_synth_pii schema works)")
    detection.add_argument("--text-field", default="full_text")
    detection.add_argument("--detector", default="default", type=_detectors, help=detector_help)
    detection.add_argument(
        "--policy",
        default="hipaa",
        choices=["hipaa", "strict"],
        help="identifier policy: hipaa (names, places, dates, contact details, ID numbers; not measurements "
        "or times of day) or strict (every span any detector finds)",
    )
    detection.add_argument(
        "--strategy",
        default="full_entity",
        type=_strategy,
        metavar="STRATEGY",
        help=f"replacement used for leakage: {', '.join(offered_strategies())}",
    )
    detection.add_argument("--model", default="smollm2-135m")
    detection.add_argument("--limit", type=int, default=None)
    detection.add_argument(
        "--fit-corpus",
        action="store_true",
        help="fit the identifier policy's corpus vocabulary on the gold texts first (as `run --fit-corpus`)",
    )
    detection.add_argument("--seed", type=int, default=0)
    detection.add_argument("--json", default=None, help="write the metrics as JSON here")
    detection.set_defaults(func=cmd_evaluate_detection)
    utility = evaluate_sub.add_parser("utility", help=cmd_evaluate_utility.__doc__)
    utility.add_argument("--dataset", default="snips", help="snips, btc or wnut17")
    _utility_arguments(utility)
    utility.add_argument("--json", default=None)
    utility.set_defaults(func=cmd_evaluate_utility)
    report = evaluate_sub.add_parser("report", help=cmd_evaluate_report.__doc__)
    _utility_arguments(report)
    report.add_argument(
        "--detection-limit", type=int, default=None, help="held-out presidio records 750-1499 (default: all)"
    )
    report.add_argument("--out", default="report")
    report.add_argument(
        "--screenshot", action="store_true", help="render report.html to report.png (Chromium)"
    )
    report.set_defaults(func=cmd_evaluate_report)
    export_cmd = sub.add_parser("export", help=cmd_export.__doc__)
    export_cmd.add_argument("model", help="offline name (smollm2-135m, minilm), local path or Hub id")
    export_cmd.add_argument("output")
    export_cmd.add_argument(
        "--kind", required=True, help="fill-mask, causal-lm, token-classification or feature-extraction"
    )
    export_cmd.add_argument("--int8", action="store_true", help="also write int8 dynamic quantization")
    export_cmd.add_argument("--optimize", default=None, help="ORTOptimizer level O1, O2 or O3")
    export_cmd.set_defaults(func=cmd_export)
    train = sub.add_parser("train-paraphraser", help=cmd_train_paraphraser.__doc__)
    train.add_argument(
        "output", help="folder for the fine-tuned checkpoint (checkpoints/ inside while training)"
    )
    train.add_argument(
        "--model", default="smollm2-135m", help="causal LM to fine-tune (offline name or path)"
    )
    train.add_argument(
        "--pairs", default=None, help='JSONL of {"source", "paraphrase"} (default: STS-B + SNLI)'
    )
    train.add_argument("--data-root", default=None, help="folder with stsbenchmark/ and snli_partial/")
    _add_config_flags(train, ParaphraserConfig())
    train.add_argument("--resume", action="store_true", help="continue from the newest checkpoint")
    train.add_argument(
        "--stop-after", type=int, default=None, help="stop (with a checkpoint) after this step"
    )
    train.set_defaults(func=cmd_train_paraphraser)
    detector = sub.add_parser("train-detector", help=cmd_train_detector.__doc__)
    detector.add_argument("output", help="folder for the model (checkpoints/ inside while training)")
    detector.add_argument("--model", default="minilm", help="encoder to fine-tune (offline name or path)")
    detector.add_argument(
        "--documents",
        default=None,
        help='JSONL of {"text", "spans": [{"start", "end", "label"}], "group"} (default: presidio_synth_pii '
        "0-749 + PhysioNet dev notes)",
    )
    detector.add_argument(
        "--data-root", default=None, help="folder with presidio_synth_pii/ and physionet_deid_dev/"
    )
    detector_defaults = DetectorConfig()
    _add_config_flags(detector, detector_defaults)
    detector.add_argument(
        "--held-out-fold",
        type=int,
        default=-1 if detector_defaults.held_out_fold is None else detector_defaults.held_out_fold,
        help="patient fold of the dev notes left out and measured (-1, the default: train on all patients, "
        "as the shipped model)",
    )
    detector.add_argument(
        "--sealed-fold",
        type=int,
        default=-1,
        help="patient fold of the dev notes neither trained on nor measured, for tuning runs that keep the "
        "sealed fold unread (deid_hf.corpora.SEALED_FOLD; -1, the default: none)",
    )
    detector.add_argument("--no-onnx", action="store_true", help="skip the ONNX export")
    detector.add_argument(
        "--write-stopped",
        action="store_true",
        help="also write the model when the run stops at --stop-after (with --resume at the newest "
        "checkpoint's step: write that checkpoint as the model, e.g. when time runs out)",
    )
    detector.add_argument("--resume", action="store_true", help="continue from the newest checkpoint")
    detector.add_argument(
        "--stop-after", type=int, default=None, help="stop (with a checkpoint) after this step"
    )
    detector.set_defaults(func=cmd_train_detector)
    models_cmd = sub.add_parser("models", help=cmd_models.__doc__)
    models_cmd.add_argument("--rebuild", action="store_true", help="reconvert cached models")
    models_cmd.add_argument(
        "--build",
        action="store_true",
        help="build every cached model that is not ready (incl. the ~20 min paraphraser)",
    )
    models_cmd.add_argument("--json", default=None, help="also write the rows as JSON here")
    models_cmd.set_defaults(func=cmd_models)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except DeidError as exc:
        print(f"deid-hf: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
