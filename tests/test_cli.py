from deid_hf.cli import main


def test_models_lists_the_defaults(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "smollm2-135m" in out and "glove-50d" in out


def test_demo_prints_real_deidentified_output(capsys):
    assert main(["demo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "support-chat" in out and "clinical-note" in out and "privacy:" in out
    deidentified = [line.split("│")[2] for line in out.splitlines() if line.count("│") == 3]
    assert deidentified and not any("Okafor" in cell or "Gonzalez" in cell for cell in deidentified)


def test_errors_are_one_line_without_traceback(capsys, tmp_path):
    assert main(["run", str(tmp_path / "missing.jsonl"), str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("deid-hf: error: input") and err.count("\n") == 1
