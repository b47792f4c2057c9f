#!/bin/sh
# Precheck of specs/cann-samples.spec.ts: exit 2 (a Jest skip, this line its reason) when there is no
# CANN source tree to build the samples from.
if [ -z "${CANN_RUNTIME_SRC:-}" ]; then
  echo "CANN_RUNTIME_SRC is not set: set it to a hicann/runtime checkout (or its git directory) to run CANN's samples unchanged"
  exit 2
fi
if [ ! -d "$CANN_RUNTIME_SRC/example" ] && ! git --git-dir="$CANN_RUNTIME_SRC" cat-file -e HEAD:example 2>/dev/null; then
  echo "CANN_RUNTIME_SRC=$CANN_RUNTIME_SRC has no example/ folder: it must be a hicann/runtime checkout or its git directory"
  exit 2
fi
exit 0
