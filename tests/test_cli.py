import re

import pytest

from deid_hf.cli import main


def test_models_lists_the_defaults(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "smollm2-135m" in out and "glove-50d" in out


@pytest.mark.slow
def test_demo_prints_real_deidentified_output(capsys):
    """No name of an example is left in its own de-identified column (a surrogate avoids the words of its
    own document's names, not those of another example: "Gonzalez Street" in the dialogue may happen)."""
    assert main(["demo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "support-chat" in out and "clinical-note" in out and "privacy:" in out
    names = {"support-chat": ("Okafor", "Daniel"), "clinical-note": ("Gonzalez", "Maria", "Tanaka")}
    blocks, current = {}, None
    for line in out.splitlines():
        header = re.fullmatch(r"([a-z-]+) \(.*\)", line)  # "clinical-note (clinical note)"
        if header:
            current = header.group(1)
            blocks[current] = []
        elif current and line.count("│") == 3:
            blocks[current].append(line.split("│")[2])
    blocks = {example: cells for example, cells in blocks.items() if example in names}
    assert set(blocks) == set(names) and all(blocks.values())
    for example, cells in blocks.items():
        deidentified = " ".join(" ".join(cells).split())  # the column's rows joined: a name may wrap
        assert not [name for name in names[example] if name in deidentified], example


def test_errors_are_one_line_without_traceback(capsys, tmp_path):
    assert main(["run", str(tmp_path / "missing.jsonl"), str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("deid-hf: error: input") and err.count("\n") == 1


@pytest.mark.slow
def test_train_paraphraser_stops_and_resumes(capsys, tmp_path, smollm2):
    import json

    from tests.conftest import tiny_llama

    tokenizer = smollm2[1]
    tiny_llama(tokenizer).save_pretrained(tmp_path / "tiny")
    tokenizer.save_pretrained(tmp_path / "tiny")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "".join(
            json.dumps({"source": f"Item {n} is red.", "paraphrase": f"The {n}th item is red."}) + "\n"
            for n in range(12)
        )
    )
    args = [
        "train-paraphraser",
        str(tmp_path / "out"),
        "--model",
        str(tmp_path / "tiny"),
        "--pairs",
        str(pairs),
        "--batch-size",
        "2",
        "--grad-accum",
        "2",
        "--eval-fraction",
        "0.2",
    ]
    assert main([*args, "--stop-after", "1"]) == 0
    assert "continue with --resume" in " ".join(capsys.readouterr().out.split())  # rich wraps at any width
    assert main([*args, "--resume"]) == 0
    assert "held-out loss" in " ".join(capsys.readouterr().out.split())
    card = (tmp_path / "out" / "README.md").read_text()
    assert "pairs.jsonl" in card and "epsilon per generated token" in card
    assert main(["train-paraphraser", str(tmp_path / "x"), "--pairs", str(tmp_path / "none.jsonl")]) == 2


def test_train_paraphraser_refuses_the_shipped_paraphraser_and_its_own_pairs(tmp_path, capsys):
    from deid_hf.paths import PACKAGE
    from deid_hf.pipelines import DEFAULT_MODELS

    shipped = PACKAGE / "hub" / DEFAULT_MODELS["deid-paraphrase"]  # the adapter as it ships
    before = {f.name: f.stat().st_mtime_ns for f in shipped.iterdir()}
    assert main(["train-paraphraser", str(shipped), "--pairs", str(tmp_path / "none.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err.startswith("deid-hf: error: train-paraphraser:") and "inside the installed deid_hf package" in err
    )
    assert {f.name: f.stat().st_mtime_ns for f in shipped.iterdir()} == before
    pairs = tmp_path / "data" / "pairs.jsonl"
    pairs.parent.mkdir()
    pairs.write_text("{}\n")
    assert main(["train-paraphraser", str(tmp_path / "data"), "--pairs", str(pairs)]) == 2
    assert "holds what it reads" in capsys.readouterr().err and pairs.is_file()


def test_messages_are_never_wrapped_for_logs_and_pipes(capsys, tmp_path):
    """A long output path (deep temporary folders) must not break a message line (logs are grepped)."""
    import json

    deep = tmp_path / ("x" * 60) / ("y" * 60)
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"text": "Call Tom at (217) 555-0143."}) + "\n")
    assert main(["run", str(source), str(deep / "out.jsonl"), "--detector", "fast", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert f"wrote 1 of 1 records to {deep / 'out.jsonl'}; 0 error(s)" in out


def test_skipped_records_are_counted_from_1_like_the_lines_they_sit_on(capsys, tmp_path):
    import json

    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"text": "Call Tom at (217) 555-0143."}) + "\n{oops\n")
    assert (
        main(["run", str(source), str(tmp_path / "out.jsonl"), "--detector", "patterns", "--seed", "1"]) == 0
    )
    assert "record 2: line 2 is not valid JSON" in capsys.readouterr().out


def test_a_line_nested_too_deeply_is_one_record_error(capsys, tmp_path):
    import json

    good = json.dumps({"text": "Call Tom at (217) 555-0143."})
    deep = '{"text": "x", "x": ' + "[" * 200_000 + "]" * 200_000 + "}"
    source = tmp_path / "in.jsonl"
    source.write_text(f"{good}\n{deep}\n{good}\n")
    assert (
        main(["run", str(source), str(tmp_path / "out.jsonl"), "--detector", "patterns", "--seed", "1"]) == 0
    )
    out = capsys.readouterr().out
    assert "record 2: line 2 nests JSON too deeply" in out and "wrote 2 of 3 records" in out


AUDIT_NAMES = ("Marguerite Okonkwo", "Tobias Wexlerby", "Ingrid Castellanos")


def _audit_corpus(path):
    import json

    topics = ("asthma inhaler wheeze", "diabetes insulin glucose", "ankle fracture cast")
    lines = [
        json.dumps(
            {"patient": f"p{i}", "text": f"{name} seen on 3/{n + 4}/2021 for {topic}. Call 617-555-01{i}{n}."}
        )
        for i, (name, topic) in enumerate(zip(AUDIT_NAMES, topics))
        for n in range(2)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_audit_all_writes_one_report_without_the_original_text(tmp_path, capsys):
    import json

    corpus = _audit_corpus(tmp_path / "notes.jsonl")
    out = tmp_path / "report"
    args = ["audit", "all", str(corpus), "--group-field", "patient", "--out", str(out), "--sample", "3"]
    options = [
        "--strategies",
        "typed,full_entity+consistent",
        "--locales",
        "en_GB",
        "--reference",
        "fast",
    ]
    assert main([*args, *options]) == 0
    assert "wrote the audit report" in capsys.readouterr().out
    report = json.loads((out / "audit.json").read_text())
    assert report["canary"]["documents_sampled"] == 3 and report["canary"]["all"]["canaries"] > 0
    assert report["canary"]["locales"] == ["en_GB"]
    assert report["configuration"]["reference_detector"] == ["fast"]
    assert report["canary"]["estimate"]["kind"] == "in_place"
    assert "In-place canaries (the estimate's) by type" in (out / "audit.md").read_text()
    # the report holds the re-identification audit: the canary section does not send the reader to it
    assert not any("audit reid" in item for item in report["canary"]["not_covered"])
    assert set(report["reid"]["results"]) == {"original text", "typed", "full_entity+consistent"}
    assert report["reid"]["people"] == 3 and report["reid"]["results"]["typed"]["documents"] == 6
    for path in out.iterdir():
        content = path.read_bytes().decode("utf-8", "replace")
        assert not any(part in content for name in AUDIT_NAMES for part in name.split()), path.name
        assert "617-555" not in content and "asthma" not in content


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["canary", "--text-field", "note"], "no record has a field 'note'"),
        (["reid", "--group-field", "person"], "no record has a field 'person'"),
        (["canary", "--sample", "0"], "--sample and --copies must be at least 1"),
        (["canary", "--batch-size", "0"], "--batch-size must be at least 1"),
        (["reid", "--group-field", "patient", "--strategies", "typed,shredded"], "shredded"),
        (["all", "--group-field", "patient", "--locales", "en_US,xx_YY"], "['xx_YY']"),
        (["canary", "--reference", "fats"], "unknown detector 'fats'"),
        (["canary", "--reference", ""], "--reference must name detectors"),
        (["canary", "--detector", "fast", "--reference", "fast"], "runs the detectors audited"),
        (["canary", "--detector", "fast", "--reference", "spacy,patterns"], "runs the detectors audited"),
        (["canary", "--detector", "patterns,spacy,learned", "--reference", "default"], "runs the detectors"),
        (["canary", "--detector", "default:0.3", "--reference", "patterns,learned:0.3,spacy"], "runs the"),
    ],
)
def test_audit_bad_input_is_one_clear_error(tmp_path, capsys, argv, message):
    corpus = _audit_corpus(tmp_path / "notes.jsonl")
    command, *options = argv
    assert main(["audit", command, str(corpus), "--out", str(tmp_path / "r"), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("deid-hf: error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_run_takes_operators_per_label_on_the_command_line(capsys, tmp_path, monkeypatch):
    """--operator LABEL=OPERATOR over --strategy; a keyed group: one pseudonym, one date offset."""
    import json
    from datetime import datetime

    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    rows = [
        {"text": "Maria Gonzalez seen on 03/02/2024.", "patient": 1},
        {"text": "Maria Gonzalez called on 03/09/2024.", "patient": 1},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv("DEID_HF_KEY", "a test key of the command line")
    args = ["run", str(source), str(out), "--detector", "fast", "--group-field", "patient"]
    assert main([*args, "--strategy", "typed", "--operator", "DATE_TIME=date_shift"]) == 0
    texts = [json.loads(line)["text"] for line in out.read_text().splitlines()]
    assert texts[0].startswith("<PERSON> seen on ") and texts[1].startswith("<PERSON> called on ")
    assert main([*args, "--operator", "ID=mask:keep_last=2", "--restart"]) == 0  # full_entity elsewhere
    spans = [json.loads(line)["deid_spans"] for line in out.read_text().splitlines()]
    assert spans[0][0]["replacement"] == spans[1][0]["replacement"] != "Maria Gonzalez"
    dates = [datetime.strptime(s[-1]["replacement"], "%m/%d/%Y") for s in spans]
    assert (dates[1] - dates[0]).days == 7
    capsys.readouterr()
    assert main([*args, "--operator", "DATE_TIME"]) == 2
    assert "--operator expects LABEL=OPERATOR" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # not offered, and the message says why
        main([*args, "--strategy", "custom"])
    assert "custom needs a Python function" in capsys.readouterr().err


def test_an_unknown_policy_names_the_choices_as_written(capsys):
    from deid_hf.cli import main

    with pytest.raises(SystemExit):
        main(["run", "in.jsonl", "out.jsonl", "--policy", "gdrp"])
    err = capsys.readouterr().err
    assert "choose from 'hipaa', 'strict', 'gdpr'" in err and "Policy." not in err


#: the stack a command loads when it runs, never while the parser is built
HEAVY_MODULES = ("torch", "transformers", "datasets", "spacy")


#: the tasks `deid_hf.pipelines` registers
DEID_TASKS = ["deid-ndd", "deid-paraphrase", "deid-pfilter", "deid-substitution"]


def _modules_after(code: str) -> dict:
    """What a fresh interpreter running ``code`` printed as JSON (this checkout's deid_hf on its path)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["run", "in.jsonl", "out.jsonl", "--bogus"]])
def test_help_and_parse_errors_load_no_model_stack(argv):
    """``deid-hf --help``, a sub-command's help and a mistyped flag build the whole parser and exit without
    importing torch, transformers, datasets or spaCy."""
    code = f"""
import contextlib, io, json, sys
from deid_hf.cli import build_parser, main
build_parser()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit as exc:
        code = exc.code
print(json.dumps({{"exit": code, "loaded": [m for m in {HEAVY_MODULES!r} if m in sys.modules]}}))
"""
    result = _modules_after(code)
    assert result == {"exit": 2 if "--bogus" in argv else 0, "loaded": []}


@pytest.mark.parametrize("first", ["import deid_hf", "import transformers.pipelines; import deid_hf"])
def test_transformers_knows_the_deid_tasks_after_a_plain_import(first):
    """The ``deid-*`` tasks are in transformers' registry after ``import deid_hf``, whether transformers'
    pipelines are imported before or after it: its first lookup of a ``deid-*`` task (``check_task``, as
    `transformers.pipeline` calls it) or of the task list registers them, another task's loads nothing of
    deid-hf, and the registry's own methods are back once they are registered. `deid_hf.pipeline` is the
    package's pipeline factory."""
    code = f"""
import json, sys
{first}
light = "torch" not in sys.modules
from transformers import pipeline
from transformers.pipelines import PIPELINE_REGISTRY, check_task
check_task("fill-mask")
other_task_loads = "deid_hf.pipelines" in sys.modules
found = check_task("deid-substitution")[0]
tasks = [t for t in PIPELINE_REGISTRY.get_supported_tasks() if t.startswith("deid-")]
print(json.dumps({{"tasks": sorted(tasks), "found": found, "other_task_loads": other_task_loads,
                  "left": sorted(vars(PIPELINE_REGISTRY)), "factory": deid_hf.pipeline.__module__,
                  "light": light}}))
"""
    result = _modules_after(code)
    assert result["tasks"] == DEID_TASKS
    assert (result["found"], result["other_task_loads"]) == ("deid-substitution", False)
    assert result["left"] == ["supported_tasks", "task_aliases"]
    assert result["factory"] == "deid_hf.pipelines"
    assert result["light"] == (first == "import deid_hf")


def test_reloading_the_package_keeps_one_registering_hook():
    """After ``importlib.reload(deid_hf)`` there is still one import hook, and importing transformers'
    pipelines registers the ``deid-*`` tasks (two hooks used to ask each other for the spec, without end)."""
    code = """
import importlib, json, sys
import deid_hf
importlib.reload(deid_hf)
hooks = [f for f in sys.meta_path if type(f).__name__ == "_RegisterOnTransformersPipelines"]
from transformers import pipeline
from transformers.pipelines import PIPELINE_REGISTRY
tasks = [t for t in PIPELINE_REGISTRY.get_supported_tasks() if t.startswith("deid-")]
print(json.dumps({"hooks": len(hooks), "tasks": sorted(tasks)}))
"""
    result = _modules_after(code)
    assert result["hooks"] == 1
    assert result["tasks"] == DEID_TASKS


#: the end of a script that made ``threads`` and collects ``errors``: run them, then report
_THREADS_REPORT = """
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(240)
from transformers.pipelines import PIPELINE_REGISTRY
tasks = [t for t in PIPELINE_REGISTRY.get_supported_tasks() if t.startswith("deid-")]
print(json.dumps({"errors": errors, "stuck": sum(t.is_alive() for t in threads), "tasks": sorted(tasks)}))
"""


def _threads_outcome(code: str) -> dict:
    """The errors, the threads still running and the registered deid tasks after ``code``'s threads ran."""
    return _modules_after(code + _THREADS_REPORT)


def test_first_transformers_pipeline_and_deid_pipeline_in_two_threads_at_once():
    """One thread's first ``transformers.pipeline`` and another's first ``deid_hf.pipeline``, started
    together, both succeed and the tasks register (the hook used to import `deid_hf.pipelines` under
    transformers.pipelines' import lock while the other thread held the first and waited for the second)."""
    code = """
import json, sys, threading
import deid_hf, transformers
start = threading.Barrier(2)
errors = []
def first_use(get):
    start.wait()
    try:
        get()
    except Exception as error:
        errors.append(repr(error))
threads = [threading.Thread(target=first_use, args=(get,))
           for get in (lambda: transformers.pipeline, lambda: deid_hf.pipeline)]
"""
    assert _threads_outcome(code) == {"errors": [], "stuck": 0, "tasks": DEID_TASKS}


def test_transformers_pipelines_imported_while_another_thread_starts_importing_deid_pipelines():
    """A thread that has locked `deid_hf.pipelines` for import but not yet created it, paused there while
    another thread imports ``transformers.pipelines``, still gets `deid_hf.pipeline`, and the tasks
    register (the import hook used to import `deid_hf.pipelines` under transformers.pipelines' lock, and
    the first thread then failed on a deadlock error). The pause is a loader wrapped around the real one:
    it holds the first thread until the second has imported transformers' pipelines or waits for the
    lock on `deid_hf.pipelines`."""
    code = """
import importlib._bootstrap, importlib.machinery, json, sys, threading, time
import deid_hf
locked, imported, importer, errors = threading.Event(), threading.Event(), [], []

def importer_waits_for_deid_pipelines():
    waits = getattr(importlib._bootstrap, "_blocking_on", {}).get(importer[0]) if importer else None
    waits = [] if waits is None else waits if isinstance(waits, list) else [waits]
    return any(getattr(lock, "name", None) == "deid_hf.pipelines" for lock in waits)

class PausedLoader:
    def __init__(self, loader):
        self.loader = loader
    def create_module(self, spec):  # the module is locked, not yet in sys.modules
        if threading.current_thread().name == "deid":
            locked.set()
            deadline = time.monotonic() + 120
            while not (imported.is_set() or importer_waits_for_deid_pipelines()):
                if time.monotonic() > deadline:
                    break
                time.sleep(0.01)
    def exec_module(self, module):
        self.loader.exec_module(module)

class PauseDeidPipelines:
    def find_spec(self, fullname, path, target=None):
        if fullname != "deid_hf.pipelines":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        spec.loader = PausedLoader(spec.loader)
        return spec

sys.meta_path.insert(0, PauseDeidPipelines())

def first_deid_pipeline():
    try:
        deid_hf.pipeline
    except BaseException as error:
        errors.append(repr(error))

def import_transformers_pipelines():
    importer.append(threading.get_ident())
    locked.wait(120)
    try:
        import transformers.pipelines
    except BaseException as error:
        errors.append(repr(error))
    imported.set()

threads = [threading.Thread(target=first_deid_pipeline, name="deid"),
           threading.Thread(target=import_transformers_pipelines)]
"""
    assert _threads_outcome(code) == {"errors": [], "stuck": 0, "tasks": DEID_TASKS}


def test_dir_lists_the_lazy_names_and_odd_attribute_names_are_missing_attributes():
    """``dir(deid_hf)`` lists `pipeline` and `register` without loading them, and a name that cannot be a
    module (``"a.b"``) is a plain missing attribute, not an import error."""
    code = """
import json, sys
import deid_hf
names = dir(deid_hf)
listed = {name: name in names for name in ("pipeline", "register", "corpus", "merge_spans")}
print(json.dumps({"listed": listed, "dotted": hasattr(deid_hf, "a.b"), "torch": "torch" in sys.modules}))
"""
    result = _modules_after(code)
    assert all(result["listed"].values()), result["listed"]
    assert (result["dotted"], result["torch"]) == (False, False)


def test_type_checkers_see_pipeline_and_catch_a_misspelled_attribute(tmp_path):
    """mypy types ``deid_hf.pipeline`` as the factory and reports ``deid_hf.pipelin``: the lazy module
    ``__getattr__`` is hidden from type checkers, which would otherwise accept any attribute."""
    pytest.importorskip("mypy", reason="mypy is a dev dependency")
    import subprocess
    import sys
    from pathlib import Path

    user_code = tmp_path / "user_code.py"
    user_code.write_text("import deid_hf\nreveal_type(deid_hf.pipeline)\ndeid_hf.pipelin\n")
    # deid_hf's own modules are read; the libraries under them (torch, transformers) count as Any, which
    # keeps the check to seconds
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nfollow_imports = skip\n[mypy-deid_hf.*]\nfollow_imports = silent\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", str(config), str(user_code)],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(str(user_code))]
    reports = {line.split(":")[1]: line for line in lines}
    assert "def (task: str" in reports.get("2", ""), done.stdout + done.stderr
    assert 'no attribute "pipelin"' in reports.get("3", ""), done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--batch-size", "0"], "argument --batch-size: must be at least 1, got 0"),
        (["--batch-size", "-1"], "argument --batch-size: must be at least 1, got -1"),
        (["--num-workers", "0"], "argument --num-workers: must be at least 1"),
        (["--mapping-out", "."], "is a directory: name a file"),
    ],
)
def test_run_refuses_bad_sizes_and_paths_before_any_work(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEID_HF_KEY", "k" * 32)
    (tmp_path / "in.jsonl").write_text('{"text": "Call Ann Lee."}\n')
    try:
        code = main(["run", "in.jsonl", "out.jsonl", "--seed", "1", *argv])
    except SystemExit as exc:  # argparse's own refusal of a flag's value
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # nothing written


def test_a_path_the_system_refuses_is_one_error_line(tmp_path, capsys):
    """An OSError of a path the user gave (a folder that is not there, a file where a folder is needed)."""
    (tmp_path / "afile").write_text("")
    assert main(["models", "--json", str(tmp_path / "nodir" / "x.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("deid-hf: error: No such file or directory: ") and err.count("\n") == 1
    assert main(["models", "--json", str(tmp_path / "afile" / "x.json")]) == 2
    assert capsys.readouterr().err.startswith("deid-hf: error: Not a directory: ")
