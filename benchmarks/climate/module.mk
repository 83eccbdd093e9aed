# benchmarks/climate: the climate segmentation workload (issue 33,
# docs/climate.md): so far its synthetic data (model/cl_data); the network
# and the `climate` program come next
LIBRARIES   += climate
climate_src += $(wildcard benchmarks/climate/model/*.c)
