"""What keeps a corpus run from mixing, losing or overwriting data: the run's fingerprint (what a partial
file may be resumed by), path clashes between inputs and outputs, and one run per output at a time."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
from collections.abc import Iterator
from pathlib import Path

from ._version import __version__
from .config import TERM_OPTIONS
from .corpus_files import FORMATS
from .errors import InputError


def _device_name(device) -> str | None:
    """The device type of a pipeline's learned models ("cuda"), None on their default (the CPU: a run
    given ``--device cpu`` resumes one given none)."""
    name = None if device is None else str(getattr(device, "type", device))
    return None if name == "cpu" else name


def run_fingerprint(
    pipe, input_path: Path, text_field: str, split: str | None, p: float, seed, group_field: str | None = None
) -> dict:
    """What must not change between a partial output and its resumption (an option given as an object,
    e.g. a `Detector` instance, counts by its type only)."""
    stat = input_path.stat()
    options = getattr(pipe, "options", {})
    key = getattr(pipe, "key", None)
    model = getattr(getattr(getattr(pipe, "model", None), "config", None), "_name_or_path", None)
    return json.loads(
        json.dumps(
            {
                "input": str(input_path.resolve()),
                "input_size": stat.st_size,
                "input_mtime_ns": stat.st_mtime_ns,
                "input_sha256": content_hash(input_path),
                # which key (a keyed digest, never the key) and whether restore lists are sealed: a resume
                # under another key or without them would mix keys or leave rows out of the mapping
                "key_id": key_id(key),
                "mapping": bool(getattr(pipe, "seals_mapping", False)),
                "text_field": text_field,
                "group_field": group_field,
                "split": split,
                "p": p,
                "seed": seed,
                "pipeline": {
                    "task": getattr(pipe, "task_name", None),
                    "model": model,
                    # the learned model's int8 graph (CPU) or its weights on a device bound a few spans apart
                    "detector_device": _device_name(getattr(pipe, "detector_device", None)),
                    **options,
                    **digested_options(options, key),
                },
                "version": __version__,
            },
            default=lambda value: f"<{type(value).__module__}.{type(value).__qualname__}>",
        )
    )


def digested_options(options: dict, key) -> dict:
    """The `config.TERM_OPTIONS` given, as digests (the partial output sits beside the output): HMAC-SHA256
    under the run's key, else scrypt (slow, so that guessing a term from its digest costs a costly
    derivation per guess)."""
    digests = {}
    for name in TERM_OPTIONS:
        if options.get(name) in (None, [], {}, ()):
            continue
        data = json.dumps(options[name], sort_keys=True, default=repr).encode("utf-8", "surrogatepass")
        if key is not None:
            from .replace.keys import resolve_key, subkey

            secret = subkey(resolve_key(key, None, "run"), "deid-hf run options")
            digests[name] = "hmac:" + hmac.new(secret, data, hashlib.sha256).hexdigest()
        else:
            digests[name] = "scrypt:" + hashlib.scrypt(data, salt=b"deid-hf run", n=2**14, r=8, p=1).hex()
    return digests


def same_file(a: Path, b: Path) -> bool:
    """``a`` and ``b`` name one file (also through symlinks and hard links)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def written_files(output: Path) -> dict[str, Path]:
    """What a run on ``output`` writes or deletes, by role."""
    return {
        "output": output,
        "partial output": output.with_name(output.name + ".partial.jsonl"),
        "report": output.with_name(output.name + ".report.json"),
        "temporary output": output.with_name(f".{output.name}.tmp"),
        "lock file": output.with_name(output.name + ".lock"),
    }


def check_clashes(inputs: dict[str, Path], outputs: dict[str, Path]) -> None:
    """InputError when a file to write (or delete) is one of the files read or another file written."""
    named = list(outputs.items())
    for n, (role, path) in enumerate(named):
        for other_role, other in [*inputs.items(), *named[:n]]:
            if same_file(path, other) or (other.is_dir() and path.resolve().is_relative_to(other.resolve())):
                raise InputError(f"the {role} {path} is the {other_role} {other}: choose another path")


def content_hash(path: Path) -> str:
    """SHA-256 of a file, or of a directory's files (names and contents, in name order)."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]:
        digest.update(str(file.relative_to(path)).encode() if path.is_dir() else b"")
        with open(file, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def key_id(key) -> str | None:
    """A digest naming the key without revealing it (None without a key)."""
    if key is None:
        return None
    from .replace.keys import resolve_key, subkey

    return subkey(resolve_key(key, None, "run"), "deid-hf run fingerprint", 16).hex()


def check_paths(input_path: Path, output: Path, mapping_out: Path | None = None) -> None:
    if output.suffix not in FORMATS:
        raise InputError(f"unsupported output {output.name}: use one of {', '.join(FORMATS)}")
    if not input_path.exists():
        raise InputError(f"input {input_path} does not exist")
    if output.is_dir():
        raise InputError(f"output {output} is a directory: name a file (e.g. {output / 'out.jsonl'})")
    outputs = written_files(output)
    if mapping_out is not None:
        if mapping_out.is_dir():
            raise InputError(
                f"mapping file {mapping_out} is a directory: name a file (e.g. {mapping_out / 'map.json'})"
            )
        outputs["mapping file"] = mapping_out
    check_clashes({"input": input_path}, outputs)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output directory {output.parent}: {exc.strerror}") from None
    if not os.access(output.parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write to the output directory {output.parent} (permission denied)")


@contextlib.contextmanager
def output_lock(output: Path) -> Iterator[None]:
    """Held while a run writes ``output`` (``OUTPUT.lock``, removed at the end): a second run on the same
    output is refused, never mixed. The lock is taken on a file that is still the one at that path (a run
    ending meanwhile removes it), so removing it is safe."""
    import fcntl

    path = output.with_name(output.name + ".lock")
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InputError(
                f"another run is writing {output} (it holds {path}): wait for it or choose another output"
            ) from None
        try:
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)  # removed by the run that held it: lock the new file
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)
