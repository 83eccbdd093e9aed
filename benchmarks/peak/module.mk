# benchmarks/peak: the CPU's measured FMA peak (peak_cpu) and the bench of the
# fast path's convolutions (bench_conv); both run by stemdl/tools/bench_cpu.sh
PROGRAMS        += peak_cpu bench_conv
peak_cpu_main   := benchmarks/peak/peak_cpu.c
# the bf16 peak (peak_bf16.c): the larger of oneDNN's bf16 matmul and a loop of
# AVX512-BF16 dot products (peak_bf16_isa.c)
peak_cpu_objs   := benchmarks/peak/peak_bf16.c benchmarks/peak/peak_bf16_isa.c
peak_cpu_link    = $(CC)
peak_cpu_ldlibs  = $(DNNL_LIBS) $(SYS_LIBS)
bench_conv_main := benchmarks/peak/bench_conv.c
bench_conv_objs := benchmarks/peak/conv_blas.c
bench_conv_libs := fcdensenet train comm common
bench_conv_ldlibs = $(TRAIN_LDLIBS)
# mpiprobe: the preflight of `exadl run` and `exadl validate` (MPI start-up, hosts)
PROGRAMS        += mpiprobe
mpiprobe_main   := benchmarks/peak/mpiprobe.c
mpiprobe_libs   := comm common
mpiprobe_link    = $(CC)
mpiprobe_ldlibs  = $(MPI_LIBS) $(YAML_LIBS) $(SYS_LIBS)
