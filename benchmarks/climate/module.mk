# benchmarks/climate: the `climate` program, DeepCAM's DeepLabv3+
# (benchmarks/networks/deepcam/) trained on the training runtime (issue 33,
# docs/climate.md)
LIBRARIES   += climate
climate_src += $(filter-out benchmarks/climate/main.c,$(wildcard benchmarks/climate/*.c))

PROGRAMS      += climate
climate_main  := benchmarks/climate/main.c
climate_libs  := climate deepcam train comm common
climate_ldlibs = $(TRAIN_LDLIBS)
