import os
import signal
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_data(relative: str) -> Path:
    """Path of an evaluation data set; skips the test (with the reason) where the clone lacks it."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"evaluation data {path} is absent (it ships beside the repo, not in it)")
    return path


@pytest.fixture(scope="session")
def smollm2():
    from deid_hf.models import load_causal_lm

    return load_causal_lm("smollm2-135m")


@pytest.fixture(scope="session")
def minilm_tokenizer():
    from deid_hf.models import load_tokenizer

    return load_tokenizer("minilm")


def _tiny_bert_config(tokenizer, **config):
    """A small BERT config on a real WordPiece tokenizer; ``config`` overrides."""
    from transformers import BertConfig

    options = {
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "max_position_embeddings": 64,
        **config,
    }
    return BertConfig(vocab_size=tokenizer.vocab_size, **options)


def tiny_bert(tokenizer, **config):
    """A randomly initialised BERT masked LM on a real WordPiece tokenizer (seeded)."""
    import torch
    from transformers import BertForMaskedLM

    torch.manual_seed(0)
    return BertForMaskedLM(_tiny_bert_config(tokenizer, **config)).eval()


def tiny_llama(tokenizer, **config):
    """A randomly initialised Llama causal LM on the SmolLM2 tokenizer (seeded)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    options = {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "max_position_embeddings": 64,
        "pad_token_id": tokenizer.pad_token_id,
        **config,
    }
    return LlamaForCausalLM(LlamaConfig(vocab_size=len(tokenizer), **options)).eval()


@pytest.fixture(scope="session", name="tiny_bert")
def tiny_bert_fixture(minilm_tokenizer):
    return tiny_bert(minilm_tokenizer), minilm_tokenizer


@pytest.fixture(scope="session", name="tiny_llama")
def tiny_llama_fixture(smollm2):
    _, tokenizer = smollm2
    return tiny_llama(tokenizer), tokenizer


def _labelled(i: int):
    from deid_hf.corpora import LabelledDocument

    names = ("Maria Gonzalez", "Ivan Petrov", "Ana Lima", "Tom Okafor")
    places = ("Lisbon", "Boston", "Nairobi")
    name, place = names[i % len(names)], places[i % len(places)]
    text = f"Patient {name} was seen on 12/0{i % 9 + 1}/2020 in {place}, stable."
    spans = (
        (text.index(name), text.index(name) + len(name), "PERSON"),
        (text.index("12/"), text.index("12/") + 10, "DATE_TIME"),
        (text.index(place), text.index(place) + len(place), "LOCATION"),
    )
    return LabelledDocument(text, spans, f"patient-{i % 6}", "test", ("Name", "Date", "Location"))


#: labelled documents and a config for training tiny token classifiers in seconds
DOCS = [_labelled(i) for i in range(24)]


def _tiny_config():
    from deid_hf.train.detector import DetectorConfig

    return DetectorConfig(
        epochs=2,
        batch_size=4,
        learning_rate=5e-3,
        max_length=16,
        stride=4,
        eval_fraction=0.2,
        eval_every=3,
        save_every=3,
        seed=3,
        max_windows=None,
        negative_windows=0.5,  # the tiny model's behaviour stays fixed when the shipped recipe moves
        threshold=0.5,
        layers=None,  # the tiny model is passed in: the recipe's layers cut only the base encoder
    )


CONFIG = _tiny_config()


def tiny_token_classifier(tokenizer, labels=None, **config):
    """A randomly initialised BERT token classifier (seeded) over ``labels`` (default: the BIO schema) on a
    real WordPiece tokenizer; ``config`` overrides the small BERT config."""
    import torch
    from transformers import BertForTokenClassification

    from deid_hf.spans import BIO_LABELS

    labels = list(labels or BIO_LABELS)
    torch.manual_seed(0)
    bert = _tiny_bert_config(
        tokenizer,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={label: i for i, label in enumerate(labels)},
        **config,
    )
    return BertForTokenClassification(bert)


@pytest.fixture(scope="session")
def registered_learned():
    """The registry's own "learned" entry (the shipped ``deid-detector-minilm``)."""
    from deid_hf.detect import DETECTORS

    return DETECTORS["learned"]


@pytest.fixture(scope="session", autouse=True)
def tiny_learned_detector(tmp_path_factory, registered_learned, minilm_tokenizer):
    """Detector "learned" (and so "default" and "clinical") reads, for this session, a tiny token classifier
    that the real trainer fits on `DOCS` and exports to ONNX int8 in seconds: the tests of the code around the
    model do not change with each shipped model version. The shipped model is tested on its own
    (tests/test_shipped_models.py, the README and docs snippets) with `registered_learned`."""
    from deid_hf.detect import DETECTORS, learned_detector, register_detector
    from deid_hf.train.detector import train_detector

    out = tmp_path_factory.mktemp("learned") / "tiny-detector"
    train_detector(
        DOCS,
        out,
        CONFIG,
        model=tiny_token_classifier(minilm_tokenizer),
        tokenizer=minilm_tokenizer,
        progress=False,
    )
    register_detector(
        "learned",
        learned_detector(str(out)),
        help=registered_learned.help,
        argument=registered_learned.argument,
        on_device=registered_learned.on_device,
    )
    yield out
    DETECTORS["learned"] = registered_learned


@pytest.fixture
def hang_guard():
    """Fails a test that has not finished after HANG_SECONDS: a hang (a super-linear pattern on a long
    input), not a timing bound (the work guarded takes well under a second)."""

    def hang(*_):
        raise TimeoutError(f"did not finish in {HANG_SECONDS} s: super-linear on a long input")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


#: far above the guarded work's cost on a slow CI machine, far below a super-linear run's
HANG_SECONDS = 120
