#!/usr/bin/env bash
# GPU machine run: the synthetic collection of the two-GPU measurement
# (issue 36), written directly as shards: gen index --docs $DOCS --shards
# $SHARDS --codec $CODEC (URL order, seed 1, every core) into $DATA, under
# /usr/bin/time -v. $DATA lies in the ignored .device/ tree, so that the
# next call on the same warm machine finds it: when $DATA is already a
# collection of $DOCS documents in $SHARDS shards of $CODEC that opens
# (gpusearch inspect checks every shard against the manifest), nothing
# is generated.
#
# From the repository root, with .device/gpusearch carried (carry that
# file, or .device/gpusearch.gz, not the whole .device: a carried path
# replaces its namesake on the machine, and $DATA with it):
#   OUT=$OUT bash scripts/device/gen-shards.sh
# Writes $OUT/gen-shards.json (a small summary: generated or reused,
# wall, CPU and peak RSS, gen's report), $OUT/gen-shards.time (the
# machine and /usr/bin/time -v) and $OUT/gen-shards.inspect.json.
# Defaults: DOCS=25000000 SHARDS=2 CODEC=gpu-bp256
# DATA=.device/data/g<DOCS/10^6>m-<SHARDS>; BUDGET=570 seconds for gen.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gen-shards-out}
BIN=${BIN:-.device/gpusearch}
DOCS=${DOCS:-25000000}
SHARDS=${SHARDS:-2}
CODEC=${CODEC:-gpu-bp256}
DATA=${DATA:-.device/data/g$((DOCS / 1000000))m-$SHARDS}
BUDGET=${BUDGET:-570}
mkdir -p "$OUT"
[ -x "$BIN" ] || { [ -f "$BIN.gz" ] && gunzip -f "$BIN.gz" && chmod +x "$BIN"; }
if [ ! -x "$BIN" ]; then
	echo "gen-shards: no $BIN (build it with make device, carry it)" >&2
	exit 1
fi

# opens: $DATA is the collection asked for, every shard checked.
opens() {
	"$BIN" inspect --index "$DATA" --json --top 0 >"$OUT/gen-shards.inspect.json" 2>"$OUT/gen-shards.inspect.err" &&
		[ "$(grep -m1 '"docs": ' "$OUT/gen-shards.inspect.json" | tr -dc 0-9)" = "$DOCS" ] &&
		[ "$(grep -c "\"docid_codec\": \"$CODEC\"" "$OUT/gen-shards.inspect.json")" = "$SHARDS" ] &&
		[ "$(grep -c '"first_doc": ' "$OUT/gen-shards.inspect.json")" = "$((2 * SHARDS))" ]
}

{ date -u +%FT%TZ; nproc; free -g | head -2; df -h "$(dirname "$DATA")" 2>/dev/null | tail -1; } >"$OUT/gen-shards.time"
t0=$(date +%s.%N)
if opens; then
	status=reused rc=0
	echo "gen-shards: $DATA is already the collection: not generated" | tee -a "$OUT/gen-shards.time"
	echo '{}' >"$OUT/gen-shards.gen.json"
else
	status=generated
	rm -rf "$DATA"
	mkdir -p "$(dirname "$DATA")"
	/usr/bin/time -v timeout "$BUDGET" "$BIN" gen index --docs "$DOCS" --seed 1 --shards "$SHARDS" --codec "$CODEC" \
		--out "$DATA" --quiet --json >"$OUT/gen-shards.gen.json" 2>>"$OUT/gen-shards.time"
	rc=$?
	echo "rc=$rc" >>"$OUT/gen-shards.time"
	if [ $rc -ne 0 ] || ! opens; then
		status=failed
		rm -rf "$DATA" # a half-written collection must not be reused
	fi
fi
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
bytes=$(du -sb "$DATA" 2>/dev/null | cut -f1)
echo "bytes: ${bytes:-0}" >>"$OUT/gen-shards.time"
[ -s "$OUT/gen-shards.gen.json" ] || echo '{}' >"$OUT/gen-shards.gen.json"
# field NAME: the value of /usr/bin/time -v's line NAME (empty if reused).
field() { grep -m1 "$1" "$OUT/gen-shards.time" | sed 's/.*: //'; }
{
	printf '{\n  "status": "%s", "rc": %d, "dir": "%s",\n' "$status" "$rc" "$DATA"
	printf '  "docs": %d, "shards": %d, "codec": "%s", "cpus": %d,\n' "$DOCS" "$SHARDS" "$CODEC" "$(nproc)"
	printf '  "wall_seconds": %s, "user_seconds": "%s", "system_seconds": "%s", "max_rss_kb": "%s",\n' \
		"$wall" "$(field 'User time')" "$(field 'System time')" "$(field 'Maximum resident')"
	printf '  "bytes": %d,\n' "${bytes:-0}"
	printf '  "gen": '
	cat "$OUT/gen-shards.gen.json"
	printf '}\n'
} >"$OUT/gen-shards.json"
rm -f "$OUT/gen-shards.gen.json"
grep -E 'rc=|Maximum resident|Elapsed|not generated' "$OUT/gen-shards.time"
echo "gen-shards: $status $DATA"
[ "$status" != failed ]
