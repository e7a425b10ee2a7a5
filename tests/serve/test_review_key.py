"""The review folder's decisions are named by a keyed fingerprint: a guessed corpus cannot be confirmed."""

import hashlib
import stat

from deid_hf.serve.review import fingerprint, review_key


def test_the_key_is_made_once_and_readable_by_its_owner_only(tmp_path):
    key = review_key(tmp_path / "review")
    assert len(key) == 32 and review_key(tmp_path / "review") == key
    mode = stat.S_IMODE((tmp_path / "review" / ".fingerprint-key").stat().st_mode)
    assert mode & 0o077 == 0
    assert review_key(tmp_path / "other") != key


def test_a_fingerprint_depends_on_the_key_and_is_not_the_plain_hash(tmp_path):
    body = b'{"text": "Seen by Dr. Lee."}\n'
    one, two = review_key(tmp_path / "a"), review_key(tmp_path / "b")
    printed = fingerprint(body, "text", "default", "typed", one)
    assert printed == fingerprint(body, "text", "default", "typed", one)
    assert printed != fingerprint(body, "text", "default", "typed", two)
    assert printed != fingerprint(body, "note", "default", "typed", one)
    assert hashlib.sha256(body).hexdigest() not in printed
