#!/usr/bin/env python3
"""Independent count of DeepCAM's DeepLabv3+ (MLPerf HPC, mlcommons/hpc
deepcam/src/deepCam/architecture/deeplab_xception.py): parameters and the
forward convolution FLOPs of one sample, by ExaDL's counting convention
(benchmarks/train/kernels/flops.h: a convolution costs 2 k^2 (c_in/groups)
c_out per output pixel, padding taps included; a transposed convolution
costs what the convolution it transposes costs, i.e. 2 k^2 c_in c_out per
pixel of its input).

Written from the layer list (docs/climate.md "The network to build"), not
from the C code, so that tests/it/climate.sh can hold the `climate
--describe` counts against it once the network lands.

Usage: deepcam_count.py [--channels 16] [--height 768] [--width 1152]
                        [--classes 3] [--width-div 1] [--middle-blocks 16]
                        [--preset NAME] [--layers]
--width-div D divides every layer width by D, rounded up (the climate
program's smaller presets); --middle-blocks the middle flow's length;
--preset sets all of them to a climate preset's sizes (PRESETS below,
written from docs/climate.md's table, not read from the C code).
Prints `params N`, `fwd_conv_flops N` (per sample) and, with --layers, one
line per convolution.  Exit 2 on bad arguments.
"""
import argparse
import sys


class Count:
    def __init__(self, show):
        self.params = 0
        self.flops = 0
        self.show = show

    def conv(self, name, cin, cout, k, h_out, w_out, groups=1, bias=False):
        p = cout * (cin // groups) * k * k + (cout if bias else 0)
        f = 2 * k * k * (cin // groups) * cout * h_out * w_out
        self.params += p
        self.flops += f
        if self.show:
            print(f"{name:28s} {cin:5d} -> {cout:5d} k{k} g{groups:<5d} {h_out}x{w_out}"
                  f"  params {p}  flops {f}")

    def tconv(self, name, cin, cout, h_in, w_in):
        # 3x3 stride 2: the convolution from cout maps at 2h x 2w to cin at h x w
        self.conv(name, cout, cin, 3, h_in, w_in)

    def bn(self, c):
        self.params += 2 * c  # gamma, beta (running statistics are not parameters)


def sep(c, name, cin, cout, h_out, w_out):
    """Separable convolution: depthwise 3x3 (groups = cin) then pointwise 1x1."""
    c.conv(name + ".dw", cin, cin, 3, h_out, w_out, groups=cin)
    c.conv(name + ".pw", cin, cout, 1, h_out, w_out)


def block(c, name, cin, cout, reps, stride, h, w, grow_first=True, is_last=False):
    """An Xception block at input size h x w; returns the output size."""
    ho, wo = (h // stride, w // stride)
    if cout != cin or stride != 1:
        c.conv(name + ".skip", cin, cout, 1, ho, wo)
        c.bn(cout)
    filters = cin
    if grow_first:
        sep(c, name + ".sep0", cin, cout, h, w)
        c.bn(cout)
        filters = cout
    for i in range(reps - 1):
        sep(c, f"{name}.sep{i + 1}", filters, filters, h, w)
        c.bn(filters)
    if not grow_first:
        sep(c, name + ".sepN", cin, cout, h, w)
        c.bn(cout)
    if stride != 1:
        sep(c, name + ".down", cout, cout, ho, wo)  # no batch norm after it
    elif is_last:
        sep(c, name + ".last", cout, cout, ho, wo)
    return ho, wo


# the climate program's presets (docs/climate.md "Presets")
PRESETS = {
    "tiny": dict(channels=4, height=32, width=48, width_div=16, middle_blocks=1),
    "small": dict(channels=16, height=64, width=96, width_div=8, middle_blocks=2),
    "deepcam": dict(channels=16, height=768, width=1152, width_div=1, middle_blocks=16),
    "gb2018": dict(channels=16, height=768, width=1152, width_div=1, middle_blocks=16),
}


def count(channels, height, width, classes, show, os_=16, width_div=1, middle_blocks=16):
    def ch(n):
        return max(1, -(-n // width_div))

    # DeepCAM's decoder (two stride-2 transposed convolutions up to the
    # low-level skip at 1/4) fixes output stride 16
    if os_ != 16:
        raise ValueError("DeepCAM's decoder fixes output stride 16")
    if height % 16 or width % 16:
        raise ValueError("height and width must be multiples of 16")
    c = Count(show)
    h, w = height // 2, width // 2
    c.conv("conv1", channels, ch(32), 3, h, w)
    c.bn(ch(32))
    c.conv("conv2", ch(32), ch(64), 3, h, w)
    c.bn(ch(64))
    h, w = block(c, "block1", ch(64), ch(128), 2, 2, h, w)
    low_h, low_w = h, w
    h, w = block(c, "block2", ch(128), ch(256), 2, 2, h, w)
    h, w = block(c, "block3", ch(256), ch(728), 2, 2, h, w, is_last=True)
    for b in range(4, 4 + middle_blocks):
        h, w = block(c, f"block{b}", ch(728), ch(728), 3, 1, h, w)
    h, w = block(c, "exit", ch(728), ch(1024), 2, 1, h, w, grow_first=False, is_last=True)
    sep(c, "conv3", ch(1024), ch(1536), h, w)
    c.bn(ch(1536))
    sep(c, "conv4", ch(1536), ch(1536), h, w)
    c.bn(ch(1536))
    sep(c, "conv5", ch(1536), ch(2048), h, w)
    c.bn(ch(2048))
    # ASPP: 1x1, three 3x3 atrous (rates only move taps: same count), image pool
    c.conv("aspp1", ch(2048), ch(256), 1, h, w)
    c.bn(ch(256))
    for r in range(3):
        c.conv(f"aspp{r + 2}", ch(2048), ch(256), 3, h, w)
        c.bn(ch(256))
    c.conv("aspp_pool.conv", ch(2048), ch(256), 1, 1, 1)
    c.params += 2 * ch(256)  # the pool branch's affine (weights, bias) instead of a BN
    c.conv("aspp_proj", 5 * ch(256), ch(256), 1, h, w)
    c.bn(ch(256))
    # low-level skip
    c.conv("low.conv", ch(128), ch(48), 1, low_h, low_w)
    c.bn(ch(48))
    # decoder
    for name in ("deconv1a", "deconv1b"):
        c.tconv(name, ch(256), ch(256), h, w)
        c.bn(ch(256))
        h, w = 2 * h, 2 * w
    c.conv("dec.conv1", ch(256) + ch(48), ch(256), 3, h, w)
    c.bn(ch(256))
    c.conv("dec.conv2", ch(256), ch(256), 3, h, w)
    c.bn(ch(256))
    c.conv("dec.conv3", ch(256), ch(256), 1, h, w, bias=True)
    c.tconv("deconv2", ch(256), ch(256), h, w)
    c.bn(ch(256))
    h, w = 2 * h, 2 * w
    c.tconv("last_deconv", ch(256), classes, h, w)
    h, w = 2 * h, 2 * w
    assert (h, w) == (height, width), (h, w)
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--height", type=int, default=768)
    ap.add_argument("--width", type=int, default=1152)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--width-div", type=int, default=1)
    ap.add_argument("--middle-blocks", type=int, default=16)
    ap.add_argument("--preset", choices=sorted(PRESETS))
    ap.add_argument("--layers", action="store_true")
    a = ap.parse_args()
    if a.preset:
        for k, v in PRESETS[a.preset].items():
            setattr(a, k, v)
    if a.width_div < 1 or a.middle_blocks < 0:
        print("deepcam_count.py: --width-div must be >= 1, --middle-blocks >= 0", file=sys.stderr)
        return 2
    try:
        c = count(a.channels, a.height, a.width, a.classes, a.layers,
                  width_div=a.width_div, middle_blocks=a.middle_blocks)
    except ValueError as e:
        print(f"deepcam_count.py: {e}", file=sys.stderr)
        return 2
    print(f"params {c.params}")
    print(f"fwd_conv_flops {c.flops}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
