#!/usr/bin/env bash
# etsb set-up: everything a fresh Debian machine needs, idempotent.
#
#   scripts/setup.sh               what the main job needs (scripts/main.sh): the
#                                  compilers, ninja, Go with starlark-go, the Arm
#                                  bare-metal toolchain and QEMU, and the .venv (etsb,
#                                  its pinned dependencies, the ExecuTorch runtime wheel)
#   scripts/setup.sh --export-env  the same, plus what the test suite needs
#                                  (scripts/test.sh): .venv-export (torch and the full
#                                  ExecuTorch, to export test models and run
#                                  ExecuTorch's own tools as peers), the other
#                                  toolchains and servers, Bazel, buildifier
#
# A second run checks stamps and returns in about a second. When something cannot
# be installed it says what, and how to install it by hand, and exits non-zero.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXECUTORCH_VERSION=1.5.1
# What the main job needs: compilers and build tools for kernels and generated
# code, Go with the starlark-go sources for the BUILD-file evaluator, and the
# Arm bare-metal toolchain with newlib and qemu-system-arm, which build and run
# the `--platform=cortex-m55` binary it ships.
DEBIAN_PACKAGES=(g++ ninja-build golang-go golang-starlark-dev
                 gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm)
# What the tests need beside it: CMake; clang with libFuzzer and the sanitizers
# builds the fuzz targets (scripts/fuzz.sh); chromium renders `etsb size --html`
# pages headless; nginx serves Bazel's HTTP remote cache in the Bazel 7 tests;
# GoogleTest and GoogleMock compile ExecuTorch's kernel test suite against
# etsb's generated headers; Debian's aarch64 cross compiler and qemu-user build
# and run `--platform=aarch64-linux` binaries; graphviz draws `etsb graph`;
# ccache lets the suite's many workspaces share their compiles (scripts/test.sh);
# strace counts the thread pool's wake-ups (tests/test_threads.py).
TEST_DEBIAN_PACKAGES=(cmake graphviz clang libclang-rt-dev chromium nginx libgtest-dev libgmock-dev ccache
                      g++-aarch64-linux-gnu qemu-user strace)

say() { echo "etsb setup: $*" >&2; }
die() { say "error: $*"; exit 1; }

want_export_env=0
for arg in "$@"; do
  case "$arg" in
    --export-env) want_export_env=1 ;;
    -h|--help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$arg' (see --help)" ;;
  esac
done

# Run a command as root: directly when we are root, else through password-less sudo.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo -n "$@"
  else return 1
  fi
}

missing_debian_packages() {
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
      || printf '%s ' "$package"
  done
}

install_debian_packages() {
  local missing
  missing="$(missing_debian_packages "$@")"
  [ -n "$missing" ] || return 0
  local by_hand="install them by hand: sudo apt-get install $missing"
  command -v apt-get >/dev/null 2>&1 || die "missing packages: $missing(no apt-get here); $by_hand"
  local log
  log="$(mktemp -t etsb-apt.XXXXXX)"
  say "installing Debian packages: $missing"
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q)
  # shellcheck disable=SC2086
  if ! as_root "${apt[@]}" install --no-install-recommends $missing >"$log" 2>&1; then
    # A fresh machine may have no package lists yet.
    # shellcheck disable=SC2086
    as_root "${apt[@]}" update >>"$log" 2>&1 \
      && as_root "${apt[@]}" install --no-install-recommends $missing >>"$log" 2>&1 \
      || die "could not install: $missing(log: $log); $by_hand"
  fi
  rm -f "$log"
}

find_python() {
  local candidate
  for candidate in python3.11 python3.12 python3.10 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 \
      && "$candidate" -c 'import sys, venv, ensurepip; sys.exit(not ((3, 10) <= sys.version_info[:2] <= (3, 13)))' 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

# ensure_venv DIR REQUIREMENTS [editable]: create or refresh a virtual environment.
# The stamp records what it was built from; an unchanged stamp means nothing to do.
ensure_venv() {
  local dir="$1" requirements="$2" editable="${3:-}"
  local stamp_file="$dir/.etsb-setup-stamp" stamp
  stamp="$( { cat "$requirements"; echo "executorch==$EXECUTORCH_VERSION";
              [ -z "$editable" ] || cat "$ROOT/pyproject.toml"; } | sha256sum | cut -d' ' -f1)"
  if [ -x "$dir/bin/python" ] && [ "$(cat "$stamp_file" 2>/dev/null)" = "$stamp" ] \
    && "$dir/bin/python" -c '' 2>/dev/null; then
    return 0
  fi
  local python
  if ! python="$(find_python)"; then
    install_debian_packages python3 python3-venv
    python="$(find_python)" || die "no Python 3.10-3.13 with the venv module; install one by hand: sudo apt-get install python3 python3-venv"
  fi
  local log
  log="$(mktemp -t etsb-pip.XXXXXX)"
  say "preparing ${dir#"$ROOT"/} (log: $log)"
  rm -f "$stamp_file"
  [ -x "$dir/bin/python" ] || "$python" -m venv "$dir" >>"$log" 2>&1 \
    || die "could not create $dir with $python (log: $log); install python3-venv by hand: sudo apt-get install python3-venv"
  local pip=("$dir/bin/python" -m pip --disable-pip-version-check -q)
  "${pip[@]}" install -r "$requirements" >>"$log" 2>&1 \
    || die "pip could not install $requirements (log: $log); try by hand: $dir/bin/pip install -r $requirements"
  # The wheel's own dependencies (torch among them) are not wanted: runtime and headers only.
  "${pip[@]}" install --no-deps "executorch==$EXECUTORCH_VERSION" >>"$log" 2>&1 \
    || die "pip could not install executorch==$EXECUTORCH_VERSION (log: $log); try by hand: $dir/bin/pip install --no-deps executorch==$EXECUTORCH_VERSION"
  if [ -n "$editable" ]; then
    "${pip[@]}" install --no-deps --no-build-isolation -e "$ROOT" >>"$log" 2>&1 \
      || die "pip could not install etsb itself (log: $log)"
  fi
  echo "$stamp" >"$stamp_file"
  rm -f "$log"
}

install_debian_packages "${DEBIAN_PACKAGES[@]}"
if [ "$want_export_env" = 1 ]; then
  install_debian_packages "${TEST_DEBIAN_PACKAGES[@]}"
  # Bazel, for tests/test_bazel.py (Debian's bazel-bootstrap is Bazel 4.2.3; see
  # docs/bazel.md). Any bazel already on PATH is kept.
  command -v bazel >/dev/null 2>&1 || install_debian_packages bazel-bootstrap
fi
ensure_venv "$ROOT/.venv" "$ROOT/scripts/requirements.txt" editable
# etsb's own modules compiled now, as pip compiles an installed wheel's: every
# `etsb` run and every build action (python tools/selective_build/__main__.py)
# reads them, also in a shell that says not to write bytecode
# (PYTHONDONTWRITEBYTECODE), where each process would compile them again (a
# no-op build: ~230M instructions of Python instead of ~105M).
"$ROOT/.venv/bin/python" -m compileall -q "$ROOT/tools/selective_build" >/dev/null \
  || say "could not compile tools/selective_build (a syntax error?): etsb starts slower until it is fixed"
if [ "$want_export_env" = 1 ]; then
  ensure_venv "$ROOT/.venv-export" "$ROOT/scripts/requirements-export.txt"
  # torchvision and timm, for the real architectures of tests/models/export_real.py.
  # --no-deps keeps the pinned torch; pillow is torchvision's one other need (timm's
  # huggingface_hub and safetensors are optional and not wanted: no weights are fetched).
  # torchao is needed by ExecuTorch's XnnpackPartitioner (export_real.py --delegate xnnpack);
  # tosa-tools by the import of ExecuTorch's Cortex-M quantizer (export_cortex_m.py).
  EXPORT_MODEL_PACKAGES=(torchvision==0.28.0 timm==1.0.31 pillow==12.2.0 torchao==0.18.0 tosa-tools==2026.8.0)
  if ! "$ROOT/.venv-export/bin/python" - "${EXPORT_MODEL_PACKAGES[@]}" 2>/dev/null <<'PY'
import sys
from importlib.metadata import version
sys.exit(any(version(name) != want for name, want in (arg.split("==") for arg in sys.argv[1:])))
PY
  then
    say "installing ${EXPORT_MODEL_PACKAGES[*]} into .venv-export"
    "$ROOT/.venv-export/bin/python" -m pip --disable-pip-version-check -q install --no-deps \
      "${EXPORT_MODEL_PACKAGES[@]}" >&2 \
      || die "pip could not install ${EXPORT_MODEL_PACKAGES[*]}; try by hand: $ROOT/.venv-export/bin/pip install --no-deps ${EXPORT_MODEL_PACKAGES[*]}"
  fi
fi

# The BUILD-file evaluator (tools/starlark), rebuilt when a Go source is newer
# than the binary. Offline, against Debian's starlark-go; the build cache lives
# in etsb-out so that it works for any user.
build_starlark_evaluator() {
  local src="$ROOT/tools/starlark" bin="$ROOT/etsb-out/tools/etsb-starlark" cache="$ROOT/etsb-out/go-cache"
  if [ -x "$bin" ] && [ -z "$(find "$src" -maxdepth 1 -name '*.go' ! -name '*_test.go' -newer "$bin" -print -quit)" ]; then
    return 0
  fi
  say "building etsb-out/tools/etsb-starlark"
  mkdir -p "$ROOT/etsb-out/tools" "$cache"
  (cd "$src" && GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOPROXY=off GOCACHE="$cache" \
    go build -o "$bin.tmp" .) && mv -f "$bin.tmp" "$bin" \
    || die "could not build the Starlark evaluator; try by hand: cd tools/starlark && GOPATH=/usr/share/gocode GO111MODULE=off go build -o ../../etsb-out/tools/etsb-starlark ."
}
build_starlark_evaluator

# buildifier 8.2.1 (the npm package @bazel/buildifier carries its binaries),
# which tests/test_buildifier.py runs over every BUILD, .bzl and MODULE file:
# `npm pack` fetches the package's tarball through npm's own configuration,
# and the binary for this machine is checked against the hash pinned here.
BUILDIFIER_VERSION=8.2.1
BUILDIFIER_SHA256_X86_64=6ceb7b0ab7cf66fceccc56a027d21d9cc557a7f34af37d2101edb56b92fcfa1a
BUILDIFIER_SHA256_AARCH64=3baa1cf7eb41d51f462fdd1fff3a6a4d81d757275d05b2dd5f48671284e9a1a5
install_buildifier() {
  local bin="$ROOT/etsb-out/tools/buildifier-$BUILDIFIER_VERSION" member sha
  [ -x "$bin" ] && return
  case "$(uname -m)" in
    x86_64) member=buildifier-linux_amd64; sha=$BUILDIFIER_SHA256_X86_64 ;;
    aarch64) member=buildifier-linux_arm64; sha=$BUILDIFIER_SHA256_AARCH64 ;;
    *) say "no buildifier for $(uname -m): tests/test_buildifier.py will fail"; return ;;
  esac
  command -v npm >/dev/null 2>&1 || install_debian_packages npm
  local package="@bazel/buildifier@$BUILDIFIER_VERSION" work
  say "fetching buildifier $BUILDIFIER_VERSION with npm pack"
  work="$(mktemp -d -t etsb-buildifier.XXXXXX)"
  (cd "$work" && npm pack --silent "$package" >/dev/null 2>&1) \
    && tar -xzf "$work"/*.tgz -C "$work" "package/$member" \
    || { rm -rf "$work"; die "could not fetch buildifier; try by hand: npm pack $package"; }
  if [ "$(sha256sum "$work/package/$member" | cut -d' ' -f1)" != "$sha" ]; then
    rm -rf "$work"
    die "$package: $member does not have the pinned sha256 $sha"
  fi
  mkdir -p "$(dirname "$bin")"
  install -m 755 "$work/package/$member" "$bin.tmp" && mv -f "$bin.tmp" "$bin"
  rm -rf "$work"
}
# Bazel's own remote execution server, which tests/test_remote_execution.py and
# bench/bench_bazel.py run on localhost: compiled from Debian's
# bazel-bootstrap-source (scripts/remote_worker.sh; once per Bazel release).
install_remote_worker() {
  if [ -f /usr/share/bazel/A-server.jar ]; then
    install_debian_packages bazel-bootstrap-source
    bash "$ROOT/scripts/remote_worker.sh" build \
      || die "could not build Bazel's remote worker; try by hand: scripts/remote_worker.sh build"
  else
    say "no Debian Bazel: tests/test_remote_execution.py will fail (install bazel-bootstrap)"
  fi
}

# The tests' tools: not the main job's.
if [ "$want_export_env" = 1 ]; then
  install_buildifier
  install_remote_worker
fi

# What later steps rely on, checked every time (cheap).
"$ROOT/.venv/bin/python" - <<'PY' || die "the .venv is incomplete; delete it and run scripts/setup.sh again"
import sys, yaml, flatbuffers, executorch, os
assert hasattr(yaml, "CLoader"), "PyYAML was built without libyaml"
lib = os.path.join(executorch.__path__[0], "lib", "libexecutorch.so")
assert os.path.exists(lib), lib
PY
[ -x "$ROOT/.venv/bin/etsb" ] || die "the etsb command is missing from .venv/bin"
