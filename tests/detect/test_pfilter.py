import math

import pytest
import torch
from transformers import BertConfig

import deid_hf
from deid_hf.detect.pfilter import (
    CausalWordScorer,
    MaskedWordScorer,
    PFilterDetector,
    make_scorer,
    split_words,
)
from deid_hf.errors import InputError
from deid_hf.lm import logits_only_at

from ..conftest import tiny_llama as make_tiny_llama

TEXT = "My name is Okafor, Daniel Okafor; I live in Springfield at 742 Evergreen Terrace."


@pytest.fixture(scope="module")
def tiny_llama(smollm2):
    _, tokenizer = smollm2
    return make_tiny_llama(tokenizer, max_position_embeddings=24), tokenizer


def test_split_words_keeps_punctuation_apart():
    text = "Hi, Dr. O'Neil-Smith: 555-0143!"
    words = [(text[s:e], w) for s, e, w in split_words(text)]
    assert words == [
        ("Hi", True),
        (",", False),
        ("Dr", True),
        (".", False),
        ("O'Neil-Smith", True),
        (":", False),
        ("555-0143", True),
        ("!", False),
    ]


def test_masked_word_probability_is_the_product_of_iterative_unmasking(tiny_bert):
    model, tok = tiny_bert
    scorer = MaskedWordScorer(model, tok, path="exact")
    words = scorer.score("Daniel Okafor lives here.")
    okafor = next(w for w in words if w.word == "Okafor")
    ids = tok("Daniel Okafor lives here.")["input_ids"]
    pieces = tok.convert_tokens_to_ids(tok.tokenize("Okafor"))
    first = ids.index(pieces[0])
    expected = 1.0
    for j in range(len(pieces)):
        masked = list(ids)
        for k in range(j, len(pieces)):
            masked[first + k] = tok.mask_token_id
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([masked])).logits[0, first + j]
        expected *= torch.softmax(logits, -1)[pieces[j]].item()
    assert len(pieces) > 1 and okafor.probability == pytest.approx(expected, rel=1e-4)
    assert all(w.probability == 1.0 and not w.scored for w in words if w.word == ".")


def test_exact_path_equals_naive(tiny_bert):
    model, tok = tiny_bert
    long_text = " ".join([TEXT] * 4)  # longer than the 64-position window: windows around each word
    naive = MaskedWordScorer(model, tok, path="naive").score_batch([TEXT, long_text])
    exact = MaskedWordScorer(model, tok, path="exact", batch_size=16).score_batch([TEXT, long_text])
    for a_doc, b_doc in zip(naive, exact):
        assert [w.word for w in a_doc] == [w.word for w in b_doc]
        assert max(abs(a.probability - b.probability) for a, b in zip(a_doc, b_doc)) < 1e-4


def test_output_layer_runs_only_on_the_read_positions(tiny_bert):
    model, tok = tiny_bert
    ids = torch.tensor([tok(TEXT)["input_ids"]] * 2)
    rows, cols = torch.tensor([0, 1, 1]), torch.tensor([2, 3, 5])
    with torch.no_grad():
        full = model(input_ids=ids).logits
        with logits_only_at(model, rows, cols):
            read = model(input_ids=ids).logits
    assert read.shape == (3, full.shape[-1]) and torch.allclose(read, full[rows, cols], atol=1e-5)
    assert model(input_ids=ids).logits.dim() == 3  # the hook is removed on exit


@pytest.mark.parametrize("architecture", ["roberta", "distilbert", "electra", "albert"])
def test_exact_equals_naive_for_other_fill_mask_heads(minilm_tokenizer, architecture):
    """The output-layer restriction works for the usual fill-mask heads, not only BERT's."""
    from transformers import AutoConfig, AutoModelForMaskedLM

    torch.manual_seed(0)
    sizes = {
        "roberta": {
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "intermediate_size": 64,
            "max_position_embeddings": 80,
        },
        "distilbert": {"dim": 32, "n_layers": 2, "n_heads": 2, "hidden_dim": 64},
        "electra": {
            "hidden_size": 32,
            "embedding_size": 16,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "intermediate_size": 64,
        },
        "albert": {
            "hidden_size": 32,
            "embedding_size": 16,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "intermediate_size": 64,
        },
    }[architecture]
    config = AutoConfig.for_model(architecture, vocab_size=minilm_tokenizer.vocab_size, **sizes)
    model = AutoModelForMaskedLM.from_config(config).eval()
    naive = MaskedWordScorer(model, minilm_tokenizer, path="naive").score(TEXT)
    exact = MaskedWordScorer(model, minilm_tokenizer, path="exact", batch_size=8).score(TEXT)
    assert max(abs(a.probability - b.probability) for a, b in zip(naive, exact)) < 1e-4
    assert any(w.scored and w.probability < 1 for w in exact)
    with torch.no_grad(), logits_only_at(model, torch.tensor([0]), torch.tensor([3])):
        assert model(input_ids=torch.tensor([minilm_tokenizer(TEXT)["input_ids"]])).logits.dim() == 2


def test_fast_path_prefilters_stop_words(tiny_bert):
    model, tok = tiny_bert
    words = MaskedWordScorer(model, tok, path="fast").score(" ".join([TEXT] * 3))
    assert all(not w.scored for w in words if w.word in ("is", "in", "at", "My"))  # "My" starts a sentence
    assert all(w.scored for w in words if w.word == "Okafor")


def test_causal_probability_is_the_product_over_sub_words(tiny_llama):
    model, tok = tiny_llama
    scorer = CausalWordScorer(model, tok)
    text = "Daniel Okafor"
    words = scorer.score(text)
    ids = tok(text)["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0], -1)
    per_token = [logp[i - 1, ids[i]].item() for i in range(1, len(ids))]
    assert math.prod(w.probability for w in words) == pytest.approx(math.exp(sum(per_token)), rel=1e-4)


def test_causal_long_documents_use_overlapping_windows(tiny_llama):
    model, tok = tiny_llama
    scorer = CausalWordScorer(model, tok, overlap=8)
    ids = tok(TEXT)["input_ids"]
    assert len(ids) > scorer.window
    windowed = scorer.token_logprobs(ids)
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([ids[: scorer.window]])).logits[0], -1)
    assert windowed[1 : scorer.window] == pytest.approx(
        [logp[i - 1, ids[i]].item() for i in range(1, scorer.window)], abs=1e-5
    )
    start = scorer.window - 8  # the second window: it fills the positions after its 8-token overlap
    second = ids[start : start + scorer.window]
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([second])).logits[0], -1)
    end = start + len(second)
    assert windowed[start + 8 : end] == pytest.approx(
        [logp[i - 1, second[i]].item() for i in range(8, len(second))], abs=1e-5
    )
    assert all(value < 0 for value in windowed[1:])  # every position filled by exactly one window
    assert len(scorer.score(" ".join([TEXT] * 5))) == 5 * len(split_words(TEXT))


def test_context_changes_the_scores(tiny_llama):
    model, tok = tiny_llama
    scorer = CausalWordScorer(model, tok)
    plain, with_context = scorer.score("Thanks Daniel"), scorer.score("Thanks Daniel", context="I am Daniel.")
    assert [w.word for w in plain] == [w.word for w in with_context]
    assert plain[0].probability != with_context[0].probability


def test_threshold_filter(tiny_bert):
    model, tok = tiny_bert
    scorer = MaskedWordScorer(model, tok)
    words = scorer.score(TEXT)
    cut = sorted(w.probability for w in words if w.scored)[3]
    spans = PFilterDetector(scorer, cut).detect(TEXT)
    assert len(spans) == 3 and all(s.source == "pfilter" for s in spans)


def test_model_without_an_lm_head_is_rejected(minilm_tokenizer):
    from transformers import BertModel

    with pytest.raises(InputError, match="neither a fill-mask nor a causal-LM head"):
        make_scorer(
            BertModel(
                BertConfig(
                    vocab_size=100,
                    hidden_size=8,
                    num_hidden_layers=1,
                    num_attention_heads=1,
                    intermediate_size=8,
                )
            ),
            minilm_tokenizer,
        )


def test_pfilter_pipeline_on_the_offline_default():
    pipe = deid_hf.pipeline("deid-pfilter")
    out = pipe("My name is Daniel Okafor.", p=0.01)
    words = {w["word"]: w for w in out["words"]}
    assert words["Okafor"]["sensitive"] and not words["."]["scored"]
    assert all(w["sensitive"] == (w["scored"] and w["probability"] < 0.01) for w in out["words"])
    batch = pipe(["Hi Tom.", "Call Ann."], p=0.01, batch_size=2)
    assert batch == [pipe("Hi Tom.", p=0.01), pipe("Call Ann.", p=0.01)]


def test_pfilter_pipeline_on_a_tiny_masked_lm(tiny_bert):
    from transformers import pipeline

    model, tok = tiny_bert
    pipe = pipeline("deid-pfilter", model=model, tokenizer=tok)
    out = pipe({"text": "Daniel Okafor lives here.", "context": "Hello Daniel."}, p=0.5)
    assert [w["word"] for w in out["words"]] == ["Daniel", "Okafor", "lives", "here", "."]


@pytest.mark.parametrize(
    "bad, options, message",
    [
        ("", {}, "empty text"),
        (7, {}, "expected a string"),
        ("Hi Tom", {"p": 0}, "threshold p must be"),
        ("Hi Tom", {"p": 1.5}, "threshold p must be"),
        ("Hi Tom", {"context": 3}, "context must be a string"),
    ],
)
def test_bad_input(bad, options, message):
    pipe = deid_hf.pipeline("deid-pfilter")
    with pytest.raises(InputError, match=message):
        pipe(bad, **options)


def test_fast_path_without_windows_or_grouping_reads_whole_word_masks(tiny_bert):
    """With one word per copy and no window, fast = exact for one-token words; a multi-token word is
    prod_j P(t_j | the whole word masked), all read from one copy."""
    model, tok = tiny_bert
    exact = MaskedWordScorer(model, tok, path="exact").score(TEXT)
    fast = MaskedWordScorer(model, tok, path="fast", fast_window=4000, spacing=4000, prefilter=frozenset())
    ids = tok(TEXT)["input_ids"]
    multi = 0
    for e, f in zip(exact, fast.score(TEXT)):
        pieces = tok(TEXT[e.start : e.end], add_special_tokens=False)["input_ids"] if e.scored else []
        if len(pieces) == 1:
            assert f.probability == pytest.approx(e.probability, abs=1e-5)
        elif len(pieces) > 1:
            multi += 1
            first = next(i for i in range(len(ids)) if ids[i : i + len(pieces)] == pieces)
            masked = ids[:first] + [tok.mask_token_id] * len(pieces) + ids[first + len(pieces) :]
            with torch.no_grad():
                logits = model(input_ids=torch.tensor([masked])).logits[0, first : first + len(pieces)]
            expected = math.prod(torch.softmax(logits, -1)[j, t].item() for j, t in enumerate(pieces))
            assert f.probability == pytest.approx(expected, rel=1e-4)
    assert multi >= 2


def test_fast_path_masks_far_apart_words_together(tiny_bert):
    model, tok = tiny_bert
    scorer = MaskedWordScorer(model, tok, path="fast", fast_window=32, spacing=6)
    words, ids, owners = scorer._prepare(" ".join([TEXT] * 3), None)
    targets = [i for i, (w, own) in enumerate(zip(words, owners)) if w[2] and own]
    jobs = scorer._jobs(ids, owners, targets)
    naive_jobs = MaskedWordScorer(model, tok, path="exact")._jobs(ids, owners, targets)
    assert len(jobs) < len(naive_jobs) and all(len(job[0]) <= 32 + 8 for job in jobs)
    assert sum(len(job[0]) for job in jobs) < sum(len(job[0]) for job in naive_jobs) / 3
    assert sorted(w for _, reads in jobs for _, _, w in reads) == sorted(
        w for _, r in naive_jobs for _, _, w in r
    )


def test_prefilter_skips_stop_words_outside_names():
    from deid_hf.detect.lexicon import stop_words
    from deid_hf.detect.pfilter import prefiltered

    text = (
        "The team of Davis, Reynolds and Williamson met me at the Bank of England in May.\n"
        "Call me from Can Capital. I will be ON time."
    )
    words = split_words(text)
    skipped = [
        text[s:e] for i, (s, e, w) in enumerate(words) if w and prefiltered(text, words, i, stop_words())
    ]
    # between capitalised words ("and", "of England", also "England in May") a stop word is scored, and so is
    # one capitalised inside a sentence ("May", "Can", "ON"); "The"/"Call"/"I" at a sentence start and
    # lower-case ones elsewhere are skipped
    assert skipped == ["The", "of", "me", "at", "the", "Call", "me", "from", "I", "will", "be"]
