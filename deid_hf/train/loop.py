"""The trainers' configs: fields declared with `flag` are also command-line flags (`config_flags`), and a
config's fields are its recipe (`recipe_digest`). The loop the trainers run is `deid_hf.training_loop`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import MISSING, asdict, field, fields


def flag(default, *, name: str | None = None, help: str | None = None, parse=None, neutral=MISSING):
    """A config field that is also a command-line flag (``--field-name`` unless ``name``): its type is
    ``parse`` or the default's; ``neutral`` as in `recipe_digest`."""
    metadata = {"flag": name or "", "help": help, "parse": parse}
    if neutral is not MISSING:
        metadata["neutral"] = neutral
    return field(default=default, metadata=metadata)


def config_flags(config_class) -> list[tuple[str, str, Callable, str | None]]:
    """(flag, field, parse, help) of every `flag` field of a config dataclass, in field order."""
    found = []
    for f in fields(config_class):
        if "flag" not in f.metadata:
            continue
        name = f.metadata["flag"] or "--" + f.name.replace("_", "-")
        found.append((name, f.name, f.metadata["parse"] or type(f.default), f.metadata["help"]))
    return found


def recipe_fields(config) -> dict:
    """A training config's fields, less those added later at their ``neutral`` value (`flag`): what a
    recipe is, so that the recipes made before such a field keep their digest."""
    values = asdict(config)
    for f in fields(config):
        if "neutral" in f.metadata and values[f.name] == f.metadata["neutral"]:
            del values[f.name]
    return values


def config_of_record(config_class, saved: dict):
    """The training config a record's ``config`` (`recipe_fields`) was made from: fields left out at their
    ``neutral`` value get it back (not the class default, which may have changed since)."""
    neutral = {f.name: f.metadata["neutral"] for f in fields(config_class) if "neutral" in f.metadata}
    return config_class(**{**{k: v for k, v in neutral.items() if k not in saved}, **saved})


def recipe_digest(config) -> str:
    """A short digest of a training config's `recipe_fields` (sorted JSON): the recipe a model was built
    from."""
    return hashlib.sha256(json.dumps(recipe_fields(config), sort_keys=True).encode()).hexdigest()[:16]
