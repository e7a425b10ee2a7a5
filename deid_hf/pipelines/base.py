"""Shared behaviour of the deid pipelines: options that persist through ``save_pretrained``.

A pipeline's construction options (detector, strategy, ...) are written to ``config.deid_hf`` by
``save_pretrained``, next to ``custom_pipelines`` and the copied pipeline module, so that
``transformers.pipeline(task, model=dir, trust_remote_code=True)`` rebuilds the same pipeline (the copied
module imports the installed ``deid_hf``). ``push_to_hub`` (transformers' PushToHubMixin) uploads that
same folder. Pipeline modules use absolute imports: transformers copies them as standalone files.
"""

from __future__ import annotations

from pathlib import Path

from deid_hf.errors import InputError


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
    seed = kwargs.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InputError(f"seed must be an integer, got {seed!r}")
    return [{name: kwargs[name] for name in stage if name in kwargs} for stage in stages]


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


class SavableOptionsMixin:
    #: the task name this pipeline is registered under
    task_name: str
    #: construction options and their defaults
    DEFAULTS: dict

    def __init__(self, model, *args, **kwargs):
        given = {k: kwargs.pop(k) for k in self.DEFAULTS if k in kwargs}
        #: defaults, then what a saved pipeline stored, then what the caller gave
        self.options = {**self.DEFAULTS, **saved_options(model), **given}
        super().__init__(model, *args, **kwargs)

    def save_pretrained(self, save_directory, **kwargs):
        from deid_hf.detect.pfilter import lm_kind
        from deid_hf.export.cards import write_card

        self.model.config.deid_hf = {k: _json_option(k, v) for k, v in self.options.items()}
        super().save_pretrained(save_directory, **kwargs)
        base = getattr(self.model.config, "_name_or_path", "") or type(self.model).__name__
        write_card(
            Path(save_directory),
            kind="fill-mask" if lm_kind(self.model) == "masked" else "causal-lm",
            base_model=base,
            license="other",
            text={
                "title": f"{self.task_name} pipeline for deid-hf",
                "summary": f"A saved deid-hf `{self.task_name}` pipeline on `{base}`; load it with "
                f"`transformers.pipeline(model=<this folder>, trust_remote_code=True)`.",
                "usage": f'pipe = transformers.pipeline(model="{save_directory}", trust_remote_code=True)',
                "privacy": f"Options {self.model.config.deid_hf}. " + getattr(self, "privacy_summary", ""),
            },
        )
