import random
import re
from datetime import datetime

import pytest

from deid_hf.replace import get_strategy


@pytest.fixture(scope="module")
def full():
    return get_strategy("full_entity")


def test_surrogates_keep_the_format_of_the_original(full):
    rng = random.Random(0)
    assert len(full.surrogate("Maria Del Gonzalez", "PERSON", rng).split()) == 3
    phone = full.surrogate("(217) 555-0143", "PHONE", rng)
    assert re.fullmatch(r"\(\d{3}\) \d{3}-\d{4}", phone) and phone != "(217) 555-0143"
    datetime.strptime(full.surrogate("March 3, 2024", "DATE_TIME", rng), "%B %d, %Y")


def test_untyped_spans_get_a_surrogate_of_the_same_kind(full):
    rng = random.Random(1)
    for honorific in ("Dr.", "Mrs.", "Mr"):
        out = full.surrogate(honorific, "OTHER", rng)
        assert re.fullmatch(r"(Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?", out) and out.endswith(
            "."
        ) == honorific.endswith(".")
    proper = full.surrogate("Qaqortoq Nuuk", "OTHER", rng)
    assert len(proper.split()) == 2 and all(w[0].isupper() for w in proper.split())
    assert full.surrogate("OULU", "OTHER", rng).isupper()
    assert full.surrogate("zorbing", "OTHER", rng).islower()
