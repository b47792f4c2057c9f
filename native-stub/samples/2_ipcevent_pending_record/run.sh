#!/usr/bin/env bash
# Runs the pending-record variant: proc_a N on device 0 and N consumers
# (default 3) on devices 1..N, in a fresh temp directory; prints every log
# (with CLOCK_MONOTONIC timestamps) and every exit code.
set -u
n="${1:-3}"
here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/../../${BUILD_DIR:-build}/samples/2_ipcevent_pending_record"
[ -x "$bin/proc_a" ] || { echo "missing $bin/proc_a: run 'make -C native-stub' first" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/2_ipcevent.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$bin/proc_a" "$n" >producer.log 2>&1 & pids=($!)
for i in $(seq 1 "$n"); do "$bin/proc_b" "$i" "$i" >"consumer_$i.log" 2>&1 & pids+=($!); done
failed=0
for k in "${!pids[@]}"; do
  wait "${pids[$k]}"; rc=$?
  [ "$k" -eq 0 ] && who=producer || who="consumer $k"
  echo "$who exit $rc"; [ "$rc" -eq 0 ] || failed=1
done
cat producer.log consumer_*.log
[ "$failed" -eq 0 ] && grep -q "finished successfully" producer.log
