#!/usr/bin/env bash
# Build the runner's fuzz targets (clang, libFuzzer, AddressSanitizer, UBSan)
# and run one of them over its seed corpus.
#
#   scripts/fuzz.sh TARGET [libFuzzer options...]   run TARGET (npy or program)
#   scripts/fuzz.sh --build                         only build them
#
# e.g. scripts/fuzz.sh program -max_total_time=600 for ten minutes. The seeds
# are tests/fuzz/TARGET/ (checked in: add an input there when it found a bug)
# and, for program, the corpus models; new inputs libFuzzer finds go to
# etsb-out/fuzz/corpus/TARGET/, a crashing input to etsb-out/fuzz/ (FUZZ_OUT
# overrides etsb-out/fuzz). The build, which also makes kernel_checks (the
# kernel checks under the same sanitizers), is in etsb-out/fuzz/build
# (BUILD_DIR overrides it). Exit status: libFuzzer's (0: no finding).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${FUZZ_OUT:-$ROOT/etsb-out/fuzz}"
BUILD_DIR="${BUILD_DIR:-$OUT/build}"

say() { echo "etsb fuzz: $*" >&2; }
die() { say "error: $*"; exit 2; }

target="${1:-}"
case "$target" in
  npy|program|--build) shift ;;
  -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "the first argument is npy, program or --build, not '$target' (see --help)" ;;
esac

mkdir -p "$(dirname "$BUILD_DIR")"
command -v clang++ >/dev/null 2>&1 || die "clang++ is missing: run scripts/setup.sh (it installs clang and libclang-rt-dev)"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  CXX=clang++ cmake -G Ninja -S "$ROOT/tools/runner/fuzz" -B "$BUILD_DIR" -DETSB_PYTHON="$ROOT/.venv/bin/python" \
    >"$BUILD_DIR.configure.log" 2>&1 || { cat "$BUILD_DIR.configure.log" >&2; die "configuring the fuzz targets failed"; }
fi
cmake --build "$BUILD_DIR" >"$BUILD_DIR.log" 2>&1 || { tail -50 "$BUILD_DIR.log" >&2; die "building the fuzz targets failed"; }
[ "$target" = --build ] && exit 0

corpus="$OUT/corpus/$target"
mkdir -p "$corpus"
seeds=("$ROOT/tests/fuzz/$target")
if [ "$target" = program ]; then
  # The corpus models are seeds too; libFuzzer reads every file of a seed directory.
  mkdir -p "$OUT/models"
  cp "$ROOT"/tests/models/*/*.pte "$OUT/models/"
  seeds+=("$OUT/models")
fi
# Outputs of the runner go to a temporary directory of the target's own; its
# refusals (on stderr) are muted, libFuzzer's and the sanitizers' reports are not.
cd "$OUT"
exec "$BUILD_DIR/${target}_fuzzer" -close_fd_mask=2 -artifact_prefix="$OUT/" "$@" "$corpus" "${seeds[@]}"
