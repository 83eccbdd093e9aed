#!/usr/bin/env python3
"""Independent count of the 3D U-Net that LBANN trains with spatial
parallelism (the second network of Oyama et al., TPDS 2021): parameters and
forward FLOPs of one sample by ExaDL's convention (benchmarks/train/kernels/
flops.h: a convolution costs 2 k^3 c_in c_out per output voxel, padding taps
included; a transposed convolution costs what the convolution it transposes
costs, 2 k^3 c_in c_out per voxel of its input).

The layer list (docs/cosmoflow.md "3D U-Net: the layer list"), read from
the UNet3D module of LBANN's 3D U-Net application (unet3d.py, class UNet3D;
its path inside LLNL/lbann was not resolved by the search tools used):
three levels of two 3^3 'same' convolutions without bias, each followed by
batch normalisation (scale and shift: 2 parameters per channel) and ReLU,
the first level's output kept for the skip and 2^3 max-pooling; a bottom
block of two such convolutions; then per level a 2^3 stride-2 transposed
convolution without bias, the concatenation [upsampled, skip] and two such
convolutions; a last 1^3 convolution without bias to the classes and a
channel softmax with cross-entropy.  Filters: down (32, 64), (64, 128),
(128, 256); bottom (256, 512); transposed 512, 256, 128; up (256, 256),
(128, 128), (64, 64); 3 classes.  LBANN's default data are LiTS volumes of
128^3; the input channel count is a parameter (the volume's C of CDHW).

Written from that list, not from C code, so that `cosmoflow --network
unet3d --describe` is held against it (tests/it/cosmo_unet.sh).  --filters F
scales every width by F/32 (ExaDL's unet-tiny: --size 16 --filters 4).

Usage: unet3d_count.py [--size 128] [--channels 1] [--classes 3] [--filters 32]
                       [--layers]
Prints `parameters N`, `conv_weights N`, `bn_parameters N`,
`forward_conv_flops_per_sample N` (transposed convolutions included) and
`layers N` (convolutions and transposed convolutions); exit 2 on bad
arguments.
"""
import argparse
import sys

DOWN = [(32, 64), (64, 128), (128, 256)]
BOTTOM = (256, 512)
DECONV = [512, 256, 128]          # from the bottom up
UP = [(256, 256), (128, 128), (64, 64)]


class Count:
    def __init__(self, show):
        self.conv_weights = self.bn = self.flops = self.layers = 0
        self.show = show

    def conv(self, name, cin, cout, k, ext, bn=True):
        w = k**3 * cin * cout
        f = 2 * w * ext**3
        self.conv_weights += w
        self.bn += 2 * cout if bn else 0
        self.flops += f
        self.layers += 1
        if self.show:
            print(f"# {name:10s} conv k{k} {cin:4d} -> {cout:4d} at {ext}^3  weights {w}  flops {f}")

    def deconv(self, name, cin, cout, ext_in):
        w = 8 * cin * cout
        f = 2 * w * ext_in**3
        self.conv_weights += w
        self.flops += f
        self.layers += 1
        if self.show:
            print(f"# {name:10s} tconv k2 s2 {cin:4d} -> {cout:4d} from {ext_in}^3  weights {w}  flops {f}")


def count(size, channels, classes, show=False, filters=32):
    c = Count(show)
    global DOWN, BOTTOM, DECONV, UP
    s = lambda w: w * filters // 32  # widths are 32 x 2^i: whole for any F
    DOWN = [(s(a), s(b)) for a, b in DOWN]
    BOTTOM = (s(BOTTOM[0]), s(BOTTOM[1]))
    DECONV = [s(t) for t in DECONV]
    UP = [(s(a), s(b)) for a, b in UP]
    ext, cin, skips = size, channels, []
    for i, (a, b) in enumerate(DOWN):
        c.conv(f"down{i + 1}a", cin, a, 3, ext)
        c.conv(f"down{i + 1}b", a, b, 3, ext)
        skips.append((b, ext))
        cin, ext = b, ext // 2
    c.conv("bottom_a", cin, BOTTOM[0], 3, ext)
    c.conv("bottom_b", BOTTOM[0], BOTTOM[1], 3, ext)
    cin = BOTTOM[1]
    for i, (t, (a, b)) in enumerate(zip(DECONV, UP)):
        c.deconv(f"deconv{i + 1}", cin, t, ext)
        ext *= 2
        skip_c, skip_ext = skips[len(skips) - 1 - i]
        assert skip_ext == ext
        c.conv(f"up{i + 1}a", t + skip_c, a, 3, ext)
        c.conv(f"up{i + 1}b", a, b, 3, ext)
        cin = b
    c.conv("last", cin, classes, 1, ext, bn=False)
    return {
        "parameters": c.conv_weights + c.bn,
        "conv_weights": c.conv_weights,
        "bn_parameters": c.bn,
        "forward_conv_flops_per_sample": c.flops,
        "layers": c.layers,
    }


def main(argv):
    ap = argparse.ArgumentParser(description="count LBANN's 3D U-Net")
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--channels", type=int, default=1)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--filters", type=int, default=32)
    ap.add_argument("--layers", action="store_true")
    a = ap.parse_args(argv)
    if a.size < 8 or a.size % 8 or a.channels < 1 or a.classes < 1 or a.filters < 1:
        print("unet3d_count.py: size must be a positive multiple of 8, channels, classes and "
              "filters positive", file=sys.stderr)
        return 2
    for k, v in count(a.size, a.channels, a.classes, a.layers, a.filters).items():
        print(f"{k} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
