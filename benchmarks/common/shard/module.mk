# benchmarks/common/shard: data sets as files (docs/data.md): shards in HDF5
# (Debian's libhdf5, optional: without it the hdf5 encoding is refused in one
# line) or raw binary with a checksum index, a manifest, and a prefetching
# reader thread.  MPI-free; a library of its own so that only the programs
# that read data sets link HDF5.
LIBRARIES += shard
shard_src += $(wildcard benchmarks/common/shard/*.c)
# HDF5_CFLAGS (the Makefile: -DEXADL_HDF5=0 or 1 and hdf5.h's folder) for these files only
$(BUILD)/obj/benchmarks/common/shard/%.o: CFLAGS += $(HDF5_CFLAGS)
