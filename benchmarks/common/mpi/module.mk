# benchmarks/common/mpi: the MPI communicator and orchestration primitives
COMM_SRC += $(wildcard benchmarks/common/mpi/*.c)
