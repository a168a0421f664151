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

# fresh_ptx_and_tests compiles every gpu/kernels/*.cu to PTX in a scratch
# directory that the binaries then load (GPUSEARCH_PTX_DIR), copies the
# PTX to $OUT to be committed, and runs the gpu package's tests on the GPU
# into $R/gpu-test.log, printing a one-line verdict.
fresh_ptx_and_tests() {
	local ptx
	ptx=$(mktemp -d)
	{ nvidia-smi -L; nproc; "$NVCC" --version | tail -1; } >"$R/machine.txt" 2>&1
	for cu in gpu/kernels/*.cu; do
		NVCC=$NVCC sh gpu/kernels/mkptx.sh "$cu" "$ptx/$(basename "$cu" .cu).ptx" >>"$R/nvcc.log" 2>&1
	done
	cp "$ptx"/*.ptx "$OUT/"
	export GPUSEARCH_PTX_DIR=$ptx
	(cd gpu && timeout 200 "$(pwd)/../.device/gpu.test" -test.v -test.timeout 195s) >"$R/gpu-test.log" 2>&1
	echo "tests rc=$?: $(grep -c -- '^--- PASS' "$R/gpu-test.log") passed; $(grep -- '--- FAIL' "$R/gpu-test.log" | tr '\n' ' ')"
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
