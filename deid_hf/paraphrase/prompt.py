"""The "source => paraphrase" format of Witteveen & Andrews (2019), used by Mattern et al. (2022, sec. 4.1)
both to fine-tune the paraphraser and to prompt it."""

from __future__ import annotations


def prompt(source: str) -> str:
    """What the model sees; it continues with `` paraphrase`` and stops at end-of-text or a newline."""
    return f"{source} =>"


def completion(paraphrase: str, eos_token: str) -> str:
    """The training target that follows ``prompt(source)``."""
    return f" {paraphrase}{eos_token}"
