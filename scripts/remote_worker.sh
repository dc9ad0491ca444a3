#!/usr/bin/env bash
# Bazel's own remote execution server: the worker in Bazel's sources
# (src/tools/remote: a CAS, an action cache and an executor behind the Remote
# Execution API), compiled from Debian's bazel-bootstrap-source against the
# classes of the Debian Bazel installed here, the same release.
#
#   scripts/remote_worker.sh build                     compile it (once per Bazel release)
#   scripts/remote_worker.sh serve PORT DIR [HIDDEN...] run it on 127.0.0.1:PORT, working in DIR
#
# `serve` runs the server in a mount namespace of its own in which each HIDDEN
# folder is an empty tmpfs, so the actions it runs cannot read them (the
# checkout: an action that reads it undeclared fails); it needs root, and
# writes the server's process id to DIR/server.pid. `build` needs root only to
# install bazel-bootstrap-source when it is missing. Inside Bazel 7's chroot:
# scripts/bazel7.sh run scripts/remote_worker.sh ...
# The jar is etsb-out/tools/bazel-remote-worker-<Debian version>.jar: the
# host's Bazel and the chroot's each have their own.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SOURCES=/usr/src/bazel-bootstrap
SERVER_JAR=/usr/share/bazel/A-server.jar
# Debian's newer Bazels name the system jars their classes need here.
DEBIAN_CLASSPATH=/usr/share/bazel/bazel_classpath_debian_depends.txt
USAGE="usage: scripts/remote_worker.sh build | serve PORT DIR [HIDDEN...]"

say() { echo "remote_worker.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# The jar for the installed Debian Bazel.
jar_path() {
  [ -f "$SERVER_JAR" ] || die "no Debian Bazel here ($SERVER_JAR): install bazel-bootstrap"
  local version
  version="$(dpkg-query -W -f '${Version}' bazel-bootstrap 2>/dev/null)" || die "bazel-bootstrap is not installed"
  echo "$ROOT/etsb-out/tools/bazel-remote-worker-${version}.jar"
}

classpath() {
  local path="$SERVER_JAR"
  if [ -f "$DEBIAN_CLASSPATH" ]; then
    path="$path:$(paste -sd: "$DEBIAN_CLASSPATH")"
  fi
  echo "$path"
}

build() {
  local jar
  jar="$(jar_path)"
  [ -s "$jar" ] && return
  if [ ! -d "$SOURCES/src/tools/remote" ]; then
    [ "$(id -u)" = 0 ] || die "bazel-bootstrap-source is missing: sudo apt-get install bazel-bootstrap-source"
    say "installing bazel-bootstrap-source"
    env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends \
      bazel-bootstrap-source >/dev/null || die "could not install bazel-bootstrap-source: apt-get install bazel-bootstrap-source"
  fi
  say "building ${jar#"$ROOT"/}"
  local classes sources
  classes="$(mktemp -d -t etsb-remote-worker.XXXXXX)"
  # The worker, and the runfiles library that newer releases' worker uses.
  sources="$(find "$SOURCES/src/tools/remote/src/main/java" "$SOURCES/tools/java/runfiles" -name '*.java' \
    -not -path '*/testing/*' 2>/dev/null | sort)"
  mkdir -p "$(dirname "$jar")"
  # shellcheck disable=SC2086  # one argument per source file
  javac -nowarn -encoding UTF-8 -proc:none -d "$classes" -cp "$(classpath)" $sources >"$classes.log" 2>&1 \
    && jar --create --file "$jar.tmp" -C "$classes" . >>"$classes.log" 2>&1 \
    && mv -f "$jar.tmp" "$jar" \
    || die "could not compile the worker (log: $classes.log)"
  rm -rf "$classes" "$classes.log"
}

serve() {
  [ $# -ge 2 ] || die "$USAGE"
  [ "$(id -u)" = 0 ] || die "serve needs root (a mount namespace); run it with sudo"
  local port="$1" dir="$2" jar
  shift 2
  jar="$(jar_path)"
  [ -s "$jar" ] || die "no $jar: run scripts/remote_worker.sh build"
  mkdir -p "$dir/work" "$dir/cas" "$dir/runfiles"
  # A copy: the jar's folder may be among the hidden ones.
  cp "$jar" "$dir/worker.jar"
  # Mounts made in the new namespace must not reach the host's: private
  # propagation, except inside a chroot (Bazel 7's), where / is no mount point
  # to make private and the enclosing namespace already is (scripts/bazel7.sh).
  local propagation=private
  mountpoint -q / || propagation=unchanged
  # Out of the hidden folders; every exec below keeps this process id, the server's.
  cd /
  echo $$ >"$dir/server.pid"
  # The inner shell gets the number of hidden folders, the folders, then the command.
  # The worker asks its runfiles for a macOS helper only; an empty folder answers.
  exec unshare --mount --propagation "$propagation" bash -c '
    count="$1"; shift
    for folder in "${@:1:count}"; do mount -t tmpfs -o size=1m etsb-hidden "$folder" || exit 1; done
    shift "$count"
    exec "$@"' bash "$#" "$@" env RUNFILES_DIR="$dir/runfiles" \
    java -Xmx1g -cp "$dir/worker.jar:$(classpath)" com.google.devtools.build.remote.worker.RemoteWorker \
    --listen_port="$port" --work_path="$dir/work" --cas_path="$dir/cas" --jobs=2
}

case "${1:-}" in
  build) build ;;
  serve) shift; serve "$@" ;;
  *) die "$USAGE" ;;
esac
