"""spaCy's entity pass without the components it does not read (`deid_hf.detect.ner.parse`)."""

from __future__ import annotations

from deid_hf.detect.ner import NOT_FOR_NER, parse, unused_components
from deid_hf.models import load_spacy

TEXTS = (
    "Ana Lima was seen in Boston on 12/03/2020 by Dr. Tom Okafor of Mercy Hospital.",
    "PATIENT JOHN SMITH, 54, ADMITTED TO ICU AT ST. MARY'S; CALL 617-555-0101.",
    "Follow-up with Maria Gonzalez in Nairobi next Tuesday; she works for Acme Corp in Lisbon.",
)


def test_the_entity_pass_skips_the_shared_embedding_layer_and_finds_the_same_entities():
    """In spaCy's small English pipeline only the tagger and parser read the shared tok2vec; without them
    it does not run (the docs carry no tensor), and the entities are those of the whole pipeline."""
    nlp = load_spacy("spacy-sm")
    assert "tok2vec" in unused_components(nlp, NOT_FOR_NER)
    assert "tok2vec" not in unused_components(nlp, ("lemmatizer",))  # the tagger still reads it
    docs = parse(nlp, TEXTS, NOT_FOR_NER)
    assert all(doc.tensor.size == 0 for doc in docs)
    whole = [nlp(text) for text in TEXTS]
    assert all(doc.tensor.size > 0 for doc in whole)
    found = [[(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in docs]
    assert found == [[(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in whole]
    assert sum(map(len, found)) > 3
