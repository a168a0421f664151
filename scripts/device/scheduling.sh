#!/usr/bin/env bash
# Run 4: the CPU/GPU scheduler: fit the cost model and sweep sustained arrival rates per policy.
cd "$(dirname "$0")/../.."
F=$OUT; R=/tmp/res4; mkdir -p $R
B=.device/gpusearch; W=/tmp/sched4; mkdir -p $W
nproc > $R/machine.txt; nvidia-smi -L >> $R/machine.txt
echo "[sched] gen index $(date +%T)" | tee -a $R/sched.log
timeout 100 $B gen index --docs 2000000 --seed 2 --codec gpu-bp256 --out $W/idx --quiet --json > $R/sched-gen.json 2>>$R/sched.log
timeout 30 $B gen queries --index $W/idx --n 600 --seed 3 --out $W/q.txt 2>>$R/sched.log
head -400 $W/q.txt > $W/fit.txt; tail -200 $W/q.txt > $W/load.txt
echo "[sched] fit $(date +%T)" | tee -a $R/sched.log
timeout 90 $B bench fit --index $W/idx --queries $W/fit.txt --mode or --repeat 3 > $R/sched-fit.json 2>>$R/sched.log
grep -E 'mean_relative_error' $R/sched-fit.json | tee -a $R/sched.log
echo "[sched] load $(date +%T)" | tee -a $R/sched.log
timeout 330 $B bench load --index $W/idx --queries $W/load.txt --mode or --rate 250 --deadline 500ms --policy cpu,gpu,best,hybrid --sweep --sweep-steps 3 --duration 3s > $R/sched-load.json 2>>$R/sched.log
grep -A6 max_rate $R/sched-load.json | tee -a $R/sched.log
tar czf $F/res4.tgz -C /tmp res4
tail -60 $R/sched.log
