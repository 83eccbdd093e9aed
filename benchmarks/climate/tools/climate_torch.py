#!/usr/bin/env python3
"""climate_torch.py: the climate network (DeepLabv3+ as MLPerf HPC's DeepCAM,
docs/climate.md "The network") written in PyTorch from the same layer list,
the peer of `climate` in bench_cpu.sh:

  --count   parameters counted on the model (model.parameters()); with
            --climate BIN compared with `climate --describe` (exit 1 when
            they differ).
  --bench   time training steps the way a PyTorch user writes them (Adam,
            per-pixel weighted cross-entropy over 3 classes, batch norm in
            train mode) on the CPU with torch.set_num_threads(--threads), in
            the default layout and channels_last; the faster of the two is
            PyTorch's number: median step time and samples/s.

Sizes: --preset tiny | small | deepcam | gb2018 (the climate presets' sizes,
written out below), or --height/--width/--channels/--width-div/
--middle-blocks/--batch over it.  Output: "key: value" lines.  Exit 0; 1
when a count disagrees; 2 on bad arguments; 77 with "SKIPPED: ..." when
torch cannot be imported.
"""
import argparse
import statistics
import subprocess
import sys
import time

PRESETS = {
    "tiny": dict(channels=4, height=32, width=48, width_div=16, middle_blocks=1, batch=2),
    "small": dict(channels=16, height=64, width=96, width_div=8, middle_blocks=2, batch=4),
    "deepcam": dict(channels=16, height=768, width=1152, width_div=1, middle_blocks=16, batch=1),
    "gb2018": dict(channels=16, height=768, width=1152, width_div=1, middle_blocks=16, batch=2),
}
CLASSES = 3
CLASS_W = (1.0, 5.5, 3.9)  # climate's default class weights


def build(torch, c):
    nn = torch.nn
    F = torch.nn.functional

    def ch(n):
        return max(1, -(-n // c["width_div"]))

    class Sep(nn.Module):
        """optional ReLU, depthwise 3x3 + pointwise 1x1, optional batch norm"""

        def __init__(self, cin, cout, stride=1, dil=1, relu=True, bn=True):
            super().__init__()
            self.relu = relu
            self.dw = nn.Conv2d(cin, cin, 3, stride, padding=dil, dilation=dil, groups=cin, bias=False)
            self.pw = nn.Conv2d(cin, cout, 1, bias=False)
            self.bn = nn.BatchNorm2d(cout) if bn else None

        def forward(self, x):
            if self.relu:
                x = F.relu(x)
            x = self.pw(self.dw(x))
            return self.bn(x) if self.bn is not None else x

    class Block(nn.Module):
        def __init__(self, cin, cout, reps, stride, dil, start_relu, grow_first=True, is_last=False):
            super().__init__()
            self.skip = None
            if cout != cin or stride != 1:
                self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            units, n, width = [], 0, cin
            if grow_first:
                units.append(Sep(cin, cout, 1, dil, relu=start_relu))
                n, width = 1, cout
            for _ in range(reps - 1):
                n += 1
                units.append(Sep(width, width, 1, dil, relu=start_relu or n > 1))
            if not grow_first:
                units.append(Sep(cin, cout, 1, dil))
            if stride != 1:
                units.append(Sep(cout, cout, stride, dil, bn=False))
            elif is_last:
                units.append(Sep(cout, cout, 1, dil, bn=False))
            self.units = nn.Sequential(*units)

        def forward(self, x):
            return self.units(x) + (self.skip(x) if self.skip is not None else x)

    def cbr(cin, cout, k, dil=1):
        return nn.Sequential(nn.Conv2d(cin, cout, k, padding=dil * (k // 2), dilation=dil, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU())

    def tbr(cin, cout):
        return nn.Sequential(nn.ConvTranspose2d(cin, cout, 3, 2, padding=1, output_padding=1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU())

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.entry = nn.Sequential(
                nn.Conv2d(c["channels"], ch(32), 3, 2, padding=1, bias=False), nn.BatchNorm2d(ch(32)), nn.ReLU(),
                nn.Conv2d(ch(32), ch(64), 3, 1, padding=1, bias=False), nn.BatchNorm2d(ch(64)), nn.ReLU(),
                Block(ch(64), ch(128), 2, 2, 1, False), nn.ReLU())
            body = [Block(ch(128), ch(256), 2, 2, 1, False), Block(ch(256), ch(728), 2, 2, 1, True, is_last=True)]
            body += [Block(ch(728), ch(728), 3, 1, 1, True) for _ in range(c["middle_blocks"])]
            body += [Block(ch(728), ch(1024), 2, 1, 1, True, grow_first=False, is_last=True),
                     Sep(ch(1024), ch(1536), 1, 2), Sep(ch(1536), ch(1536), 1, 2), Sep(ch(1536), ch(2048), 1, 2),
                     nn.ReLU()]
            self.body = nn.Sequential(*body)
            a = ch(256)
            self.aspp = nn.ModuleList([cbr(ch(2048), a, 1)] + [cbr(ch(2048), a, 3, r) for r in (6, 12, 18)])
            self.pool_conv = nn.Conv2d(ch(2048), a, 1, bias=False)
            self.pool_gamma = nn.Parameter(torch.ones(1, a, 1, 1))  # the affine in place of a batch norm
            self.pool_beta = nn.Parameter(torch.zeros(1, a, 1, 1))
            self.proj = cbr(5 * a, a, 1)
            self.up1 = nn.Sequential(tbr(a, a), tbr(a, a))
            self.low = cbr(ch(128), ch(48), 1)
            self.dec = nn.Sequential(cbr(a + ch(48), a, 3), cbr(a, a, 3), nn.Conv2d(a, a, 1, bias=True),
                                     tbr(a, a),
                                     nn.ConvTranspose2d(a, CLASSES, 3, 2, padding=1, output_padding=1, bias=False))

        def forward(self, x):
            low = self.entry(x)
            x = self.body(low)
            p = x.mean(dim=(2, 3), keepdim=True)
            p = F.relu(self.pool_conv(p) * self.pool_gamma + self.pool_beta)
            x = torch.cat([b(x) for b in self.aspp] + [p.expand(-1, -1, x.shape[2], x.shape[3])], 1)
            x = self.up1(self.proj(x))
            x = torch.cat([x, self.low(low)], 1)
            return self.dec(x)

    return Net()


def describe_params(binary, preset, c):
    cmd = [binary, "--preset", preset, "--describe"]
    for k in ("channels", "height", "width", "width_div", "middle_blocks", "batch"):
        cmd += ["--" + k.replace("_", "-"), str(c[k])]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "parameters":
            return int(f[1])
    return None


def bench(torch, c, threads, steps, warmup):
    torch.set_num_threads(threads)
    F = torch.nn.functional
    results = {}
    for layout in ("contiguous", "channels_last"):
        torch.manual_seed(0)
        model = build(torch, c).train()
        fmt = torch.channels_last if layout == "channels_last" else torch.contiguous_format
        model = model.to(memory_format=fmt)
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        x = torch.randn(c["batch"], c["channels"], c["height"], c["width"]).to(memory_format=fmt)
        y = torch.randint(0, CLASSES, (c["batch"], c["height"], c["width"]))
        w = torch.tensor(CLASS_W)
        times = []
        for i in range(warmup + steps):
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            z = model(x)
            # ExaDL's loss: the mean over pixels of w_y (logsumexp - z_y)
            loss = (F.cross_entropy(z, y, reduction="none") * w[y]).mean()
            loss.backward()
            opt.step()
            if i >= warmup:
                times.append(time.perf_counter() - t0)
        results[layout] = statistics.median(times)
    best = min(results, key=results.get)
    print(f"torch: {torch.__version__}")
    print(f"threads: {threads}")
    for k, v in results.items():
        print(f"{k}_median_s: {v:.6g}")
    print(f"best_layout: {best}")
    print(f"samples_per_s: {c['batch'] / results[best]:.6g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="small")
    for k in ("channels", "height", "width", "width-div", "middle-blocks", "batch"):
        ap.add_argument("--" + k, type=int)
    ap.add_argument("--count", action="store_true")
    ap.add_argument("--climate", help="the climate binary, to compare --count with")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    c = dict(PRESETS[a.preset])
    for k in c:
        v = getattr(a, k)
        if v is not None:
            c[k] = v
    if min(c.values()) < 0 or c["height"] % 16 or c["width"] % 16 or a.threads < 1 or a.steps < 1:
        print("climate_torch.py: sizes must be positive, height and width multiples of 16", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as e:
        print(f"SKIPPED: cannot import torch ({e})")
        return 77
    rc = 0
    if a.count or not a.bench:
        n = sum(p.numel() for p in build(torch, c).parameters())
        print(f"torch_parameters: {n}")
        if a.climate:
            d = describe_params(a.climate, a.preset, c)
            print(f"climate_parameters: {d}")
            print(f"counts: {'equal' if d == n else 'DIFFERENT'}")
            rc = 0 if d == n else 1
    if a.bench:
        bench(torch, c, a.threads, a.steps, a.warmup)
    return rc


if __name__ == "__main__":
    sys.exit(main())
