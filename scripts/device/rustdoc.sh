#!/usr/bin/env bash
# GPU machine run for the GPU engine on a real index: Debian's rust-doc HTML
# (32,108 pages), indexed on the dev box into .device/rustidx with
#   gpusearch index --codec gpu-bp256 --out .device/rustidx /usr/share/doc/rust-doc/html
# (the largest real index at hand that fits the device tool's 64 MiB
# carry), and examples/queries.txt. From the repository root, with .device
# carried (`make device` too):
#   OUT=... bash scripts/device/rustdoc.sh
# bench gpu queries in AND and OR mode at k 10 against exhaustive, bmw and
# daat on one core, batches of 1 to 128; $OUT gets rustdoc.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/rustdoc-out}
R=$(mktemp -d)
mkdir -p "$OUT"
{ nvidia-smi -L; nproc; } >"$R/machine.txt" 2>&1
timeout 300 .device/gpusearch bench gpu queries --index .device/rustidx --queries examples/queries.txt --mode and,or --k 10 \
	--cpu exhaustive,bmw,daat --batch 1,8,32,128 --min-time 1s --json >"$R/bench-gpu-queries.json" 2>"$R/bench.log"
echo "rc=$?"
tail -30 "$R/bench.log"
tar czf "$OUT/rustdoc.tgz" -C "$R" .
rm -rf "$R"
