# benchmarks/networks/deepcam: the climate segmentation network (DeepLabv3+ as
# MLPerf HPC's DeepCAM, issue 33, docs/climate.md), a network of the training
# runtime in a library of its own, as the FC-DenseNet: so far its synthetic
# data (cl_data); the network, and the `climate` program that trains it in
# benchmarks/climate/, come next
LIBRARIES   += deepcam
deepcam_src += $(wildcard benchmarks/networks/deepcam/*.c)
