"""An empirical lower bound on the DP paraphraser's epsilon: a distinguishing attack between neighbouring
inputs (Jagielski et al. 2020; Nasr et al. 2021; the check Mattern et al. 2022 ask for).

Two sentences ``x`` and ``x'`` differ in one identifier. The mechanism (`deid-paraphrase`: clamped logits,
temperature sampling) paraphrases each ``trials`` times. The attacker knows the mechanism and both inputs,
and scores an output ``y`` by its log-likelihood ratio ``log P(y | x) - log P(y | x')`` (the
Neyman-Pearson test). A threshold chosen on half of the outputs is applied to the other half; with
Clopper-Pearson upper bounds on its false-positive and false-negative rates, epsilon-DP (delta = 0) implies
``epsilon >= log((1 - FPR) / FNR)`` and ``log((1 - FNR) / FPR)`` (`epsilon_lower_bound`). The bound is
what the attack proves at that confidence, never more than the trials allow (about ``log(trials)``); the
nominal epsilon is what the mechanism promises. A bound above the nominal epsilon would mean the
mechanism leaks more than its accounting says.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..privacy.exponential import temperature_for
from .stats import clopper_pearson_upper

if TYPE_CHECKING:  # torch and the paraphraser load with the audit's run, not with `deid-hf --help`
    import torch

#: neighbouring inputs of `run_dp_audit`: one synthetic sentence with one person's name changed
SYNTHETIC_PAIRS = (
    ("Maria Gonzalez was admitted on Monday.", "Kenji Tanaka was admitted on Monday."),
    ("Please call Ann Lee about the invoice.", "Please call Bob Kim about the invoice."),
)

#: what the attack does not show, for the report
NOT_COVERED = (
    "a lower bound only: a stronger attacker or more trials may prove more; the bound can never exceed "
    "about log(trials / 2), whatever the mechanism leaks",
    "synthetic neighbouring sentences, not the user's documents; the nominal epsilon holds for any input",
    "one sentence: a document of n sentences composes to n times the per-sentence epsilon",
)


@dataclass(frozen=True)
class AttackResult:
    """What one attack measured: both rates on the held-out half, the bound they prove at ``confidence``,
    and the nominal epsilon (per token, and for the longest output allowed)."""

    epsilon_token: float
    max_new_tokens: int
    trials: int
    confidence: float
    false_positive_rate: float
    false_negative_rate: float
    epsilon_lower_bound: float
    epsilon_nominal: float
    #: the largest |log P(y | x) - log P(y | x')| over all outputs, divided by the output's length: the
    #: accounting bounds it by epsilon_token
    largest_ratio_per_token: float

    def to_dict(self) -> dict:
        return asdict(self)


def epsilon_lower_bound(false_positives: int, false_negatives: int, trials: int, confidence: float) -> float:
    """The epsilon that a test with these error counts (out of ``trials`` outputs of each input) proves for
    delta = 0 at ``confidence`` (Clopper-Pearson, Bonferroni over the two rates); 0 when it proves none."""
    alpha = (1 - confidence) / 2
    fpr = clopper_pearson_upper(false_positives, trials, alpha)
    fnr = clopper_pearson_upper(false_negatives, trials, alpha)
    bounds = [math.log((1 - fpr) / fnr) if fnr > 0 and fpr < 1 else 0.0]
    bounds.append(math.log((1 - fnr) / fpr) if fpr > 0 and fnr < 1 else 0.0)
    return max(0.0, *bounds)


def output_log_likelihoods(pipe, source: str, outputs: torch.Tensor, epsilon_token: float) -> torch.Tensor:
    """log P(output | source) under the mechanism for each row of ``outputs`` (generated ids), counting the
    tokens up to and including the first stop token, as `deid-paraphrase` samples them."""
    import torch

    from ..paraphrase import prompt

    temperature = temperature_for(epsilon_token, pipe.bounds.sensitivity)
    prompt_ids = pipe.tokenizer(prompt(source), return_tensors="pt")["input_ids"][0]
    rows = torch.cat([prompt_ids.expand(len(outputs), -1), outputs.to(prompt_ids.device)], dim=1)
    with torch.no_grad():
        logits = pipe.model(input_ids=rows).logits[:, len(prompt_ids) - 1 : -1].float()
    scores = logits.clamp(pipe.bounds.low, pipe.bounds.high) / temperature
    chosen = scores.log_softmax(-1).gather(-1, outputs.unsqueeze(-1)).squeeze(-1)
    return (chosen * sampled_mask(outputs, pipe.stop_ids)).sum(-1)


def sampled_mask(outputs: torch.Tensor, stop_ids) -> torch.Tensor:
    """1 for each generated position up to and including the row's first stop token, 0 after it."""
    import torch

    stops = torch.isin(outputs, torch.tensor(list(stop_ids)))
    after_stop = (stops.cumsum(-1) - stops.long()) > 0
    return (~after_stop).float()


def paraphrase_ids(pipe, source: str, trials: int, epsilon_token: float, max_new_tokens: int, seed: int):
    """``trials`` sampled outputs (generated ids, padded) of ``source`` through the pipeline's mechanism."""
    return pipe.sample([source] * trials, epsilon_token, max_new_tokens, seed)[0]


def distinguishing_attack(
    pipe,
    source: str,
    neighbour: str,
    *,
    epsilon_token: float,
    trials: int = 200,
    max_new_tokens: int = 24,
    confidence: float = 0.95,
    seed: int = 0,
) -> AttackResult:
    """The likelihood-ratio attack between ``source`` and ``neighbour`` on a `deid-paraphrase` pipeline
    (``trials`` outputs of each; the threshold is chosen on the first half, the rates counted on the
    second)."""
    if source == neighbour:
        raise InputError("the two inputs of a distinguishing attack must differ")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 4:
        raise InputError(f"trials must be an integer of at least 4, got {trials!r}")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence!r}")
    scores, ratios = [], []
    for i, text in enumerate((source, neighbour)):
        ids = paraphrase_ids(pipe, text, trials, epsilon_token, max_new_tokens, seed + i)
        ratio = output_log_likelihoods(pipe, source, ids, epsilon_token) - output_log_likelihoods(
            pipe, neighbour, ids, epsilon_token
        )
        lengths = sampled_mask(ids, pipe.stop_ids).sum(-1).clamp(min=1)
        ratios.append(float((ratio.abs() / lengths).max()))
        scores.append(ratio.tolist())
    half = trials // 2
    threshold = _best_threshold(scores[0][:half], scores[1][:half], confidence)
    positives, negatives = scores[0][half:], scores[1][half:]
    false_negatives = sum(s <= threshold for s in positives)
    false_positives = sum(s > threshold for s in negatives)
    tested = len(positives)
    return AttackResult(
        epsilon_token=epsilon_token,
        max_new_tokens=max_new_tokens,
        trials=trials,
        confidence=confidence,
        false_positive_rate=false_positives / tested,
        false_negative_rate=false_negatives / tested,
        epsilon_lower_bound=epsilon_lower_bound(false_positives, false_negatives, tested, confidence),
        epsilon_nominal=epsilon_token * max_new_tokens,
        largest_ratio_per_token=max(ratios),
    )


def _best_threshold(positives: list[float], negatives: list[float], confidence: float) -> float:
    """The threshold (guess ``source`` above it) whose error counts prove the largest bound on these
    outputs."""
    candidates = sorted({*positives, *negatives, -math.inf})
    n = len(positives)

    def proved(threshold: float) -> float:
        false_negatives = sum(s <= threshold for s in positives)
        false_positives = sum(s > threshold for s in negatives)
        return epsilon_lower_bound(false_positives, false_negatives, n, confidence)

    return max(candidates, key=proved)


def run_dp_audit(
    pipe,
    epsilons,
    *,
    trials: int = 200,
    max_new_tokens: int = 24,
    seed: int = 0,
    pairs=SYNTHETIC_PAIRS,
    progress=None,
) -> dict:
    """The attack on every pair at every per-token epsilon; the report's ``dp`` section (no text)."""
    results = []
    for epsilon in epsilons:
        for number, (source, neighbour) in enumerate(pairs):
            result = distinguishing_attack(
                pipe,
                source,
                neighbour,
                epsilon_token=float(epsilon),
                trials=trials,
                max_new_tokens=max_new_tokens,
                seed=seed + 2 * number,
            )
            results.append({"pair": number, **result.to_dict()})
            if progress:
                progress(len(results), len(epsilons) * len(pairs))
    return {
        "attack": "likelihood-ratio test between neighbouring sentences (one name changed), threshold chosen "
        "on half of the outputs, error rates counted on the other half, Clopper-Pearson bounds",
        "pairs": len(pairs),
        "trials": trials,
        "results": results,
        "not_covered": list(NOT_COVERED),
    }
