"""Users steer replacement through the public API: per-label operators, allow/deny lists, custom patterns,
entity filter, re-identification, the config file and the saved pipeline (detector="fast": no LM)."""

import json
import re
from datetime import datetime

import pytest

import deid_hf
from deid_hf.cli import main
from deid_hf.config import load_config, validate
from deid_hf.errors import InputError

from .test_hub_layout import reload_in_fresh_process

KEY = "a test key of 32 characters...."
TEXT = (
    "Patient Kenji Tanaka (MRN-204411) was admitted on 03/01/2024 and discharged on March 5, 2024. "
    "Dr. Ana Silva saw Mr. Tanaka; TANAKA's daughter called from (217) 555-0143. Tanaka is 92 years old."
)
CONFIG = {
    "detector": "fast",
    "policy": "hipaa",
    "allow_list": ["Patient", "Dr"],
    "deny_list": {"PERSON": ["Silva"]},
    "patterns": [{"label": "ID", "regex": r"MRN-\d{6}", "score": 0.95, "name": "mrn"}],
    "strategy": {
        "PERSON": "full_entity",
        "ID": "redact",
        "DATE_TIME": "date_shift",
        "PHONE": {"type": "mask", "keep_last": 2},
        "AGE": "full_entity",
        "default": "typed",
    },
}


@pytest.fixture(scope="module")
def steered():
    return deid_hf.pipeline("deid-substitution", **CONFIG)


def _span(out, surface):
    return next(s for s in out["spans"] if TEXT[s["start"] : s["end"]] == surface)


def test_explain_names_the_rule_or_stage_behind_each_span(steered):
    out = steered(TEXT, seed=1, explain=True)
    assert {k: v for k, v in out.items() if k != "explanation"} == steered(TEXT, seed=1)  # the same output
    why = {(d["text"], d["rule"], d["kept"]) for d in out["explanation"]}
    assert ("03/01/2024", "date.numeric", True) in why
    assert ("Tanaka", "context.after-patient-title", True) in why
    assert ("MRN-204411", "stage:patterns and deny list", True) in why  # the custom pattern
    assert ("TANAKA", "stage:mentions", True) in why  # a further mention of a detected name
    assert "explanation" not in steered(TEXT, seed=1)


def test_per_label_operators_allow_list_and_custom_pattern(steered):
    out = steered(TEXT, seed=1)
    text = out["text"]
    assert text.startswith("Patient ") and "Dr. " in text  # allow-listed words are never replaced
    assert "[REDACTED]" in text and "MRN-204411" not in text  # the custom pattern, redacted
    assert (
        "custom" in _span(out, "MRN-204411")["source"].split("+")
        and _span(out, "MRN-204411")["label"] == "ID"
    )
    assert "Tanaka" not in text.replace("TANAKA", "") and "TANAKA" not in text and "Silva" not in text
    surname = _span(out, "Kenji Tanaka")["replacement"].split()[-1]
    assert f"Mr. {surname};" in text and f"{surname.upper()}'s" in text and f". {surname} is" in text
    dates = [
        datetime.strptime(_span(out, d)["replacement"], f)
        for d, f in (("03/01/2024", "%m/%d/%Y"), ("March 5, 2024", "%B %d, %Y"))
    ]
    assert (dates[1] - dates[0]).days == 4 and dates[0] != datetime(2024, 3, 1)
    assert re.search(r"\(\*\*\*\) \*\*\*-\*\*43", text)  # mask, last 2 kept
    assert "90+ years old" in text  # HIPAA: ages over 89
    privacy = out["privacy"]
    assert (
        privacy["details"]["per_label"]["ID"]["epsilon"] == 0.0
        and privacy["details"]["per_label"]["PHONE"]["strategy"] == "mask"
    )
    assert (
        privacy["epsilon"] is None
        and "date shifting" in privacy["details"]["per_label"]["DATE_TIME"]["guarantee"]
    )
    assert steered(TEXT, seed=1) == out


def test_entity_filter_and_score_threshold():
    only_phone = deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed", entities=["PHONE"])
    out = only_phone(TEXT, seed=0)
    assert {s["label"] for s in out["spans"]} == {"PHONE"} and "Kenji Tanaka" in out["text"]
    strict = deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed", score_threshold=0.99)
    assert all(s["score"] >= 0.99 for s in strict(TEXT, seed=0)["spans"])


def test_deny_list_always_replaces():
    pipe = deid_hf.pipeline(
        "deid-substitution", detector="patterns", strategy="typed", deny_list=["sunflower ward"]
    )
    out = pipe("She moved to the Sunflower Ward yesterday.", seed=0)
    assert out["text"] == "She moved to the <OTHER> yesterday."


def test_reidentify_encrypted_output_exactly(monkeypatch):
    pipe = deid_hf.pipeline(
        "deid-substitution", detector="fast", strategy={"PERSON": "encrypt", "default": "redact"}, key=KEY
    )
    out = pipe(TEXT, seed=0)
    assert "[ENC:" in out["text"] and "Kenji" not in out["text"]
    restored = pipe.reidentify(out["text"])
    persons = [TEXT[s["start"] : s["end"]] for s in out["spans"] if s["label"] == "PERSON"]
    assert all(name in restored for name in persons) and "[REDACTED]" in restored
    again = pipe(TEXT, seed=5)["text"]
    assert re.findall(r"\[ENC:[^\]]+\]", again) == re.findall(r"\[ENC:[^\]]+\]", out["text"])  # deterministic
    wrong = deid_hf.pipeline("deid-substitution", detector="fast", strategy="encrypt", key=KEY[::-1])
    with pytest.raises(InputError, match="does not decrypt"):
        wrong.reidentify(out["text"])


def test_reidentify_from_the_restore_list(steered):
    out = steered(TEXT, seed=2, return_mapping=True)
    assert steered.reidentify(out["text"], out["restore"]) == TEXT
    with pytest.raises(InputError, match="does not match its mapping"):
        steered.reidentify("x" + out["text"], out["restore"])


def test_custom_operator_runs_but_cannot_be_saved(tmp_path):
    pipe = deid_hf.pipeline(
        "deid-substitution",
        detector="fast",
        strategy={"PERSON": lambda original, label: "Someone", "default": "keep"},
    )
    out = pipe(TEXT, seed=0)
    assert "Someone" in out["text"] and "(217) 555-0143" in out["text"]
    with pytest.raises(InputError, match="Python function.*cannot be saved"):
        pipe.save_pretrained(tmp_path)


@pytest.mark.parametrize(
    "config, message",
    [
        ({"stratgy": "typed"}, "unknown config key 'stratgy' \\(did you mean 'strategy'\\?\\)"),
        ({"strategy": {"PERSN": "redact"}}, "unknown label 'PERSN'"),
        ({"strategy": {"PERSON": "shuffle"}}, "strategy.PERSON: unknown operator 'shuffle'"),
        ({"entities": ["PERSON", "SSN"]}, "entities: unknown label 'SSN'"),
        ({"score_threshold": 2}, "score_threshold: expected a number in \\[0, 1\\]"),
        ({"allow_list": "Dr"}, "allow_list: expected a list"),
        ({"patterns": [{"label": "ID", "regex": "(a+)+$"}]}, "nests unbounded quantifiers"),
        ({"patterns": [{"label": "ID", "regex": "([a-z]"}]}, "not a valid regular expression"),
        ({"patterns": [{"label": "ID", "regx": "a"}]}, "unknown key\\(s\\) 'regx'"),
        ({"allow_list": ["Dr"], "deny_list": ["dr"]}, "in both allow_list and deny_list"),
    ],
)
def test_bad_config_names_the_problem(config, message):
    with pytest.raises(InputError, match=message):
        validate(config)
    with pytest.raises(InputError, match=re.escape(next(iter(config))) if "stratgy" in config else message):
        deid_hf.pipeline("deid-substitution", **{"detector": "patterns", **config})


def test_config_files(tmp_path):
    import yaml

    (tmp_path / "c.yaml").write_text(yaml.safe_dump(CONFIG))
    (tmp_path / "c.json").write_text(json.dumps(CONFIG))
    assert load_config(tmp_path / "c.yaml") == load_config(tmp_path / "c.json") == validate(CONFIG)
    (tmp_path / "bad.yaml").write_text("strategy: [unclosed")
    with pytest.raises(InputError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")


def test_saved_pipeline_keeps_the_config_and_reloads_identically(tmp_path, monkeypatch):
    config = {**CONFIG, "strategy": {**CONFIG["strategy"], "LOCATION": "hash"}}
    monkeypatch.setenv("DEID_HF_KEY", KEY)  # the key travels by environment, never in the saved folder
    pipe = deid_hf.pipeline("deid-substitution", **config)
    pipe.save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())["deid_hf"]
    assert saved["strategy"] == config["strategy"] and saved["patterns"][0]["regex"] == r"MRN-\d{6}"
    assert saved["allow_list"] == ["Patient", "Dr"] and KEY not in (tmp_path / "config.json").read_text()
    assert reload_in_fresh_process("deid-substitution", tmp_path, TEXT) == pipe(TEXT, seed=3)


def test_cli_run_with_config_mapping_and_reidentify(tmp_path, monkeypatch, capsys):
    import yaml

    monkeypatch.setenv("DEID_HF_KEY", KEY)
    records = [
        {"id": 1, "text": TEXT},
        {"id": 2, "text": "Call Maria Gonzalez at (217) 555-0199 on 4/2/2023."},
    ]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({**CONFIG, "seed": 0}))
    out, mapping = tmp_path / "out.jsonl", tmp_path / "map.json"
    args = ["run", str(tmp_path / "in.jsonl"), str(out), "--config", str(tmp_path / "c.yaml")]
    assert main([*args, "--mapping-out", str(mapping)]) == 0
    deidentified = [json.loads(line) for line in out.read_text().splitlines()]
    per_label = json.loads((tmp_path / "out.jsonl.report.json").read_text())["privacy"]["details"][
        "per_label"
    ]
    assert (
        per_label["ID"]["epsilon"] == 0.0
        and not per_label["PERSON"]["dp"]
        and per_label["PHONE"]["strategy"] == "mask"
    )
    assert "Kenji" not in deidentified[0]["text"] and "Maria" not in deidentified[1]["text"]
    assert not any(word in mapping.read_text() for word in ("Kenji", "Tanaka", "Maria", "555-01"))
    back = tmp_path / "back.jsonl"
    assert main(["reidentify", str(out), str(back), "--mapping", str(mapping)]) == 0
    assert [json.loads(line)["text"] for line in back.read_text().splitlines()] == [
        r["text"] for r in records
    ]
    monkeypatch.setenv("DEID_HF_KEY", KEY[::-1])
    assert main(["reidentify", str(out), str(back), "--mapping", str(mapping)]) == 2
    assert "does not decrypt with this key" in capsys.readouterr().err
    (tmp_path / "typo.yaml").write_text("detector: fast\nalow_list: [Dr]\n")
    assert main(["run", str(tmp_path / "in.jsonl"), str(out), "--config", str(tmp_path / "typo.yaml")]) == 2
    assert "unknown config key 'alow_list' (did you mean 'allow_list'?)" in capsys.readouterr().err


def test_cli_encrypt_then_reidentify_without_a_mapping(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_HF_KEY", KEY)
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": TEXT}) + "\n")
    out, back = tmp_path / "out.jsonl", tmp_path / "back.jsonl"
    assert (
        main(["run", str(tmp_path / "in.jsonl"), str(out), "--detector", "fast", "--strategy", "encrypt"])
        == 0
    )
    assert "Kenji" not in out.read_text()
    assert main(["reidentify", str(out), str(back)]) == 0
    assert json.loads(back.read_text())["text"] == TEXT


def test_the_documented_config_example_is_valid():
    import yaml

    from ..conftest import REPO

    block = (REPO / "docs" / "guides" / "configuration.md").read_text().split("```yaml\n")[1].split("```")[0]
    config = validate(yaml.safe_load(block))
    assert (
        config["strategy"]["PHONE"] == {"type": "mask", "keep_last": 2}
        and config["patterns"][0]["name"] == "mrn"
    )


@pytest.mark.parametrize(
    "strategy, check", [("hash", r"\b[0-9a-f]{16}\b"), ("mask", r"\(\*\*\*\) \*\*\*-\*\*\*\*")]
)
def test_cli_run_with_keyed_and_mask_operators(tmp_path, monkeypatch, strategy, check):
    monkeypatch.setenv("DEID_HF_KEY", KEY)
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": TEXT}) + "\n")
    out = tmp_path / "out.jsonl"
    assert (
        main(["run", str(tmp_path / "in.jsonl"), str(out), "--detector", "fast", "--strategy", strategy]) == 0
    )
    text = json.loads(out.read_text())["text"]
    assert re.search(check, text) and "Kenji" not in text
    report = json.loads((tmp_path / "out.jsonl.report.json").read_text())["privacy"]
    assert report["strategy"] == strategy and not report["dp"]
    monkeypatch.delenv("DEID_HF_KEY")
    if strategy == "hash":  # never unkeyed
        assert (
            main(["run", str(tmp_path / "in.jsonl"), str(tmp_path / "o2.jsonl"), "--strategy", "hash"]) == 2
        )


def _offset(out, original: str, surface: str, fmt: str) -> int:
    span = next(s for s in out["spans"] if original[s["start"] : s["end"]] == surface)
    return (datetime.strptime(span["replacement"], fmt) - datetime.strptime(surface, fmt)).days


GROUPED = [
    ("Seen 03/01/2024 by Dr. Ana Silva.", "03/01/2024", "A"),
    ("Follow-up 04/15/2024, stable.", "04/15/2024", "A"),
    ("Admitted 05/02/2023 via ER.", "05/02/2023", "B"),
    ("Discharged 06/20/2023 home.", "06/20/2023", "B"),
]


def test_a_group_shares_one_date_offset_across_documents():
    pipe = deid_hf.pipeline(
        "deid-substitution", detector="fast", strategy={"DATE_TIME": "date_shift", "default": "typed"}
    )

    def offsets(key_pipe, seed):
        outs = key_pipe([{"text": t, "group": g} for t, _, g in GROUPED], seed=seed)
        return [_offset(o, t, d, "%m/%d/%Y") for o, (t, d, _) in zip(outs, GROUPED)]

    seeded = offsets(pipe, 7)
    assert seeded[0] == seeded[1] and seeded[2] == seeded[3] and 0 not in seeded
    assert seeded != offsets(pipe, 8)  # the seed (or the key) decides the offsets
    ungrouped = [
        _offset(o, t, d, "%m/%d/%Y")
        for o, (t, d, _) in zip(pipe([t for t, _, _ in GROUPED], seed=7), GROUPED)
    ]
    assert len(set(ungrouped)) > 1  # without groups, each document draws its own
    keyed = deid_hf.pipeline(
        "deid-substitution",
        detector="fast",
        strategy={"DATE_TIME": "date_shift", "default": "typed"},
        key=KEY,
    )
    assert offsets(keyed, 1) == offsets(keyed, 2)  # keyed: the same offsets whatever the seed
    bad = pipe([{"text": GROUPED[0][0], "group": ["A"]}, GROUPED[1][0]])
    assert "group must be a string" in bad[0]["error"] and bad[1].get("error") is None


def test_cli_run_group_field(tmp_path, monkeypatch, capsys):
    (tmp_path / "in.jsonl").write_text(
        "".join(json.dumps({"text": t, "patient": g}) + "\n" for t, _, g in GROUPED)
    )
    (tmp_path / "c.json").write_text(
        json.dumps({"detector": "fast", "strategy": {"DATE_TIME": "date_shift", "default": "typed"}})
    )
    out = tmp_path / "out.jsonl"
    args = ["run", str(tmp_path / "in.jsonl"), str(out), "--config", str(tmp_path / "c.json")]
    monkeypatch.delenv("DEID_HF_KEY", raising=False)
    import deid_hf.cli.corpus_commands as commands

    def no_pipeline(*_):
        raise AssertionError("the pipeline was built before the options were checked")

    with monkeypatch.context() as patched:  # refused before any model loads
        patched.setattr(commands, "_run_pipe", no_pipeline)
        assert main([*args, "--group-field", "patient"]) == 2  # neither key nor seed: refused, says why
    assert "a group field needs a key" in capsys.readouterr().err
    assert not out.exists()
    monkeypatch.setenv("DEID_HF_KEY", KEY)
    assert main([*args, "--group-field", "patient"]) == 0
    texts = [json.loads(line)["text"] for line in out.read_text().splitlines()]
    days = [
        (
            datetime.strptime(re.search(r"\d\d/\d\d/\d{4}", new).group(), "%m/%d/%Y")
            - datetime.strptime(d, "%m/%d/%Y")
        ).days
        for new, (_, d, _) in zip(texts, GROUPED)
    ]
    assert days[0] == days[1] and days[2] == days[3] and 0 not in days
