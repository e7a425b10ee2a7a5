"""NER detectors: spaCy pipelines and any HF token-classification model, mapped to the common labels.

Label mapping (docs/concepts/detectors.md): PERSON/PER -> PERSON; ORG -> ORG; GPE/LOC/FAC -> LOCATION;
DATE/TIME -> DATE_TIME; CARDINAL -> NUMBER; NORP/MISC -> OTHER. Other spaCy labels (MONEY, PERCENT,
ORDINAL, QUANTITY, EVENT, WORK_OF_ART, LAW, LANGUAGE, PRODUCT) are not personal data and are dropped, and
so are CARDINALs written without digits ("five").
A token-classification label already in the schema is kept; any other is mapped to OTHER.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import operator
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..spans import LABELS, Span
from .base import Detector

if TYPE_CHECKING:
    import numpy as np

NER_LABELS = {
    "PERSON": "PERSON",
    "PER": "PERSON",
    "ORG": "ORG",
    "ORGANIZATION": "ORG",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "LOCATION": "LOCATION",
    "FAC": "LOCATION",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
    "CARDINAL": "NUMBER",
    "NORP": "OTHER",
    "MISC": "OTHER",
}
#: spaCy gives no scores: fixed ones, low for generic numbers so structured pattern labels win merges
SPACY_SCORES = {"CARDINAL": 0.3, "DATE": 0.6, "TIME": 0.6}
#: on a GPU a batch's width is rounded up to a multiple of this many tokens: fewer distinct input shapes, each
#: of which the GPU prepares its kernels for once (in half precision that preparation outweighs the padding)
GPU_WIDTH_MULTIPLE = 32
#: windows per batch on a CUDA device when none is given: larger batches keep a GPU busy
#: (docs/benchmarks/speed.md#gpu)
GPU_BATCH_SIZE = 128
#: score of spaCy's other entities (names, organisations, places): where a token classifier types the same
#: words with more confidence, its label wins the merge (the learned model types them better; docs/benchmarks)
SPACY_NAME_SCORE = 0.5
SPACY_DROPPED = {
    "MONEY",
    "PERCENT",
    "ORDINAL",
    "QUANTITY",
    "EVENT",
    "WORK_OF_ART",
    "LAW",
    "LANGUAGE",
    "PRODUCT",
}


#: texts longer than this are parsed in pieces (spaCy refuses texts over ``nlp.max_length``, 1,000,000 by
#: default, and its memory grows with the text)
SPACY_CHUNK = 50_000


def chunk_bounds(text: str, size: int = SPACY_CHUNK) -> list[tuple[int, int]]:
    """[start, end) pieces of at most ``size`` characters covering ``text``, cut after the last newline of
    the piece's second half, else after its last whitespace, else (one very long token) at ``size``."""
    bounds, start = [], 0
    while len(text) - start > size:
        end = start + size
        cut = text.rfind("\n", start + size // 2, end)
        if cut < 0:
            cut = max(text.rfind(" ", start + size // 2, end), text.rfind("\t", start + size // 2, end))
        end = cut + 1 if cut >= 0 else end
        bounds.append((start, end))
        start = end
    return [*bounds, (start, len(text))]


#: components entity recognition does not need (the tagger, parser and lemmatizer of spaCy's trained pipelines
#: cost about as much again as the rest); any other (an entity ruler, a transformer it reads) still runs
NOT_FOR_NER = ("tagger", "morphologizer", "parser", "senter", "attribute_ruler", "lemmatizer")


def unused_components(nlp, skip: Sequence[str]) -> list[str]:
    """``nlp``'s components named in ``skip``, and each shared embedding layer (a ``tok2vec`` or
    ``transformer``) whose listeners are all skipped: in spaCy's trained pipelines the tagger and parser
    listen to the shared ``tok2vec`` while the entity recognizer embeds tokens itself, so without them that
    layer's output is read by nothing."""
    disable = [c for c in nlp.pipe_names if c in skip]
    for name, component in nlp.pipeline:
        listeners = getattr(component, "listening_components", None)
        if listeners and all(c in disable or c not in nlp.pipe_names for c in listeners):
            disable.append(name)
    return disable


@functools.lru_cache(maxsize=2)
def parse(nlp, texts: tuple[str, ...], skip: tuple[str, ...] = ()) -> list:
    """spaCy docs of ``texts`` by ``nlp`` without its components named in ``skip`` (`unused_components`:
    nor an embedding layer only they read); the last two batches are
    kept, so detectors of one ensemble sharing ``nlp`` parse each text once per ``skip`` (spaCy NER and the
    p-filter's proper nouns: twice, a small cost beside the p-filter's LM). A long text is parsed in
    `chunk_bounds` pieces joined by ``Doc.from_docs`` (same text, so token and entity offsets are the
    original's)."""
    from spacy.tokens import Doc

    pieces = [[text[a:b] for a, b in chunk_bounds(text)] for text in texts]
    disable = unused_components(nlp, skip)
    docs = iter(nlp.pipe([piece for parts in pieces for piece in parts], batch_size=64, disable=disable))
    parsed = []
    for parts in pieces:
        chunk_docs = [next(docs) for _ in parts]
        parsed.append(
            chunk_docs[0] if len(parts) == 1 else Doc.from_docs(chunk_docs, ensure_whitespace=False)
        )
    return parsed


def map_ner_label(label: str) -> str:
    label = label.upper().removeprefix("B-").removeprefix("I-")
    return NER_LABELS.get(label, label if label in LABELS else "OTHER")


class SpacyDetector(Detector):
    """spaCy NER entities mapped to the label schema; ``labels``: only these (None: every mapped label)."""

    name = "spacy"

    def __init__(self, nlp="spacy-sm", labels: Sequence[str] | None = None):
        from ..errors import InputError
        from ..models import load_spacy

        unknown = sorted(set(labels or ()) - set(LABELS))
        if unknown:
            raise InputError(
                f"unknown spacy label(s) {', '.join(map(repr, unknown))}; expected among {', '.join(LABELS)}"
            )
        self.nlp = load_spacy(nlp) if isinstance(nlp, str) else nlp
        self.labels = frozenset(labels) if labels else None

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        found = [
            [
                Span(
                    ent.start_char,
                    ent.end_char,
                    map_ner_label(ent.label_),
                    SPACY_SCORES.get(ent.label_, SPACY_NAME_SCORE),
                    self.name,
                )
                for ent in doc.ents
                if ent.label_ not in SPACY_DROPPED
                and ent.text.strip()
                and (ent.label_ != "CARDINAL" or any(ch.isdigit() for ch in ent.text))
            ]
            for doc in parse(self.nlp, tuple(texts), NOT_FOR_NER)
        ]
        if self.labels is None:
            return found
        return [[s for s in spans if s.label in self.labels] for spans in found]


#: the lower operating point at which a trained model's reading vouches for another detector's person name or
#: organisation (`TokenClassificationDetector.detect_with_support`, the rules ``name.needs-model-support``
#: and ``organisation.needs-model-support``)
SUPPORT_THRESHOLD = 0.001


def outside_bias_of(threshold) -> float:
    """The "O" logit bias of a ``threshold`` in (0, 1): a token is an entity when its best entity label
    ``e`` has ``p(e) / (p(e) + p(O)) >= threshold`` (0.5: the plain argmax; lower: more recall)."""
    from ..errors import InputError

    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold < 1:
        raise InputError(f"threshold must be a number in (0, 1), got {threshold!r}")
    return math.log((1 - threshold) / threshold)


@contextlib.contextmanager
def quiet_device_message() -> Iterator[None]:
    """transformers' "Device set to use ..." warning left out while a pipeline is built on this thread
    (other threads' messages and the logger's level are left alone)."""
    _install_quiet_filter()
    previous = getattr(_QUIET, "active", False)
    _QUIET.active = True
    try:
        yield
    finally:
        _QUIET.active = previous


#: whether this thread is building an inner pipeline (`quiet_device_message`)
_QUIET = threading.local()


class _QuietFilter(logging.Filter):
    """Drops the pipeline logger's records below ERROR on a thread inside `quiet_device_message`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR or not getattr(_QUIET, "active", False)


@functools.cache
def _install_quiet_filter() -> None:
    logging.getLogger("transformers.pipelines.base").addFilter(_QuietFilter())


@functools.lru_cache(maxsize=1)
def outside_biased_pipeline():
    """transformers' token-classification pipeline with ``outside_bias`` subtracted from the "O" logit
    before the argmax: a token becomes an entity when its best label's log-odds against "O" exceed
    -``outside_bias`` (0: the plain argmax; larger: more recall, less precision)."""
    from transformers import TokenClassificationPipeline

    class OutsideBiasedPipeline(TokenClassificationPipeline):
        outside_bias: float = 0.0
        outside_index: int | None = None

        def _forward(self, model_inputs):
            out = super()._forward(model_inputs)
            if self.outside_bias and self.outside_index is not None:
                logits = out["logits"].clone()
                logits[..., self.outside_index] -= self.outside_bias
                out["logits"] = logits
            return out

    return OutsideBiasedPipeline


def _checked_stride(stride, tokenizer) -> int | None:
    """``stride`` (tokens shared by consecutive windows) as an int; an `InputError` unless it is a
    non-negative whole number shorter than the window's room for text (the tokenizer would fail deep
    inside)."""
    from ..errors import InputError

    if stride is None:
        return None
    if isinstance(stride, bool) or not hasattr(type(stride), "__index__") or operator.index(stride) < 0:
        raise InputError(f"stride must be a non-negative whole number of tokens, got {stride!r}")
    stride = operator.index(stride)
    length = getattr(tokenizer, "model_max_length", None)
    if stride and isinstance(length, int) and 0 < length < int(1e20):
        room = length - tokenizer.num_special_tokens_to_add(pair=False)
        if stride >= room:
            raise InputError(
                f"stride {stride} must be shorter than the model's window of {room} text tokens "
                f"({length} with its special tokens)"
            )
    return stride


class TokenClassificationDetector(Detector):
    """Any HF token-classification model, decoded as the transformers pipeline does (``aggregation_strategy``;
    "simple" with a fast tokenizer runs `detect.windows`' batch path, anything else the pipeline itself).

    ``backend``: "pt" (PyTorch; "pytorch" is accepted too) or "onnx", which runs the model's ONNX export
    (``model.onnx``, or ``model_quantized.onnx`` with ``int8=True``, `deid_hf.export.onnx`) on ONNX Runtime
    (``provider`` cpu / cuda / tensorrt) through Optimum's ``ORTModelForTokenClassification`` in the same
    pipeline. Long texts are cut into overlapping
    windows (``stride``; default: the window the model was trained with, ``config.deid_hf_window``).
    ``threshold`` is the operating point (`outside_bias_of`; default: the folder's ``deid_hf_threshold``,
    else 0.5). Batches are formed from texts of similar length (less padding); results keep the input order.
    ``batch_size`` None: 1 with ``int8`` (the int8 graph's dynamic quantization scales a batch's activations
    together, so a window's result would depend on the texts batched with it), `GPU_BATCH_SIZE` on a CUDA
    device, else 16. On a CUDA device the next batch runs while the last one is decoded, and batch widths
    are rounded up to `GPU_WIDTH_MULTIPLE` tokens.
    ``support_threshold``: a second, lower operating point read from the same logits
    (`detect_with_support`; None: none).
    """

    name = "token-classification"

    def __init__(
        self,
        model,
        tokenizer=None,
        aggregation_strategy: str = "simple",
        batch_size: int | None = None,
        min_score: float = 0.0,
        device=None,
        *,
        backend: str = "pt",
        int8: bool = False,
        provider: str = "cpu",
        stride: int | None = None,
        threshold: float | None = None,
        support_threshold: float | None = SUPPORT_THRESHOLD,
    ):
        from transformers import pipeline

        from ..lm import check_backend
        from ..models import MANIFEST, model_path, verified_folder

        backend = check_backend(backend)
        model = model_path(model) if isinstance(model, str) else model
        folder = Path(model) if isinstance(model, str) else None
        if folder is not None and (folder / MANIFEST).is_file():
            verified_folder(folder)
        #: the corpus vocabulary of the model's training data (`detect.policy.shipped_vocabulary`)
        self.vocabulary = _training_vocabulary(folder)
        model, tokenizer = _load_model(
            model, tokenizer, backend=backend, int8=int8, provider=provider, device=device
        )
        config = getattr(model, "config", None)
        window = getattr(config, "deid_hf_window", None) or {}
        options = {}
        stride = window.get("stride") if stride is None else stride
        if aggregation_strategy != "none":  # without aggregation the pipeline reads no stride
            stride = _checked_stride(stride, tokenizer)
        if stride and aggregation_strategy != "none":
            options["stride"] = stride
        if threshold is None:  # a trained folder's operating point, else the plain argmax
            threshold = getattr(config, "deid_hf_threshold", 0.5)
        outside_bias = outside_bias_of(threshold)
        with quiet_device_message():  # an inner pipeline: the user's own pipeline says where it runs
            self.pipe = pipeline(
                "token-classification",
                model=model,
                tokenizer=tokenizer,
                aggregation_strategy=aggregation_strategy,
                # an ONNX Runtime model stays on its provider's device (None: transformers picks a GPU)
                device=device if backend == "pt" else -1,
                pipeline_class=outside_biased_pipeline(),
                **options,
            )
        self.pipe.outside_bias = outside_bias
        #: on the CPU the forward pass (ONNX Runtime or PyTorch) runs without the GIL: an ensemble runs it
        #: beside spaCy (`side_by_side`); on a GPU it stays on the caller's thread (Optimum's IO binding)
        self.releases_gil = provider == "cpu" and self.pipe.device.type == "cpu"
        self.threshold = float(threshold)
        self.pipe.outside_index = (getattr(config, "label2id", None) or {}).get("O")
        #: the support threshold's extra "O" bias over the operating point's; None without one, without an
        #: "O" label, or at or above the operating point (it would vouch for nothing the model does not find)
        self.support_bias = (
            outside_bias_of(support_threshold) - outside_bias
            if support_threshold is not None
            and support_threshold < threshold
            and self.pipe.outside_index is not None
            else None
        )
        self.batch_size = _batch_size(batch_size, int8, on_gpu=self.pipe.device.type == "cuda")
        #: with the "simple" aggregation and a fast tokenizer padding on the right, `detect.windows`' batch
        #: path runs (the pipeline's results without its per-window Python and its padding of a text's
        #: windows to the longest: int8 scores move a little); otherwise the pipeline
        self.stride = options.get("stride")
        self.direct = (
            aggregation_strategy == "simple"
            and getattr(self.pipe.tokenizer, "is_fast", False)
            and getattr(self.pipe.tokenizer, "padding_side", "right") == "right"
            and self.pipe.tokenizer.pad_token_id is not None
            and getattr(config, "id2label", None) is not None
        )
        if self.direct:
            from .windows import LabelTable

            self.label_table = LabelTable.of(config.id2label)
        self.min_score = min_score
        #: the identifier policy its gold labels follow (a deid-hf trained folder records it): an identifier
        #: policy of that name keeps its spans as they are instead of filtering them (`detect.policy`)
        self.trained_policy = getattr(config, "deid_hf_policy", None)

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        return self._detect(texts, support=False)[0]

    def detect_with_support(self, texts: Sequence[str]) -> tuple[list[list[Span]], list[list[Span] | None]]:
        """(spans, support) of each text: the spans of `detect_batch` and those found at the support
        threshold, from the same forward pass (any label: the support says the model sees something there).
        Support is None where it cannot be read: without a support threshold (or one not below the
        operating point), without an "O" label, off the batch path (the transformers pipeline decodes one
        operating point), and for a text the model's windows do not reach the end of (no stride)."""
        return self._detect(texts, support=self.direct and self.support_bias is not None)

    def _detect(self, texts: Sequence[str], support: bool):
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        outputs, supports = [None] * len(texts), [None] * len(texts)
        in_order = [texts[i] for i in order]
        if not texts:
            found, found_support = [], []
        elif self.direct:
            found, found_support = self.entities_and_support(in_order, support)
        else:
            found, found_support = self.pipeline_entities(in_order), [None] * len(in_order)
        for i, result, extra in zip(order, found, found_support):
            outputs[i], supports[i] = result, extra
        spans = [self._spans(text, found, self.min_score) for text, found in zip(texts, outputs)]
        return spans, [
            None if extra is None else self._spans(t, extra, 0.0) for t, extra in zip(texts, supports)
        ]

    def _spans(self, text: str, found: list[tuple], min_score: float) -> list[Span]:
        """``found`` as spans of at least ``min_score`` (the support's scores are of lowered logits: none
        is applied to them)."""
        return [
            Span(start, end, map_ner_label(label), float(score), self.name)
            for start, end, label, score in found
            if score >= min_score and any(ch.isalnum() for ch in text[start:end])  # not "." alone
        ]

    def pipeline_entities(self, texts: Sequence[str]) -> list[list[tuple]]:
        """(start, end, label, score) of each text's entities by the transformers pipeline."""
        return [
            [
                (int(e["start"]), int(e["end"]), e.get("entity_group") or e["entity"], e["score"])
                for e in found
            ]
            for found in self.pipe(list(texts), batch_size=self.batch_size)
        ]

    def entities(self, texts: Sequence[str]) -> list[list[tuple]]:
        """(start, end, label, score) of each text's entities by `detect.windows`' batch path: consecutive
        windows form the batches, as in the pipeline (``texts`` come sorted by length)."""
        return self.entities_and_support(texts, support=False)[0]

    def entities_and_support(self, texts: Sequence[str], support: bool = True) -> tuple[list, list]:
        """The `entities` of each text and, with ``support``, those at the support threshold from the same
        logits (else None per text)."""
        windows = self.tokenise(texts)
        per_text: list[list[list]] = [[] for _ in texts]
        per_text_support: list[list[list]] = [[] for _ in texts]
        batches = [
            windows[first : first + self.batch_size] for first in range(0, len(windows), self.batch_size)
        ]
        started = self.start_forward(batches[0], support) if batches else None
        for at, batch in enumerate(batches):
            current = started
            # on a GPU the next batch runs while this one is decoded on the CPU
            started = self.start_forward(batches[at + 1], support) if at + 1 < len(batches) else None
            labelled = self.finish_forward(current)
            for row, window in enumerate(batch):
                tokens = len(window.ids)
                scores, labels = (part[row, :tokens] for part in labelled[:2])
                per_text[window.text].append(self.decode(scores, labels, window))
                if support:
                    scores, labels = (part[row, :tokens] for part in labelled[2:])
                    per_text_support[window.text].append(self.decode(scores, labels, window))
        found = [_merged(parts) for parts in per_text]
        if not support:
            return found, [None] * len(texts)
        reached = [0] * len(texts)  # the last character each text's windows read (truncated without a stride)
        for window in windows:
            ends = [end for (_, end), special in zip(window.offsets, window.special) if not special]
            reached[window.text] = max([reached[window.text], *ends])
        return found, [
            _merged(parts) if reached[i] >= len(texts[i].rstrip()) else None
            for i, parts in enumerate(per_text_support)
        ]

    def tokenise(self, texts: Sequence[str]) -> list:
        """Every window of ``texts`` (`detect.windows.tokenised_windows`)."""
        from .windows import tokenised_windows

        return tokenised_windows(self.pipe.tokenizer, texts, self.stride)

    def forward(self, batch, support: bool = False) -> list[np.ndarray]:
        """[scores, labels] of a batch of windows (batch x tokens each: each token's best label and its
        softmax score, `detect.windows.token_labels`), then, with ``support``, the same at the support
        threshold. Computed as the pipeline does: torch inputs on its device, no gradients, the "O" logit
        lowered by the outside bias in the model's dtype, the softmax in float32."""
        return self.finish_forward(self.start_forward(batch, support))

    def start_forward(self, batch, support: bool = False) -> tuple:
        """`forward` started. On a CUDA device the softmax is taken there, and its results are copied into
        pinned CPU memory without waiting (`finish_forward` waits), so that the CPU can decode the previous
        batch meanwhile."""
        import torch

        from .windows import batch_inputs, token_labels

        device = self.pipe.device
        multiple = GPU_WIDTH_MULTIPLE if device.type == "cuda" else 1
        inputs = batch_inputs(batch, self.pipe.tokenizer.pad_token_id, multiple)
        with torch.no_grad():
            output = self.pipe.model(**{k: torch.from_numpy(v).to(device) for k, v in inputs.items()})
            logits = output["logits"] if isinstance(output, dict) else output[0]
            if self.pipe.outside_bias and self.pipe.outside_index is not None:
                logits = logits.clone()
                logits[..., self.pipe.outside_index] -= self.pipe.outside_bias
            logits = logits.to(torch.float32)
            if logits.device.type != "cuda":
                logits = logits.cpu().numpy()
                parts = token_labels(logits)
                if support:
                    logits[..., self.pipe.outside_index] -= self.support_bias
                    parts += token_labels(logits)
                return parts, None
            parts = list(logits.softmax(-1).max(-1))
            if support:
                logits[..., self.pipe.outside_index] -= self.support_bias
                parts += logits.softmax(-1).max(-1)
            host = [torch.empty(part.shape, dtype=part.dtype, pin_memory=True) for part in parts]
            for target, part in zip(host, parts):
                target.copy_(part, non_blocking=True)
            copied = torch.cuda.Event()
            # on the stream of the logits' GPU, which ran the copies (not the thread's current GPU)
            copied.record(torch.cuda.current_stream(logits.device))
            return host, copied

    @staticmethod
    def finish_forward(started: tuple) -> list[np.ndarray]:
        """The results of `start_forward`, once copied."""
        parts, copied = started
        if copied is None:
            return parts
        copied.synchronize()
        return [part.numpy() for part in parts]

    def decode(self, scores: np.ndarray, labels: np.ndarray, window) -> list[tuple]:
        """Entity groups of one window (`detect.windows.window_entities`)."""
        from .windows import window_entities

        return window_entities(scores, labels, window, self.label_table)


def _merged(parts: list[list[tuple]]) -> list[tuple]:
    """A text's entities from those of its windows (`detect.windows.merged_windows`)."""
    from .windows import merged_windows

    return merged_windows([e for w in parts for e in w]) if len(parts) > 1 else parts[0]


def _training_vocabulary(folder: Path | None):
    """The corpus vocabulary a trained folder ships (`lexicon.VOCABULARY_FILE`), else None."""
    from .lexicon import VOCABULARY_FILE, Vocabulary

    if folder is None or not (folder / VOCABULARY_FILE).is_file():
        return None
    return Vocabulary.from_json((folder / VOCABULARY_FILE).read_text(encoding="utf-8"))


def _load_model(model, tokenizer, *, backend: str, int8: bool, provider: str, device=None):
    """(model, tokenizer) for the pipeline: the ONNX export on ONNX Runtime, or a folder's PyTorch model
    loaded in fp32 (so that its config is read; on a device off the CPU the process's one copy there,
    `shared_weights`); a model object passes through."""
    from transformers import AutoTokenizer

    from ..errors import InputError

    if backend == "onnx":
        from ..export.onnx import shared_ort_model

        if not isinstance(model, str):
            raise InputError("backend='onnx' needs the path of an exported model folder")
        tokenizer = tokenizer or AutoTokenizer.from_pretrained(model)
        return shared_ort_model(str(Path(model).resolve()), "token-classification", int8, provider), tokenizer
    if int8:
        raise InputError("int8=True needs backend='onnx' (the int8 model is the ONNX export)")
    if isinstance(model, str):  # loaded here so that its config (window, policy, bias) is read
        from ..lm import off_the_cpu

        tokenizer = tokenizer or AutoTokenizer.from_pretrained(model)
        if off_the_cpu(device):
            return shared_weights(str(Path(model).resolve()), str(torch_device(device))), tokenizer
        model = _fp32_weights(model)
    return model, tokenizer


def _fp32_weights(folder: str):
    """A trained folder's token classifier in fp32 whatever the stored dtype (a shipped folder stores fp16
    and int8 linear weights)."""
    import torch
    from transformers import AutoModelForTokenClassification

    return AutoModelForTokenClassification.from_pretrained(folder, dtype=torch.float32)


@functools.lru_cache(maxsize=4)
def shared_weights(folder: str, device: str):
    """A folder's fp32 weights on ``device``, one copy per process and device (the learned detectors of a
    pipeline given a GPU, and that pipeline's own model, read the same one)."""
    return _fp32_weights(folder).to(device)


def torch_device(device):
    """``device`` as a ``torch.device`` (an index is a CUDA GPU's, as `lm.off_the_cpu` reads it)."""
    import torch

    return torch.device("cuda", device) if isinstance(device, int) else torch.device(device)


def _batch_size(batch_size: int | None, int8: bool, on_gpu: bool = False) -> int:
    """``batch_size`` checked; None: 1 for the int8 graph (see `TokenClassificationDetector`), else
    `GPU_BATCH_SIZE` on a CUDA device and 16 elsewhere."""
    from ..errors import InputError

    if batch_size is not None and (
        isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
    ):
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
    return batch_size or (1 if int8 else GPU_BATCH_SIZE if on_gpu else 16)
