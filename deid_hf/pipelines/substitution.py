"""`deid-substitution`: detect sensitive spans, replace them with a strategy under randomized response.

Output per text (JSON-serialisable): ``text`` (de-identified), ``spans`` (start, end, label, score,
source, replaced, replacement; offsets into the original), ``privacy`` (strategy, p, epsilon or why there
is none, per label, detector-recall caveat) and, with ``return_mapping=True`` only, ``mapping`` original ->
surrogate and ``restore`` ([start, end, surrogate, original] in the output text, for `reidentify`).
Detection and replacement see `deid_hf.text.model_text` (same offsets); ``text`` is the original with the
replaced spans substituted. A bad item of a batch gives ``{"text": None, "spans": [], "privacy": None,
"error": message}`` (``errors="raise"``: the call raises instead). Construction options are a
`deid_hf.config.PipelineConfig` (``pipe.config``; ``pipe.options`` as a dict); ``key=`` (never saved) keys
the hash and encrypt operators and `reidentify`. ``policy`` (`deid_hf.policies.Policy`): "hipaa" by
default, "strict" for ZSTS's own p-filter (`PipelineConfig.resolved_policy`).
An input ``{"text": ..., "group": "patient-17"}`` names the text's group: every document of one group gets
the same date offset and the same surrogate for each person, place, organisation and identifier, drawn from
HMAC(key, group) (`_group_seed`); ``shared_table=True`` instead gives the whole corpus one table.
``explain=True`` (a call option) adds ``explanation``: which named rule or stage kept or dropped each span
(`deid_hf.detect.rules.Decision`).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from typing import ClassVar

from transformers import Pipeline

from deid_hf.config import PIPELINE_DEFAULTS, PipelineConfig
from deid_hf.detect import get_detector
from deid_hf.detect import needs_language_model as detector_needs
from deid_hf.detect.rules import recording
from deid_hf.detect.stages import finish_detection
from deid_hf.detect.user_options import UserOptionsDetector
from deid_hf.errors import InputError
from deid_hf.pipelines.base import (
    SavableOptionsMixin,
    checked_input,
    given_options,
    items_of,
    run_items,
    saved_options,
)
from deid_hf.replace import get_strategy
from deid_hf.replace import needs_language_model as strategy_needs
from deid_hf.replace.apply import SubstitutionTable, apply_strategy
from deid_hf.replace.keys import resolve_key, subkey
from deid_hf.validate import check_probability

RECALL_CAVEAT = (
    "items the detector misses are never replaced: detector recall bounds the effective p, "
    "and the guarantee covers detected items only"
)


def document_rng(seed: int | None, text: str) -> random.Random:
    """Secure randomness by default; with a seed, a stream keyed by (seed, text) so that any order or
    resumption of a corpus run gives the same output."""
    if seed is None:
        return random.SystemRandom()
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return random.Random(f"{seed}:{digest}")


def substitute(original: str, records) -> str:
    """``original`` with each replaced record's span substituted by its replacement."""
    pieces, cursor = [], 0
    for r in sorted(records, key=lambda r: r.start):
        if r.replaced:
            pieces += [original[cursor : r.start], r.replacement]
            cursor = r.end
    return "".join(pieces) + original[cursor:]


def needs_language_model(options: dict) -> bool:
    """True when the ``deid-substitution`` options' detector or strategy scores or draws words with a
    language model (``zsts``, ``pfilter``; the ``zsts`` strategy)."""
    strategy = options.get("strategy") or PIPELINE_DEFAULTS["strategy"]
    return strategy_needs(strategy) or detector_needs(options.get("detector"))


def is_shipped_detector(model) -> bool:
    """Whether ``model`` is the shipped detector (its int8 graph or its weights: the task's default model),
    or the copy of its weights a saved pipeline holds (`shipped_detector_copy`: a token classifier whose
    config holds saved options)."""
    from pathlib import Path

    from deid_hf.lm import is_token_classifier
    from deid_hf.models import LEARNED_MODEL, model_path

    config = getattr(model, "config", None)
    if is_token_classifier(config) and saved_options(model):
        return True
    name = str(getattr(config, "_name_or_path", "") or "")
    return bool(name) and Path(name).resolve() == Path(model_path(LEARNED_MODEL)).resolve()


def shipped_detector_copy() -> tuple:
    """(model, tokenizer) of the shipped detector's weights, loaded afresh: the model a saved pipeline whose
    options need no language model holds (the copy its learned detectors share stays unchanged)."""
    from pathlib import Path

    from transformers import AutoModelForTokenClassification

    from deid_hf.models import LEARNED_MODEL, load_tokenizer, model_path, verified_folder

    folder = str(verified_folder(Path(model_path(LEARNED_MODEL))).resolve())
    return AutoModelForTokenClassification.from_pretrained(folder), load_tokenizer(folder)


def check_model_role(model) -> None:
    """An `InputError` for a token classifier other than the shipped detector as the pipeline's model: a
    model is the pipeline's language model, and a token classifier given there would be silently unused."""
    from deid_hf.lm import is_language_model, is_token_classifier

    config = getattr(model, "config", None)
    if is_language_model(model) or not is_token_classifier(config):
        return
    if not is_shipped_detector(model):
        name = str(getattr(config, "_name_or_path", "") or "") or "FOLDER"
        raise InputError(
            f"model={name} is a token classifier; a deid-substitution pipeline's model is its language "
            f"model. Run a token classifier as a detector: detector='token-classification:{name}'"
        )


class DeidSubstitutionPipeline(SavableOptionsMixin, Pipeline):
    task_name = "deid-substitution"
    DEFAULTS: ClassVar[dict] = PIPELINE_DEFAULTS

    def __init__(self, model, *args, key: str | bytes | None = None, **kwargs):
        if key is not None:  # a short key: one clear error now, not one per grouped or keyed item later
            resolve_key(key, None, "pipeline")
        self.key = key
        device_given = kwargs.get("device") is not None
        super().__init__(model, *args, **kwargs)
        check_model_role(self.model)
        if needs_language_model(self.options) and is_shipped_detector(self.model):
            from deid_hf.models import load_causal_lm

            # transformers.pipeline's default model is the shipped detector: the options need the default LM
            self.model, self.tokenizer = load_causal_lm()
            self.model.to(self.device)
        #: where the learned models run: the device the caller gave, else None (their own default)
        self.detector_device = self.device if device_given else None
        #: the checked options (`deid_hf.config.PipelineConfig`); ``options`` is the same as a dict
        self.config = config = PipelineConfig.from_dict(self.options)
        self.options = {key: getattr(config, key) for key in self.options}
        policy = config.resolved_policy()
        lm, lm_tokenizer = self.language_model()
        base = get_detector(
            config.resolved_detector(),
            lm,
            lm_tokenizer,
            config.scorer_options,
            policy=policy,
            device=self.detector_device,
        )
        self.detector = UserOptionsDetector(
            base,
            patterns=config.patterns or (),
            deny_list=config.deny_list,
            allow_list=config.allow_list or (),
            entities=config.entities,
            score_threshold=config.score_threshold,
        )
        self.strategy = get_strategy(
            config.strategy,
            lm,
            lm_tokenizer,
            key=key,
            policy=policy,
            **(config.strategy_options or {}),
        )
        self.table = SubstitutionTable() if config.shared_table else None
        self._session_secret = secrets.token_bytes(32)

    def saved_model(self) -> tuple:
        """What a saved folder holds where the pipeline's model is no language model: the default LM where
        the options need one (`needs_language_model`), else the shipped detector's weights."""
        from transformers import AutoModelForTokenClassification

        if needs_language_model(self.options):
            return super().saved_model()
        return (*shipped_detector_copy(), (AutoModelForTokenClassification,))

    def _group_seed(self, group: str, seed: int | None) -> str:
        """The seed of a group's draws (date offset, pseudonyms), shared by its documents: HMAC-SHA256
        keyed with the pipeline's ``key=`` (the same offsets in every run and process), else with the call's
        seed, else with a secret of this pipeline object (the same offsets within its lifetime only)."""
        if self.key is not None:
            secret = subkey(resolve_key(self.key, None, "group"), "group")
        elif seed is not None:
            secret = f"seed:{seed}".encode()
        else:
            secret = self._session_secret
        return hmac.new(secret, group.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()

    def reidentify(self, text: str, restore: list | None = None) -> str:
        """The original text back: with ``restore`` (an output's ``restore`` list, or a record's entry of an
        encrypted mapping file) every replaced unit exactly; without, every ``[ENC:...]`` envelope of the
        encrypt operator, decrypted with this pipeline's key (``key=`` or ``DEID_HF_KEY``)."""
        from deid_hf.reidentify import reidentify

        return reidentify(text, restore=restore, key=self.key)

    def _sanitize_parameters(self, **kwargs):
        pre, forward, post = given_options(
            self.task_name, kwargs, ("errors",), ("p", "seed", "explain"), ("return_mapping",)
        )
        if "p" in forward:
            forward["p"] = check_probability(1.0 if forward["p"] is None else forward["p"])
        return pre, forward, post

    def preprocess(self, inputs, errors="report"):
        group = None
        if isinstance(inputs, dict):  # {"text": ..., "group": ...}: a patient's notes share their surrogates
            inputs, group = inputs.get("text"), inputs.get("group")
            if group is not None and (isinstance(group, bool) or not isinstance(group, (str, int))):
                error = InputError(f"group must be a string or an integer, got {type(group).__name__}")
                if errors == "raise":
                    raise error
                return {"text": "", "original": "", "error": str(error), "errors": errors, "group": None}
        return checked_input(inputs, errors, group=None if group is None else str(group))

    def _forward(self, model_inputs, p=1.0, seed=None, explain=False):
        return {
            "result": run_items(
                items_of(model_inputs), lambda items: self._deidentify(items, p, seed, explain)
            )
        }

    def _detect(self, texts: list[str], explain: bool) -> tuple[list[list], list[list | None]]:
        """The spans to replace of each text (`stages.finish_detection` on the detector's) and, with
        ``explain``, the decisions that led to them (one text at a time: batching changes no output)."""
        if not explain:
            found = self.detector.detect_batch(texts)
            return [finish_detection(t, s, self.detector) for t, s in zip(texts, found)], [None] * len(texts)
        spans, decisions = [], []
        for text in texts:
            with recording() as log:
                spans.append(finish_detection(text, self.detector.detect_batch([text])[0], self.detector))
            decisions.append(log)
        return spans, decisions

    def _deidentify(self, items: list[dict], p: float, seed: int | None, explain: bool = False) -> list[dict]:
        texts = [item["text"] for item in items]
        results = []
        for item, text, spans, decisions in zip(items, texts, *self._detect(texts, explain)):
            original = item["original"]
            table = self.table if self.table is not None else SubstitutionTable()
            if self.table is None and item.get("group") is not None:
                table.state["group_seed"] = self._group_seed(item["group"], seed)
            rng = document_rng(seed, original)
            _, records = apply_strategy(text, spans, self.strategy, p, rng, table, original=original)
            private: dict[str, set[str]] = {}
            for r in records:
                private.setdefault(r.label, set()).add(original[r.start : r.end])
            privacy = self.strategy.privacy(p, private).with_(
                detector=self.detector.name, caveats=(RECALL_CAVEAT,)
            )
            mapping = {original[r.start : r.end]: r.replacement for r in records if r.replaced}
            results.append(
                {
                    "text": substitute(original, records),
                    "spans": [r.to_dict() for r in records],
                    "privacy": privacy.to_dict(),
                    "mapping": mapping,
                    "restore": restore_entries(original, records),
                }
            )
            if decisions is not None:  # which rule or stage kept or dropped each span (`rules.Decision`)
                results[-1]["explanation"] = [d.to_dict(original) for d in dict.fromkeys(decisions)]
        return results

    def postprocess(self, model_outputs, return_mapping=False):
        result = model_outputs["result"]
        result = result[0] if isinstance(result, list) else result
        if "error" in result:
            return {"text": None, "spans": [], "privacy": None, "error": result["error"]}
        if not return_mapping:
            result = {k: v for k, v in result.items() if k not in ("mapping", "restore")}
        return result


def restore_entries(text: str, records) -> list[list]:
    """[start, end, surrogate, original] of every replaced unit, with offsets into the de-identified text."""
    entries, shift = [], 0
    for r in sorted(records, key=lambda r: r.start):
        if r.replaced:
            start = r.start + shift
            entries.append([start, start + len(r.replacement), r.replacement, text[r.start : r.end]])
            shift += len(r.replacement) - (r.end - r.start)
    return entries
