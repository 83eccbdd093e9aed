#!/usr/bin/env python3
"""Independent count of the CosmoFlow presets (docs/cosmoflow.md "The
network"), written from the layer lists the docs give and not from the C
code, so that tests/it/cosmo_presets.sh can hold `cosmoflow --describe`
against it.

- MLPerf HPC's CosmoFlow (mlcommons/hpc cosmoflow/configs/cosmo.yaml):
  5 blocks of a 'same' 3^3 convolution with 32 x 2^i filters and a bias,
  leaky ReLU and 2^3 max-pooling; dense 128, 64, 4 with biases.
- LBANN's CosmoFlow with mlperf=True (LLNL/lbann
  applications/physics/cosmology/cosmoflow/cosmoflow_network_architectures.py):
  int(log2(width)) - 2 blocks, min(32 x 2^i, 512) filters, the same head.
- small, tiny: ExaDL's own scaled-down wiring (cf_config.c's comments).

A convolution costs 2 k^3 c_in c_out per output voxel (padding taps
included), a dense layer 2 in out; parameters are weights plus biases.

Usage: cosmo_count.py PRESET [--layers]
Prints `parameters N`, `conv_weights N`, `dense_weights N`, `biases N`,
`forward_conv_flops_per_sample N`, `forward_dense_flops_per_sample N`,
`convention_flops_per_sample N`, `layers N`; exit 2 on a bad preset.
"""
import math
import sys


def lbann_mlperf(width):
    """LBANN's layer rule for its mlperf network: (c_out per block)."""
    blocks = int(math.log2(width)) - 2
    return [min(32 * 2**i, 512) for i in range(blocks)]


# preset: size, input channels, filters per block, kernel, dense widths
PRESETS = {
    "cosmo128": (128, 4, [32, 64, 128, 256, 512], 3, [128, 64, 4]),
    "cosmo256": (256, 4, lbann_mlperf(256), 3, [128, 64, 4]),
    "cosmo512": (512, 4, lbann_mlperf(512), 3, [128, 64, 4]),
    "small": (64, 4, [8, 16, 32, 64, 128], 3, [32, 16, 4]),
    "tiny": (16, 4, [4, 8], 3, [16, 8, 4]),
}


def count(name, show=False):
    size, cin, filters, k, dense = PRESETS[name]
    out = dict(conv_weights=0, dense_weights=0, biases=0, forward_conv_flops_per_sample=0,
               forward_dense_flops_per_sample=0, layers=0)
    ext = size
    for i, cout in enumerate(filters):
        w = k**3 * cin * cout
        f = 2 * w * ext**3
        out["conv_weights"] += w
        out["biases"] += cout
        out["forward_conv_flops_per_sample"] += f
        out["layers"] += 1
        if show:
            print(f"# conv{i} {cin}->{cout} at {ext}^3 weights {w} flops {f}")
        cin, ext = cout, ext // 2
    fin = cin * ext**3
    for j, fout in enumerate(dense):
        w = fin * fout
        out["dense_weights"] += w
        out["biases"] += fout
        out["forward_dense_flops_per_sample"] += 2 * w
        out["layers"] += 1
        if show:
            print(f"# fc{j + 1} {fin}->{fout} weights {w}")
        fin = fout
    out["parameters"] = out["conv_weights"] + out["dense_weights"] + out["biases"]
    out["convention_flops_per_sample"] = 3 * out["forward_conv_flops_per_sample"]
    return out


def main(argv):
    args = [a for a in argv if a != "--layers"]
    if len(args) != 1 or args[0] not in PRESETS:
        print(f"usage: cosmo_count.py {{{','.join(PRESETS)}}} [--layers]", file=sys.stderr)
        return 2
    for key, value in count(args[0], "--layers" in argv).items():
        print(f"{key} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
