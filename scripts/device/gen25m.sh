#!/usr/bin/env bash
# GPU machine run: gen index at 2.5x10^7 documents (bp128, URL
# order, seed 1, every core) under /usr/bin/time -v, for the peak memory of
# the bounded second pass. From the repository root, with .device carried:
#   OUT=... bash scripts/device/gen25m.sh
# Writes $OUT/gen25m.json (gen's report) and $OUT/gen25m.time.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gen25m-out}
mkdir -p "$OUT"
W=$(mktemp -d)
{ nproc; free -g | head -2; } >"$OUT/gen25m.time"
/usr/bin/time -v timeout "${BUDGET:-570}" .device/gpusearch gen index --docs 25000000 --seed 1 --codec bp128 \
	--out "$W/g" --quiet --json >"$OUT/gen25m.json" 2>>"$OUT/gen25m.time"
echo "rc=$?" >>"$OUT/gen25m.time"
du -sb "$W/g" >>"$OUT/gen25m.time"
rm -rf "$W"
grep -E 'rc=|Maximum resident|Elapsed|seconds' "$OUT/gen25m.time" "$OUT/gen25m.json"
