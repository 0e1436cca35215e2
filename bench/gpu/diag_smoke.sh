TL=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib
export BIN=$PWD/.devcarry/x LD_LIBRARY_PATH=$PWD/.devcarry/x/lib:$TL TRITONRL_RUNNER_DIR=$PWD/python TRITONRL_PYTHON=$(command -v python3)
D=$OUT/diag.txt
nvidia-smi --query-gpu=persistence_mode,clocks.sm,clocks.max.sm,utilization.gpu --format=csv >>$D 2>&1
nvidia-smi --query-compute-apps=pid,used_memory --format=csv >>$D 2>&1
nproc >>$D
{ /usr/bin/time -f "torch cuda init %e s" python3 -c "import torch; torch.zeros(1,device='cuda'); torch.cuda.synchronize()"; } >>$D 2>&1
{ /usr/bin/time -f "cuInit probe %e s" python3 python/tritonrl_runner/sandbox_probe.py cuda 4>>$D; } >>$D 2>&1
$BIN/tritonrl corpus tests/corpus/legit --out /tmp/legit.jsonl 2>/dev/null
grep '"legit/relu_basic"' /tmp/legit.jsonl > /tmp/smoke.jsonl
for mode in full private_proc none; do
  extra=""; [[ $mode == none ]] && extra=--no-sandbox
  off=""; [[ $mode == private_proc ]] && off=private_proc
  s=$(date +%s.%N)
  TRITONRL_SANDBOX_OFF=$off timeout 150 $BIN/tritonrl eval --device cuda --tasks tasks --samples /tmp/smoke.jsonl --json --no-cache --timing-trials 30 $extra > $OUT/s_$mode.json 2>>$OUT/eval.err
  echo "mode $mode rc $? wall $(echo "$(date +%s.%N) - $s" | bc) s" >> $D
done
