#!/usr/bin/env bash
# Run 3: analytics on compressed corpora (GPU vs CPU vs plain), then the
# CPU/GPU scheduler: fit the cost model and sweep arrival rates per policy.
cd "$(dirname "$0")/../.."
F=$OUT
export OUT=/tmp/res3
mkdir -p $OUT
timeout 290 bash scripts/device/analytics.sh > $OUT/analytics-console.log 2>&1
cp $OUT/ptx/analytics.ptx $F/ 2>/dev/null
B=.device/gpusearch
W=/tmp/sched; mkdir -p $W
echo "[sched] gen index" | tee -a $OUT/sched.log
timeout 90 $B gen index --docs 2000000 --seed 2 --codec gpu-bp256 --out $W/idx --quiet --json > $OUT/sched-gen.json 2>>$OUT/sched.log
timeout 30 $B gen queries --index $W/idx --n 600 --seed 3 --out $W/q.txt 2>>$OUT/sched.log
head -400 $W/q.txt > $W/fit.txt; tail -200 $W/q.txt > $W/load.txt
echo "[sched] fit" | tee -a $OUT/sched.log
timeout 90 $B bench fit --index $W/idx --queries $W/fit.txt --mode or --repeat 3 > $OUT/sched-fit.json 2>>$OUT/sched.log
echo "[sched] load" | tee -a $OUT/sched.log
timeout 200 $B bench load --index $W/idx --queries $W/load.txt --mode or --rate 100 --deadline 500ms --policy cpu,gpu,best,hybrid --sweep --sweep-steps 3 --duration 2s --max-queries 4000 > $OUT/sched-load.json 2>>$OUT/sched.log
tail -40 $OUT/sched.log
tail -25 $OUT/analytics-console.log
tar czf $F/res3.tgz -C /tmp res3
