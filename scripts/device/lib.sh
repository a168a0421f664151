# Shared steps of the GPU machine scripts; source it from the repository
# root with OUT, NVCC and R (the run's scratch directory) set, and t0, LOG
# and BUDGET for stamp and tmo.

# stamp prints its arguments after the seconds since $t0 (the run's
# start) and appends the line to $LOG; tmo N prints N or the seconds left
# of the run's $BUDGET (at least 5), whichever is smaller: a step's
# timeout.
# unpack_device unpacks what the carry brought packed: .device/*.gz (the
# binaries, made executable) and .device/corpora/*.tgz or *.tar.xz (the
# compressed corpora, each into its directory).
unpack_device() {
	local z
	for z in .device/*.gz; do [ -f "$z" ] && gunzip -f "$z" && chmod +x "${z%.gz}"; done
	for z in .device/corpora/*.tgz .device/corpora/*.tar.xz; do [ -f "$z" ] && tar xf "$z" -C .device/corpora && rm "$z"; done
	return 0
}

stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$LOG"; }
tmo() {
	local left=$((BUDGET - ($(date +%s) - t0)))
	[ $left -lt 5 ] && left=5
	echo $(($1 < left ? $1 : left))
}

# KERNEL_SOURCES are the module's kernel sources. Their names are distinct:
# GPUSEARCH_PTX_DIR is one directory, from which each package loads
# <name>.ptx.
KERNEL_SOURCES="gpu/kernels/*.cu analytics/gpu/kernels/*.cu"

# GPU_TESTS are the GPU test binaries (make device) and the package
# directory each runs from, binary:directory.
GPU_TESTS="gpu.test:gpu analytics-gpu.test:analytics/gpu cuda.test:internal/cuda"

# fresh_ptx DIR compiles every kernel source to DIR/<name>.ptx (as make
# ptx, with the source-sha256 header), logging to $R/nvcc.log; it fails if
# any source did not compile.
fresh_ptx() {
	local cu rc=0
	mkdir -p "$1"
	for cu in $KERNEL_SOURCES; do
		NVCC=$NVCC timeout 120 sh gpu/kernels/mkptx.sh "$cu" "$1/$(basename "$cu" .cu).ptx" >>"$R/nvcc.log" 2>&1 ||
			{ rc=1; echo "ptx: $cu failed (see nvcc.log)"; }
	done
	return $rc
}

# gpu_tests runs every GPU test binary, each from its package directory,
# into $R/test-<binary without .test>.log, and prints a verdict line per
# binary. TEST_TIMEOUT (200 s) bounds each binary. It fails if a binary
# is missing or failed.
gpu_tests() {
	local t bin dir log rc all=0 root=$PWD tmo=${TEST_TIMEOUT:-200}
	for t in $GPU_TESTS; do
		bin=${t%%:*} dir=${t#*:}
		log=$R/test-${bin%.test}.log
		if [ ! -x ".device/$bin" ]; then
			echo "$bin: missing (make device)"
			all=1
			continue
		fi
		(cd "$dir" && timeout "$tmo" "$root/.device/$bin" -test.v -test.timeout "$((tmo - 5))s") >"$log" 2>&1
		rc=$?
		[ $rc -eq 0 ] || all=1
		echo "$bin rc=$rc: $(grep -c -- '^--- PASS' "$log") passed, $(grep -c -- '^--- FAIL' "$log") failed," \
			"$(grep -c -- '^--- SKIP' "$log") skipped$(grep -- '^--- FAIL' "$log" | sed 's/^--- FAIL: / /; s/ (.*//' | tr -d '\n')"
	done
	return $all
}

# fresh_ptx_and_tests compiles every kernel source to PTX in a scratch
# directory that the binaries then load (GPUSEARCH_PTX_DIR), copies the
# PTX to $OUT to be committed, and runs every GPU test binary on it
# (gpu_tests), with a verdict line per binary; it fails as gpu_tests does.
# If a source does not compile, everything runs on the binaries' embedded
# PTX instead.
fresh_ptx_and_tests() {
	local ptx
	ptx=$(mktemp -d)
	{ nvidia-smi -L; nproc; "$NVCC" --version | tail -1; } >"$R/machine.txt" 2>&1
	if fresh_ptx "$ptx"; then
		cp "$ptx"/*.ptx "$OUT/"
		export GPUSEARCH_PTX_DIR=$ptx
	else
		echo "ptx: not all sources compiled; the embedded PTX is used"
	fi
	gpu_tests
}

# scheduling_set writes the scheduling runs' machine description, index
# and queries, with B (the gpusearch binary), R, W (a scratch directory)
# and LOG set: $W/s is 2x10^6 documents (gpu-bp256, seed 2), and its 600
# queries (seed 3) are split into $W/fit.txt (the first 400) and
# $W/load.txt (the last 200).
scheduling_set() {
	{ nvidia-smi -L; nproc; lscpu; } >"$R/machine.txt" 2>&1
	$B gen index --docs 2000000 --seed 2 --codec gpu-bp256 --out "$W/s" --quiet --json >"$R/gen.json" 2>>"$LOG"
	$B gen queries --index "$W/s" --n 600 --seed 3 --out "$W/q.txt" 2>>"$LOG"
	head -400 "$W/q.txt" >"$W/fit.txt"
	tail -200 "$W/q.txt" >"$W/load.txt"
}
