#!/bin/bash
# Build gem5 v24's X86 gem5.opt from a gem5 source tree you have:
#
#     make gem5 GEM5_SRC=DIR            (this script: scripts/build_gem5.sh DIR)
#     scripts/build_gem5.sh --check DIR  only check DIR; install and build nothing
#
# DIR is checked first (a gem5 tree, version 24, with what the build reads),
# then Debian's build packages are installed where missing (as root), then
# `scons build/X86/gem5.opt` runs on every core inside DIR. It ends with the
# G5NET_GEM5= line to export. Nothing of gem5's is copied into g5net.
#
# Exit status: 0 built (with --check: DIR is fine), 2 DIR is not a gem5 v24
# tree or a package is missing, otherwise scons' own status.
set -euo pipefail

WANT_MAJOR=24
TARGET=build/X86/gem5.opt
# Debian 12 packages of the build (gem5's own list, for Ubuntu, in "Building
# gem5": https://www.gem5.org/documentation/general_docs/building): scons runs
# under the system Python and needs its headers; protobuf, gperftools, HDF5,
# capstone and libpng are optional to gem5 but make the usual build.
PACKAGES="g++ m4 scons python3-dev zlib1g-dev pkg-config libprotobuf-dev protobuf-compiler
libgoogle-perftools-dev libhdf5-dev libcapstone-dev libpng-dev"

die() { echo "make gem5: $*" >&2; exit 2; }

check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
[ $# -eq 1 ] && [ -n "$1" ] || die "usage: make gem5 GEM5_SRC=DIR, DIR a gem5 v$WANT_MAJOR source tree
  (e.g. git clone --depth 1 --branch v24.0.0.1 https://github.com/gem5/gem5 DIR)"
[ -d "$1" ] || die "GEM5_SRC=$1: no such directory"
src=$(cd "$1" && pwd)

version_file="$src/src/base/version.cc"
[ -f "$version_file" ] || die "$src is not a gem5 source tree (no src/base/version.cc, where gem5 keeps its version)"
version=$(sed -n 's/.*gem5Version *= *"\([^"]*\)".*/\1/p' "$version_file" | head -n 1)
[ -n "$version" ] || die "$version_file names no gem5Version: $src is not a gem5 source tree"
[ "${version%%.*}" = "$WANT_MAJOR" ] || die "$src is gem5 $version; g5net's configs are written for gem5 v$WANT_MAJOR
  (in a git clone: git -C $src checkout v24.0.0.1)"
# A tree made by `git archive` of the whole repository stops at tests/ (blobs
# absent from some snapshots) and leaves out util/, which the build reads.
for needed in SConstruct build_opts/X86 src/arch/x86 util/cpt_upgrader.py; do
    [ -e "$src/$needed" ] || die "$src (gem5 $version) lacks $needed: an incomplete tree
  (a git archive that stopped early? archive every top-level entry but tests/)"
done
if [ $check = 1 ]; then
    echo "$src: gem5 $version, ready to build $TARGET"
    exit 0
fi

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    [ "$(id -u)" = 0 ] || die "Debian packages gem5's build needs are missing; as root: apt-get install$missing"
    echo "make gem5: installing Debian packages:$missing"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
fi

jobs=${GEM5_JOBS:-$(nproc)}
echo "make gem5: gem5 $version in $src: scons $TARGET -j$jobs (about $((180 / jobs)) minutes on $jobs cores)"
start=$(date +%s)
# gem5's default X86 configuration (build_opts/X86, Ruby included): without a
# Ruby protocol every standard-library processor refuses to be built.
# --ignore-style: no question about git style hooks; stdin closed for the same reason.
(cd "$src" && scons "$TARGET" -j"$jobs" --ignore-style </dev/null)
[ -x "$src/$TARGET" ] || die "scons finished but $src/$TARGET is not there"
echo "make gem5: built $src/$TARGET in $(( ($(date +%s) - start) / 60 )) minutes; point g5net at it:"
echo "G5NET_GEM5=$src/$TARGET"
