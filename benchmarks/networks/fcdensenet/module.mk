# benchmarks/networks/fcdensenet: the FC-DenseNet of the 2019 STEMDL runs
# (docs/stemdl.md "The network"), a network of the training runtime; a library
# of its own because stemdl trains it, skeleton replays its step, bench_conv
# times its convolutions and orchestration negotiates its gradient tensors
LIBRARIES      += fcdensenet
fcdensenet_src += $(wildcard benchmarks/networks/fcdensenet/*.c)
