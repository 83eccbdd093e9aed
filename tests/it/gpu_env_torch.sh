#!/usr/bin/env bash
# gpu_env.sh gives the PyTorch peer its own environment (issue 28 item 10),
# without a GPU: with a stand-in CUDA_HOME (nvcc, cudnn.h, nccl.h) and a
# python whose site-packages hold nvidia wheels, ExaDL's LD_LIBRARY_PATH gets
# the toolkit's and the wheels' directories, while the peer (gpu_env_torch,
# as bench_gpu.sh runs it) gets the LD_LIBRARY_PATH from before, nothing
# added, or none where there was none; gpu_env_print says both.
set -u
# a folder of its own under EXADL_TMP: this script and gpu_module.sh / stemdl_cuda.sh /
# gpu_env_torch.sh make stand-in CUDA layouts, one of them of links to the real
# toolkit; sharing one folder, a later script wrote its empty stand-ins through those
# links into /usr/local/cuda (run by hand with one EXADL_TMP for several scripts)
T=$(mktemp -d "$EXADL_TMP/gpu_env_torch.XXXXXX") || exit 1
env_sh=benchmarks/stemdl/tools/gpu_env.sh
CU=$T/cuda
SP=$T/site
mkdir -p "$CU/bin" "$CU/include" "$CU/lib64" "$SP/nvidia/cudnn/lib" "$SP/nvidia/nccl/lib"
printf '#!/bin/sh\nexit 0\n' >"$CU/bin/nvcc"
printf '#!/bin/sh\necho "%s"\n' "$SP" >"$T/python"
chmod +x "$CU/bin/nvcc" "$T/python"
: >"$CU/include/cudnn.h"
: >"$CU/include/nccl.h"

# LD_LIBRARY_PATH set before: the peer gets exactly it
out=$(env -u CUDNN_HOME -u NCCL_HOME -u DEBS -u EXADL_TORCH_ENV_SAVED CUDA_HOME="$CU" PYTHON="$T/python" \
      LD_LIBRARY_PATH=/orig/lib bash -c ". $env_sh && gpu_env_print && gpu_env_torch printenv LD_LIBRARY_PATH" 2>&1)
ours=$(echo "$out" | sed -n 's/^exadl LD_LIBRARY_PATH=//p')
theirs=$(echo "$out" | sed -n 's/^torch LD_LIBRARY_PATH=//p')
ran=$(echo "$out" | tail -n 1)
if [[ "$ours" == "$CU/lib:$CU/lib:$CU/lib64:"*"$SP/nvidia/"*"/orig/lib" ]] && [ "$theirs" = /orig/lib ] && [ "$ran" = /orig/lib ]; then
    echo "PASS: gpu_env: ExaDL gets the toolkit's and wheels' libraries, the PyTorch peer the LD_LIBRARY_PATH from before (/orig/lib, nothing added)"
else
    echo "FAIL: gpu_env: environments: $(echo "$out" | tr '\n' ' ' | head -c 500)"
fi
# none before: none for the peer; sourced twice, the first "before" holds
out=$(env -u CUDNN_HOME -u NCCL_HOME -u DEBS -u EXADL_TORCH_ENV_SAVED -u LD_LIBRARY_PATH CUDA_HOME="$CU" \
      PYTHON="$T/python" bash -c ". $env_sh && . $env_sh && gpu_env_torch sh -c 'echo \${LD_LIBRARY_PATH-unset}'" 2>&1)
if [ "$out" = unset ]; then
    echo "PASS: gpu_env: no LD_LIBRARY_PATH before, none for the PyTorch peer (gpu_env.sh sourced twice)"
else
    echo "FAIL: gpu_env: no LD_LIBRARY_PATH before: the peer got '$out'"
fi
# the peers are started through gpu_env_torch
n=$(grep -c 'gpu_env_torch "\$py" benchmarks/' benchmarks/stemdl/tools/bench_gpu.sh benchmarks/cosmoflow/tools/bench_gpu.sh | awk -F: '{ s += $2 } END { print s }')
if [ "$n" -eq 2 ]; then
    echo "PASS: gpu_env: stemdl's and cosmoflow's bench_gpu.sh start the PyTorch peer with gpu_env_torch"
else
    echo "FAIL: gpu_env: $n of 2 bench_gpu.sh start the PyTorch peer with gpu_env_torch"
fi
