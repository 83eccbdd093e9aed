# benchmarks/common/mpi: the MPI communicator and orchestration primitives
LIBRARIES += comm
comm_src  += $(wildcard benchmarks/common/mpi/*.c)
