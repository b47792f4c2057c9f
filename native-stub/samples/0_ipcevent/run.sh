#!/usr/bin/env bash
# Runs the 0_ipcevent sample: proc_a and proc_b on device 0, in a fresh temp
# directory (never the caller's cwd). Reports both exit codes; exits non-zero
# if either failed or proc_a did not log "cleanup completed".
# BUILD_DIR selects the flavour (build, build-asan, build-tsan).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/../../${BUILD_DIR:-build}/samples/0_ipcevent"
[ -x "$bin/proc_a" ] || { echo "missing $bin/proc_a: run 'make -C native-stub' first" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/0_ipcevent.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$bin/proc_a" >a.log 2>&1 & pid_a=$!
"$bin/proc_b" >b.log 2>&1 & pid_b=$!
wait "$pid_a"; rc_a=$?
wait "$pid_b"; rc_b=$?
sed 's/^/  A| /' a.log; sed 's/^/  B| /' b.log
echo "proc_a exit $rc_a, proc_b exit $rc_b"
[ "$rc_a" -eq 0 ] && [ "$rc_b" -eq 0 ] && grep -q "cleanup completed" a.log
