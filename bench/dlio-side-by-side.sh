#!/usr/bin/env bash
# Opt-in, not part of any test run: DLIO itself (dlio-benchmark from PyPI,
# in a venv this script owns) and objbench ai train on the same small
# unet3d configuration, printing both AU and throughput side by side.
#
# dlio-benchmark 2.0.0 (the newest on PyPI) declares torch, tensorflow and
# nvidia-dali-cuda110; it is installed with --no-deps plus what its
# PyTorch path imports. Its PyTorch path reads files only (its S3 storage
# delegates to the framework's native I/O, which only TensorFlow has), so
# both run on a directory: DLIO on DIR/dlio, objbench on file://DIR/ob.
# And whatever the loader, its main module imports tensorflow (through
# profiler/profiler_factory.py's tf_profiler) and its PyTorch loader
# torch: OBJBENCH_DLIO_FULL=1 installs both from PyPI (the CUDA builds and
# their nvidia packages, several GB); without them the script says which
# import fails and stops (exit 3). bench/README.md says what happened here.
# Usage: bench/dlio-side-by-side.sh [ACCELERATORS] [FILES] [EPOCHS] [COMPUTE-S]
set -euo pipefail
cd "$(dirname "$0")/.."
accels=${1:-2}
files=${2:-56}
epochs=${3:-2}
compute=${4:-0.323}
venv=${OBJBENCH_DLIO_VENV:-$HOME/.cache/objbench/dlio-venv}
if [ ! -x "$venv/bin/dlio_benchmark" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --no-deps dlio-benchmark==2.0.0
  "$venv/bin/pip" install -q hydra-core==1.3.2 omegaconf numpy pandas psutil PyYAML h5py Pillow mpi4py pydftracer==1.0.2
fi
if [ "${OBJBENCH_DLIO_FULL:-}" = 1 ]; then
  "$venv/bin/pip" install -q torch tensorflow
fi
for m in dlio_benchmark.main torch; do
  if ! err=$("$venv/bin/python" -c "import $m" 2>&1); then
    echo "DLIO cannot run: import $m fails in $venv: $(tail -1 <<<"$err") (OBJBENCH_DLIO_FULL=1 installs torch and tensorflow from PyPI, several GB)" >&2
    exit 3
  fi
done
go build -o bin/objbench ./cmd/objbench
dir=$(mktemp -d "${TMPDIR:-/tmp}/dlio-side.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# 40 MB samples instead of 147 MB: the same loader, a smaller disk.
rec=40000000
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --oversubscribe -np "$accels" "$venv/bin/dlio_benchmark" workload=unet3d_h100 \
  ++workload.workflow.generate_data=True ++workload.workflow.train=True ++workload.workflow.checkpoint=False \
  ++workload.dataset.data_folder="$dir/dlio" ++workload.dataset.num_files_train="$files" \
  ++workload.dataset.record_length_bytes=$rec ++workload.dataset.record_length_bytes_stdev=0 \
  ++workload.train.epochs="$epochs" ++workload.train.computation_time="$compute" \
  ++hydra.run.dir="$dir/out" >"$dir/dlio.log" 2>&1 || { tail -20 "$dir/dlio.log"; exit 1; }
./bin/objbench ai train --model unet3d --accelerator h100 --accelerators "$accels" --epochs "$epochs" \
  --dataset-size $((files * rec)) --compute-time "${compute}s" --target "file://$dir/ob" --generate \
  -q -o "$dir/ob.json" >"$dir/ob.log" 2>&1 || { tail -20 "$dir/ob.log"; exit 1; }
python3 - "$dir/out/summary.json" "$dir/ob.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["metric"]
r = json.load(open(sys.argv[2]))
au, sps = [], []
for st in r["steps"]:
    for t in st.get("training") or []:
        ls = t["loaders"]
        au.append(100 * sum(l["compute_ns"] / l["wall_ns"] for l in ls if l["wall_ns"]) / len(ls))
        sps.append(sum((l["steps"] - 1) * t["batch_size"] / (l["wall_ns"] / 1e9) for l in ls if l["wall_ns"]))
print(f"{'':10} {'AU % by epoch':32} {'samples/s by epoch'}")
print(f"{'DLIO':10} {' '.join(f'{x:.1f}' for x in d['train_au_percentage']):32} {' '.join(f'{x:.1f}' for x in d['train_throughput_samples_per_second'])}")
print(f"{'objbench':10} {' '.join(f'{x:.1f}' for x in au):32} {' '.join(f'{x:.1f}' for x in sps)}")
PY
