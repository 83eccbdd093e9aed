#!/usr/bin/env bash
# gpu_env.sh: sourced (". benchmarks/stemdl/tools/gpu_env.sh") on a GPU machine
# to build and run ExaDL's CUDA path there; bench_gpu.sh sources it.  It sets
# and exports:
#   CUDA_HOME   /usr/local/cuda, else the directory of the nvcc on PATH
#   CUDNN_HOME, NCCL_HOME   CUDA_HOME where it has cudnn.h / nccl.h, else the
#               nvidia wheels in the site-packages of $PYTHON (python3), as
#               PyTorch installs them
#   LD_LIBRARY_PATH   cuDNN's, NCCL's, the toolkit's and every wheel's lib
#               directory (cuDNN opens its sub-libraries with dlopen)
#   DEBS=DIR (given): Debian packages (benchmarks/stemdl/tools/gpu_debs.sh
#               fetches them on a Debian 12 machine) unpacked with dpkg -x into
#               DIR/root where mpicc or yaml.h is missing; CPATH, LIBRARY_PATH,
#               LD_LIBRARY_PATH, PATH and Open MPI's OPAL_* point at them, and
#               EXADL_DEBS_ROOT names the directory
#   EXADL_MAKEVARS (bash array): the make variables to add, e.g.
#       make -j16 BUILD=build-gpu GPU=1 CUDA_HOME="$CUDA_HOME" CUDNN_HOME="$CUDNN_HOME" \
#           NCCL_HOME="$NCCL_HOME" "${EXADL_MAKEVARS[@]}"
#   EXADL_TORCH_LD_LIBRARY_PATH   the LD_LIBRARY_PATH the PyTorch peer gets:
#               the one from before gpu_env.sh (nothing added).  PyTorch finds
#               its own nvidia wheels (cuDNN, NCCL, cuBLAS) by its run paths;
#               the toolkit's, the wheels' or Debian's directories ahead of
#               them would give it other versions of those libraries.
# and defines
#   gpu_env_torch CMD...   runs CMD (the PyTorch peer) in that environment:
#               LD_LIBRARY_PATH as it was (unset if it was), no OPAL_* of the
#               unpacked Open MPI
#   gpu_env_print          prints both environments' LD_LIBRARY_PATH (a
#               dry check: tests/it/gpu_env.sh reads it)
# Returns 1 with a message on stderr when nvcc, cuDNN or NCCL is not found.
# sourced twice (bench_gpu.sh after gpu_session.sh): the first one's "before"
if [ -z "${EXADL_TORCH_ENV_SAVED:-}" ]; then
    EXADL_TORCH_ENV_SAVED=1
    EXADL_TORCH_LD_SET=${LD_LIBRARY_PATH+1}
    EXADL_TORCH_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
    export EXADL_TORCH_ENV_SAVED EXADL_TORCH_LD_SET EXADL_TORCH_LD_LIBRARY_PATH
fi
gpu_env_torch() {
    if [ -n "$EXADL_TORCH_LD_SET" ]; then
        env -u OPAL_PREFIX -u OPAL_LIBDIR -u OPAL_PKGLIBDIR -u OPAL_DATADIR -u OPAL_PKGDATADIR \
            -u OPAL_SYSCONFDIR -u OPAL_BINDIR LD_LIBRARY_PATH="$EXADL_TORCH_LD_LIBRARY_PATH" "$@"
    else
        env -u OPAL_PREFIX -u OPAL_LIBDIR -u OPAL_PKGLIBDIR -u OPAL_DATADIR -u OPAL_PKGDATADIR \
            -u OPAL_SYSCONFDIR -u OPAL_BINDIR -u LD_LIBRARY_PATH "$@"
    fi
}
gpu_env_print() {
    echo "exadl LD_LIBRARY_PATH=${LD_LIBRARY_PATH-(unset)}"
    echo "torch LD_LIBRARY_PATH=$(gpu_env_torch sh -c 'echo "${LD_LIBRARY_PATH-(unset)}"')"
}
py=${PYTHON:-python3}
EXADL_MAKEVARS=()
EXADL_DEBS_ROOT=""
site_dirs() { "$py" -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null || true; }
find_home() { # HEADER: the directory above include/HEADER, in the nvidia wheels
    local d f
    for d in $(site_dirs); do
        [ -d "$d/nvidia" ] || continue
        f=$(find "$d/nvidia" -name "$1" -path '*/include/*' 2>/dev/null | head -n 1)
        if [ -n "$f" ]; then dirname "$(dirname "$f")"; return; fi
    done
}
if [ -z "${CUDA_HOME:-}" ]; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then CUDA_HOME=/usr/local/cuda
    elif command -v nvcc >/dev/null; then CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc)")")
    else echo "gpu_env.sh: no nvcc (set CUDA_HOME)" >&2; return 1; fi
fi
if [ -z "${CUDNN_HOME:-}" ]; then
    if [ -f "$CUDA_HOME/include/cudnn.h" ]; then CUDNN_HOME=$CUDA_HOME; else CUDNN_HOME=$(find_home cudnn.h); fi
fi
if [ -z "${NCCL_HOME:-}" ]; then
    if [ -f "$CUDA_HOME/include/nccl.h" ]; then NCCL_HOME=$CUDA_HOME; else NCCL_HOME=$(find_home nccl.h); fi
fi
[ -n "$CUDNN_HOME" ] || { echo "gpu_env.sh: cuDNN not found (set CUDNN_HOME)" >&2; return 1; }
[ -n "$NCCL_HOME" ] || { echo "gpu_env.sh: NCCL not found (set NCCL_HOME)" >&2; return 1; }
export CUDA_HOME CUDNN_HOME NCCL_HOME
# cuDNN loads its sub-libraries (libcudnn_cnn, ...) and NVRTC with dlopen:
# their directories go on the loader's path, the toolkit's first
wheel_libs=$(for d in $(site_dirs); do ls -d "$d"/nvidia/*/lib 2>/dev/null || true; done | tr '\n' ':')
export LD_LIBRARY_PATH="$CUDNN_HOME/lib:$NCCL_HOME/lib:$CUDA_HOME/lib64:${wheel_libs}${LD_LIBRARY_PATH:-}"

# MPI, libyaml, OpenBLAS, oneDNN: from unpacked Debian packages where missing
if [ -n "${DEBS:-}" ] && { ! command -v mpicc >/dev/null || [ ! -f /usr/include/yaml.h ]; }; then
    R=$(cd "$DEBS" && pwd)/root
    if [ ! -d "$R" ]; then
        mkdir -p "$R"
        for f in "$DEBS"/*.deb; do dpkg -x "$f" "$R"; done
    fi
    ml=$R/usr/lib/x86_64-linux-gnu
    mpi_inc=$ml/openmpi/include
    libdirs="$ml $ml/openmpi/lib $ml/openblas-pthread"
    # the alternatives' symlinks (libopenblas.so, cblas.h) are made by maintainer
    # scripts that dpkg -x does not run: name OpenBLAS's own directories
    export CPATH="$R/usr/include:$R/usr/include/x86_64-linux-gnu:$R/usr/include/x86_64-linux-gnu/openblas-pthread${CPATH:+:$CPATH}"
    export LIBRARY_PATH="${libdirs// /:}${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="${libdirs// /:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PATH="$R/usr/bin:$PATH"
    # Open MPI moved from /usr: tell it where its pieces are (singleton runs start orted)
    export OPAL_PREFIX=$R/usr OPAL_LIBDIR=$ml/openmpi/lib OPAL_PKGLIBDIR=$ml/openmpi/lib/openmpi3 \
           OPAL_DATADIR=$R/usr/share/openmpi OPAL_PKGDATADIR=$R/usr/share/openmpi \
           OPAL_SYSCONFDIR=$R/etc/openmpi OPAL_BINDIR=$R/usr/bin
    EXADL_MAKEVARS+=("MPI_CFLAGS=-I$mpi_inc -I$mpi_inc/openmpi" "MPI_LIBS=-L$ml/openmpi/lib -Wl,-rpath,$ml/openmpi/lib -lmpi")
    EXADL_DEBS_ROOT=$R
fi
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

