# benchmarks/networks/deepcam: the climate segmentation network (DeepLabv3+ as
# MLPerf HPC's DeepCAM, issue 33, docs/climate.md), a network of the training
# runtime in a library of its own, as the FC-DenseNet: its configuration
# (cl_config), layer list and counts (cl_plan), forward and backward (cl_net),
# the runtime's network_t (cl_network) and the synthetic data (cl_data); the
# `climate` program in benchmarks/climate/ trains it
LIBRARIES   += deepcam
deepcam_src += $(wildcard benchmarks/networks/deepcam/*.c)
