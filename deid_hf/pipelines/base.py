"""Shared behaviour of the deid pipelines: options that persist through ``save_pretrained``.

A pipeline's construction options (detector, strategy, ...) are written to ``config.deid_hf`` by
``save_pretrained``, next to ``custom_pipelines`` and the copied pipeline module, so that
``transformers.pipeline(task, model=dir, trust_remote_code=True)`` rebuilds the same pipeline (the copied
module imports the installed ``deid_hf``). ``push_to_hub`` (transformers' PushToHubMixin) uploads that
same folder. Pipeline modules use absolute imports: transformers copies them as standalone files.
"""

from __future__ import annotations

import json
from pathlib import Path

from deid_hf.errors import DeidError, InputError, each_alone_on_failure, first_line
from deid_hf.text import model_text

#: per-item error handling of a batch call (``errors=``): "report" puts the error in that item's output,
#: "raise" raises it for the whole call. A single (non-list) input always raises.
ERRORS = ("report", "raise")


def given_options(task: str, kwargs: dict, *stages: tuple[str, ...]) -> list[dict]:
    """The options actually passed, split per stage (preprocess, forward, postprocess).

    transformers merges a call's sanitized options over those given when the pipeline was built, so a
    stage dict must hold only what was passed (defaults live in the stage method's signature); otherwise a
    call would silently reset, e.g., ``p`` set at construction. Unknown names are an error; ``seed`` is
    checked here for every pipeline.
    """
    unknown = set(kwargs) - {name for stage in stages for name in stage}
    if unknown:
        raise InputError(f"unknown option(s) for {task}: {', '.join(sorted(unknown))}")
    if kwargs.get("errors", "report") not in ERRORS:
        raise InputError(f"errors must be 'report' or 'raise', got {kwargs['errors']!r}")
    seed = kwargs.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InputError(f"seed must be an integer, got {seed!r}")
    return [{name: kwargs[name] for name in stage if name in kwargs} for stage in stages]


def check_text(text) -> str:
    if not isinstance(text, str):
        raise InputError(f"expected a string to de-identify, got {type(text).__name__}")
    if not model_text(text).strip():
        raise InputError("cannot de-identify an empty text")
    return text


def checked_input(text, errors: str = "report", **extra) -> dict:
    """Model inputs of one item: ``text`` normalised for the models (`deid_hf.text.model_text`, same
    offsets), ``original`` as given, ``error`` (None, or the message of a bad item under
    ``errors="report"``)."""
    try:
        original = check_text(text)
    except InputError as exc:
        if errors == "raise":
            raise
        return {"text": "", "original": "", "error": str(exc), "errors": errors, **extra}
    return {"text": model_text(original), "original": original, "error": None, "errors": errors, **extra}


def items_of(model_inputs: dict) -> list[dict]:
    """The items of a (collated) batch of `checked_input` dicts, or the one item of a single call."""
    if isinstance(model_inputs["text"], str):
        return [model_inputs]
    keys = list(model_inputs)
    return [dict(zip(keys, values)) for values in zip(*(model_inputs[k] for k in keys))]


def error_message(exc: Exception) -> str:
    if isinstance(exc, DeidError):
        return str(exc)
    return f"{type(exc).__name__}: {first_line(exc)}"


def run_items(items: list[dict], process) -> list[dict]:
    """``process(good_items) -> results`` on the items without an error; a failure of the whole batch is
    retried item by item under ``errors="report"`` (`each_alone_on_failure`) so that one bad item never takes
    the others down. Bad items get ``{"error": message}``."""
    good = [item for item in items if item["error"] is None]
    if not good:
        results = []
    elif any(item["errors"] == "raise" for item in good):
        results = process(good)
    else:
        results = [
            {"error": error_message(r)} if isinstance(r, Exception) else r
            for r in each_alone_on_failure(process, good)
        ]
    found = dict(zip(map(id, good), results))
    return [found[id(item)] if item["error"] is None else {"error": item["error"]} for item in items]


def is_batch(inputs) -> bool:
    """What transformers treats as several inputs: a list, tuple, generator, dataset or other iterable."""
    if isinstance(inputs, (str, dict, bytes)):
        return False
    return hasattr(inputs, "__iter__") or (hasattr(inputs, "__getitem__") and hasattr(inputs, "__len__"))


def saved_options(model) -> dict:
    """Options stored by a previous ``save_pretrained`` (empty for a plain model)."""
    return dict(getattr(getattr(model, "config", None), "deid_hf", None) or {})


def _is_json(value) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def _has_function(value) -> bool:
    if isinstance(value, dict):
        return any(_has_function(v) for v in value.values())
    return callable(value) and not isinstance(value, type) and not hasattr(value, "detect_batch")


def _json_option(name: str, value):
    if _is_json(value):
        return list(value) if isinstance(value, tuple) else value
    if _has_function(value):
        raise InputError(
            f"option {name} holds a Python function (a custom operator), which cannot be saved: "
            f"use a named operator to save this pipeline"
        )
    raise InputError(
        f"option {name}={value!r} cannot be saved: pass it by name (a string) to save this pipeline"
    )


def language_model_classes() -> tuple:
    """The model classes of every ``deid-*`` task's language model (a saved pipeline records these)."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    return (AutoModelForMaskedLM, AutoModelForCausalLM)


class SavableOptionsMixin:
    #: the task name this pipeline is registered under
    task_name: str
    #: construction options and their defaults
    DEFAULTS: dict
    #: the Hub task of a saved pipeline's card: it finds and replaces spans (the paraphraser overrides it)
    hub_pipeline_tag: str = "token-classification"

    def __init__(self, model, *args, **kwargs):
        from deid_hf.lm import checked_device

        if kwargs.get("device") is not None:  # transformers.pipeline's path too: an InputError, not its own
            kwargs["device"] = checked_device(kwargs["device"])
        given = {k: kwargs.pop(k) for k in self.DEFAULTS if k in kwargs}
        #: defaults, then what a saved pipeline stored, then what the caller gave
        self.options = {**self.DEFAULTS, **saved_options(model), **given}
        super().__init__(model, *args, **kwargs)

    def __call__(self, inputs, *args, **kwargs):
        """``errors="report"`` (default) or ``"raise"``: what a bad item of a batch does (`ERRORS`)."""
        if not is_batch(inputs):
            kwargs["errors"] = "raise"
        return super().__call__(inputs, *args, **kwargs)

    def language_model(self) -> tuple:
        """(model, tokenizer) when the pipeline's model is a language model, else (None, None): a
        ``deid-substitution`` that needs none runs on the shipped detector's graph."""
        from deid_hf.lm import is_language_model

        return (self.model, self.tokenizer) if is_language_model(self.model) else (None, None)

    def saved_model(self) -> tuple:
        """(model, tokenizer, model classes) of a saved folder whose pipeline holds no language model: the
        default LM (`deid-substitution` saves the shipped detector where its options need no LM)."""
        from deid_hf.models import load_causal_lm

        return (*load_causal_lm(), language_model_classes())

    def save_pretrained(self, save_directory, **kwargs):
        """A Hub repo that ``transformers.pipeline(model=folder, trust_remote_code=True)`` reloads: the
        options in the config of the pipeline's language model, else of `saved_model`'s."""
        from deid_hf.lm import is_language_model

        if is_language_model(self.model):
            return self._save_with_model(save_directory, language_model_classes(), **kwargs)
        own = self.model, self.tokenizer
        self.model, self.tokenizer, classes = self.saved_model()
        try:
            return self._save_with_model(save_directory, classes, **kwargs)
        finally:
            self.model, self.tokenizer = own

    def _save_with_model(self, save_directory, classes: tuple, **kwargs):
        from deid_hf.export.cards import display_name, write_card
        from deid_hf.lm import is_language_model, lm_kind
        from deid_hf.models import LEARNED_MODEL

        self.model.config.deid_hf = options = {k: _json_option(k, v) for k, v in self.options.items()}
        registered = getattr(self, "_registered_impl", None) or {}
        # the saved folder reloads with the classes of the model it holds, and names no default
        self._registered_impl = {
            task: {**{k: v for k, v in impl.items() if k != "default"}, "pt": classes}
            for task, impl in registered.items()
        }
        super().save_pretrained(save_directory, **kwargs)
        if is_language_model(self.model):
            base = getattr(self.model.config, "_name_or_path", "") or type(self.model).__name__
            kind = "fill-mask" if lm_kind(self.model) == "masked" else "causal-lm"
            held, model_name = f"`{display_name(base)}`", None
        else:  # the shipped detector (`saved_model`)
            base, kind = LEARNED_MODEL, "token-classification"
            held = f"the shipped detector `{LEARNED_MODEL}` (its options need no language model)"
            model_name = f"{LEARNED_MODEL} ({kind})"
        write_card(
            Path(save_directory),
            kind=kind,
            base_model=base,
            model_name=model_name,
            pipeline_tag=self.hub_pipeline_tag,
            text={
                "title": f"{self.task_name} pipeline for deid-hf",
                "summary": f"A saved deid-hf `{self.task_name}` pipeline on {held}; load it "
                f"with `transformers.pipeline(model=<this folder>, trust_remote_code=True)`.",
                "usage": 'pipe = transformers.pipeline(model="<this folder>", trust_remote_code=True)',
                "privacy": card_options(options) + getattr(self, "privacy_summary", ""),
            },
        )


def card_options(options: dict) -> str:
    """The options as a saved pipeline's card states them: the deny and allow lists and the patterns as
    counts (`config.reportable_configuration`), and where those terms are (config.json, in full)."""
    from deid_hf.config import TERM_OPTIONS, reportable_configuration

    shown = f"Options {json.dumps(reportable_configuration(options), sort_keys=True)}. "
    terms = [name for name in TERM_OPTIONS if options.get(name)]
    if terms:
        shown += (
            f"config.json holds the terms of {', '.join(terms)} in full, as the pipeline reloads them from "
            "it: share this folder only with those allowed to read them. "
        )
    return shown
