#!/usr/bin/env bash
# Runs the 1_ipcevent_multi_device sample with N consumers (default 3):
# precheck N, proc_a N on device 0, proc_b i i on devices 1..N, in a fresh
# temp directory. Every process's exit code is reported (no `| tee` hiding it).
set -u
n="${1:-3}"
here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/../../${BUILD_DIR:-build}/samples/1_ipcevent_multi_device"
[ -x "$bin/proc_a" ] || { echo "missing $bin/proc_a: run 'make -C native-stub' first" >&2; exit 1; }
"$bin/precheck" "$((n + 1))"; rc=$?
[ "$rc" -eq 2 ] && exit 0
[ "$rc" -eq 0 ] || exit "$rc"
work="$(mktemp -d "${TMPDIR:-/tmp}/1_ipcevent.XXXXXX")"
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
