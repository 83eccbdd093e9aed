#!/usr/bin/env bash
# gpu_debs.sh DIR: download, on a Debian 12 machine with apt, the Debian
# packages that stemdl needs besides CUDA (Open MPI, libyaml, OpenBLAS,
# oneDNN; GNU make to build with) into DIR, to carry to a GPU machine that lacks them and unpack
# there with `dpkg -x` (bench_gpu.sh does: DEBS=DIR).  Runtime libraries come
# with their library dependencies, but not the base system every Linux has
# (glibc, libstdc++, zlib, OpenSSL, ...): those stay the machine's own.
set -euo pipefail
dir=${1:?usage: gpu_debs.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# what stemdl links and runs with, and the headers to build it
runtime="libopenmpi3 openmpi-bin openmpi-common libyaml-0-2 libopenblas0-pthread libdnnl2"
dev="libopenmpi-dev libyaml-dev libopenblas-dev libopenblas-pthread-dev libdnnl-dev"
# GNU make, should the GPU machine's image lack it (gpu_env.sh puts the
# unpacked usr/bin first on PATH); its only dependency is libc6
tools="make"
# the base system: never carried
base='^(adduser|cdebconf|debconf|dpkg|gcc-[0-9]+-base|install-info|tar|passwd|readline-common|openssh-client|libc6|libgcc-s1|libstdc\+\+6|libgomp1|libatomic1|libacl1|libaudit.*|libbsd0|libmd0|libbz2-1\.0|liblzma5|libzstd1|zlib1g|libcap-ng0|libcbor.*|libfido2-.*|libcom-err2|libcrypt1|libdb5\.3|libdebian-installer.*|libedit2|libgssapi-krb5-2|libk5crypto3|libkeyutils1|libkrb5.*|libicu[0-9]+|libnewt.*|libslang2|libtextwrap1|libpam.*|libpcre2-.*|libreadline[0-9]+|libselinux1|libsemanage.*|libsepol[0-9]+|libssl[0-9]+|libtinfo[0-9]+|libudev1|libuuid1|libx11-.*|libxau6|libxcb1|libxdmcp6|libxext6|libxml2|ocl-icd-libopencl1)$'
deps=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
           --no-replaces --no-enhances $runtime | grep -v '^[ <]' | sort -u | grep -Ev "$base")
(cd "$dir" && apt-get download $deps $dev $tools)
echo "gpu_debs.sh: $(ls "$dir"/*.deb | wc -l) packages, $(du -sh "$dir" | cut -f1) in $dir"
