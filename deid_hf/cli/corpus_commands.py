"""`deid-hf run` (de-identify a corpus), `deid-hf reidentify` (restore it), `deid-hf keygen` (their key)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import DeidError, InputError
from ..policies import POLICIES
from .arguments import detector_help, detector_names, positive_int, strategy_name
from .console import console


def _run_options(args: argparse.Namespace) -> dict:
    """The pipeline options of `deid-hf run`: the --config file, then the flags given on the command line."""
    from ..config import load_config, validate
    from ..replace.per_label import with_operators

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


def _run_pipe(args: argparse.Namespace, options: dict, model: str):
    """The pipeline `deid-hf run` calls: a local one (sealing the mapping with --mapping-out) or Ray's."""
    import os

    from ..pipelines import pipeline
    from ..reidentify import SealedMappingPipe

    key = os.environ.get(args.key_env) or None
    if args.engine == "ray":
        from ..corpus_ray import RayEngine

        if args.mapping_out:
            raise InputError("--mapping-out needs the local engine (--engine local)")
        if args.device:
            raise InputError(
                "--device is the local engine's; the ray engine places its GPUs by --gpus-per-worker"
            )
        engine_options = {"model": model, **options}
        return RayEngine(
            engine_options, num_workers=args.num_workers, gpus_per_worker=args.gpus_per_worker, key=key
        )
    placed = {"device": args.device} if args.device else {}
    pipe = pipeline("deid-substitution", model=model, key=key, **placed, **options)
    return SealedMappingPipe(pipe, key_env=args.key_env) if args.mapping_out else pipe


def cmd_run(args: argparse.Namespace) -> int:
    """De-identify a corpus (JSONL, CSV, Parquet or a saved dataset) into OUTPUT, resumably."""
    import os

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from ..corpus import check_group_key, run_corpus

    options = _run_options(args)
    model, p, seed = options.pop("model", None), options.pop("p", 1.0), options.pop("seed", None)
    check_group_key(args.group_field, seed, os.environ.get(args.key_env) or None)  # before the models load
    if options.get("strategy") == "zsts" and not options.get("detector"):
        console.print(
            "note: --strategy zsts detects with its own p-filter (the ZSTS method), which finds fewer "
            "identifiers than the default detector; add --detector default to replace what it finds"
        )
    pipe = _run_pipe(args, options, model)
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
    if report["copied_fields"]:
        console.print(
            f"copied as they were, not de-identified: {', '.join(report['copied_fields'])} (only "
            f"{args.text_field!r} is; a field holding identifiers needs a run of its own with --text-field)"
        )
    for error in report["errors"][:20]:
        console.print(f"  record {error['index'] + 1}: {error['error']}")  # counted from 1, as lines are
    if report["records"] and not report["written"]:
        print("deid-hf: error: every record failed (see the errors above)", file=sys.stderr)
        return 1
    return 0


def _add_run_input_flags(run: argparse.ArgumentParser) -> None:
    """What `deid-hf run` reads and how it groups and fits on it."""
    run.add_argument("input")
    run.add_argument("output", help="output file: .jsonl, .csv or .parquet")
    run.add_argument("--text-field", default="text")
    run.add_argument(
        "--group-field",
        default=None,
        help="field naming each record's group (e.g. patient): a group's records share one date offset and "
        "one pseudonym per person (keyed with --key-env's key when set, else the seed)",
    )
    run.add_argument(
        "--split", default=None, help="split of a saved DatasetDict (needed when it has several)"
    )
    run.add_argument(
        "--fit-corpus",
        action="store_true",
        help="fit the identifier policy's corpus vocabulary on the input (more precision, less privacy: a "
        "name recurring across many records then needs other evidence); default: the model's vocabulary, "
        "so each record's output is what one call on it gives",
    )


def _add_run_pipeline_flags(run: argparse.ArgumentParser) -> None:
    """The pipeline options of `deid-hf run` (over its --config file)."""
    from ..replace import offered_strategies

    run.add_argument(
        "--config",
        default=None,
        help="YAML/JSON configuration (docs/guides/configuration.md); flags override it",
    )
    run.add_argument(
        "--strategy",
        default=None,
        type=strategy_name,
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
        type=detector_names,
        help=detector_help() + " (default: default; pfilter with --strategy zsts)",
    )
    run.add_argument(
        "--policy",
        default=None,
        choices=[str(p) for p in POLICIES],
        help="identifier policy (default hipaa: names, places, dates, contact details, ID numbers; not "
        "measurements or times of day); strict: every span any detector finds; gdpr: people in general "
        "text, with their quasi-identifiers (nationality, religion, occupation, amounts; not public bodies "
        "or laws)",
    )
    run.add_argument("--model", default=None, help="LM of the pipeline (default smollm2-135m)")
    run.add_argument("--p", type=float, default=None, help="probability that a detected item is replaced")
    run.add_argument("--seed", type=int, default=None, help="reproducible run (default: secure randomness)")


def _add_run_engine_flags(run: argparse.ArgumentParser) -> None:
    """How `deid-hf run` batches, where it runs, and what it keeps for re-identification."""
    run.add_argument("--batch-size", type=positive_int, default=32)
    run.add_argument("--shared-table", action="store_true", help="one substitution table for the corpus")
    run.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="ray: Ray Data actors (RAY_ADDRESS: cluster)",
    )
    run.add_argument(
        "--num-workers", type=positive_int, default=2, help="ray engine: actors, one pipeline each"
    )
    run.add_argument("--gpus-per-worker", type=float, default=0.0, help="ray engine: GPUs per actor")
    run.add_argument(
        "--device",
        default=None,
        help="local engine: where the learned model runs (e.g. cuda, cuda:1; default: its int8 graph on the "
        "CPU; docs/guides/gpu-onnx.md)",
    )
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


def add_run(sub) -> None:
    run = sub.add_parser("run", help=cmd_run.__doc__)
    _add_run_input_flags(run)
    _add_run_pipeline_flags(run)
    _add_run_engine_flags(run)
    run.set_defaults(func=cmd_run)


def _restored_records(args: argparse.Namespace) -> tuple[list[dict], int]:
    """The input's records with their text restored from the mapping file or the [ENC:...] envelopes, and
    how many held something to restore."""
    from ..corpus_files import read_records
    from ..reidentify import decrypt_envelopes, read_mapping, restore_entry

    records = read_records(args.input)
    mapping = read_mapping(args.mapping, key_env=args.key_env) if args.mapping else None
    if mapping is not None and (extra := sorted(set(mapping) - set(range(len(records))))):
        raise DeidError(f"the mapping file has entries for rows the input lacks (row {extra[0]}, ...)")
    restored, changed = [], 0
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
            text = restore_entry(text, mapping[row], row)
        else:
            text = decrypt_envelopes(text, key_env=args.key_env)
        changed += text != record[args.text_field] or (mapping is not None and bool(mapping[row].restore))
        restored.append({**record, args.text_field: text})
    return restored, changed


def cmd_reidentify(args: argparse.Namespace) -> None:
    """Restore the originals of a de-identified corpus: [ENC:...] envelopes, or an encrypted mapping file."""
    from ..corpus_files import write_records
    from ..corpus_guard import check_clashes

    output = Path(args.output)
    if output.suffix not in (".jsonl", ".csv", ".parquet"):
        raise DeidError(f"unsupported output {output.name}: use .jsonl, .csv or .parquet")
    read = {"input": Path(args.input), **({"mapping file": Path(args.mapping)} if args.mapping else {})}
    check_clashes(read, {"output": output, "temporary output": output.with_name(f".{output.name}.tmp")})
    restored, changed = _restored_records(args)
    if restored and not changed and not args.mapping:
        raise DeidError(
            "nothing to re-identify: no record holds an [ENC:...] envelope of the encrypt operator; a run's "
            "other operators are restored from its mapping file (--mapping FILE of deid-hf run --mapping-out)"
        )
    write_records(restored, output)
    kept = f" ({len(restored) - changed} held nothing to restore)" if changed < len(restored) else ""
    console.print(f"re-identified {changed} of {len(restored)} records into {output}{kept}")


def add_reidentify(sub) -> None:
    reidentify = sub.add_parser("reidentify", help=cmd_reidentify.__doc__)
    reidentify.add_argument("input", help="de-identified JSONL/CSV/Parquet (output of deid-hf run)")
    reidentify.add_argument("output")
    reidentify.add_argument("--text-field", default="text")
    reidentify.add_argument(
        "--mapping", default=None, help="encrypted mapping file of deid-hf run --mapping-out"
    )
    reidentify.add_argument("--key-env", default="DEID_HF_KEY", help="environment variable holding the key")
    reidentify.set_defaults(func=cmd_reidentify)


def cmd_keygen(args: argparse.Namespace) -> None:
    """Print a fresh random key for the hash and encrypt operators and mapping files (set DEID_HF_KEY)."""
    from ..replace.keys import generate_key

    print(generate_key())


def add_keygen(sub) -> None:
    keygen = sub.add_parser("keygen", help=cmd_keygen.__doc__)
    keygen.set_defaults(func=cmd_keygen)
