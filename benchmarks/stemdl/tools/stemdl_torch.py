#!/usr/bin/env python3
"""stemdl_torch.py: the STEMDL FC-DenseNet written in PyTorch, from the wiring
of docs/stemdl.md, for two jobs:

  --count      forward convolution FLOPs and conv weights per sample, counted
               on the model itself (forward hooks on every Conv2d and
               ConvTranspose2d, run on the 'meta' device: nothing allocated),
               checked against the published numbers and, with --stemdl BIN,
               against `stemdl --describe`.  Without torch the same wiring is
               walked from its shapes (pure Python) and says so.
  --bench      time training steps on a CUDA GPU the way a PyTorch user would
               write them: autocast (bf16 by default), channels_last,
               torch.backends.cudnn.benchmark, fused Adam, L1 loss; prints
               step times, samples/s and TFLOP/s (with the executed FLOPs
               per sample that stemdl counts, --flops-per-sample).
               --device cpu: the same model on the CPU, torch.set_num_threads
               (--threads), the batch built once (as on the GPU), --precision
               fp32 (contiguous and channels_last) or bf16: CPU autocast
               (fp32 weights) and the model and batch cast to bf16 (oneDNN's
               bf16 convolutions, Adam on bf16 weights), each in both
               layouts; every variant is timed, the faster is PyTorch's
               number (torch_best names it).  A variant this PyTorch cannot
               run says so ("<variant>: failed (...)") and is left out.

Output: "key: value" lines.  Exit status 0, 1 when a count disagrees, 2 on
bad arguments, 77 with "SKIPPED: ..." when --bench finds no CUDA GPU (or,
--device cpu, no torch).

Wiring (every number a parameter; presets as stemdl's):
  CONV_INIT k0 x k0 conv c_in -> f0 with bias, ReLU.  Down level i: dense
  block of down[i] layers (layer: ReLU of the concatenation so far, k x k conv
  to `growth` maps, no bias); block output kept as skip_i; 1x1 conv to td[i]
  (no bias) and 2x2 average pooling.  Bottleneck: dense block of `bottleneck`
  layers, only its new maps go on.  Up level j: 1x1 transposed conv, stride 2,
  of the previous block's new maps to tu[j] (no bias), concatenated with
  skip_(L-1-j) (upsampled maps first), dense block of up[j] layers.
  CONV_FIN: 1x1 conv with bias of the last block's whole output to c_out.
  Each map goes through ReLU once, when it is made (as stemdl's ReLU twin),
  which equals ReLU of the concatenation and saves PyTorch the repeats.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import time

PRESETS = {
    "gb2019": dict(c_in=1024, height=512, width=512, f0=256, k0=5, growth=256, k=5,
                   down=[1, 2, 4], td=[512, 1024, 2048], bottleneck=3, up=[4, 2, 1],
                   tu=[768, 1024, 512], c_out=1),
    "bench256": dict(c_in=256, height=256, width=256, f0=256, k0=5, growth=256, k=5,
                     down=[1, 2, 4], td=[512, 1024, 2048], bottleneck=3, up=[4, 2, 1],
                     tu=[768, 1024, 512], c_out=1),
    "small": dict(c_in=128, height=64, width=64, f0=64, k0=5, growth=64, k=5,
                  down=[1, 2, 4], td=[128, 256, 512], bottleneck=3, up=[4, 2, 1],
                  tu=[192, 256, 128], c_out=1),
    "tiny": dict(c_in=6, height=16, width=16, f0=8, k0=3, growth=5, k=3,
                 down=[1, 2], td=[9, 12], bottleneck=2, up=[2, 1], tu=[7, 6], c_out=1),
}
# published: Laanait et al. 2019 (REFERENCES.md); reference/stemdl-exact.yaml
EXPECTED = {
    "gb2019": dict(fwd_conv_flops=17169802854400, conv_weights=220398848),
    "bench256": dict(fwd_conv_flops=3648205619200, conv_weights=215483648),
}


def config(args):
    c = dict(PRESETS[args.preset])
    for key in ("c_in", "height", "width", "f0", "k0", "growth", "k", "bottleneck", "c_out"):
        v = getattr(args, key)
        if v is not None:
            c[key] = v
    if args.image is not None:
        c["height"] = c["width"] = args.image
    for key in ("down", "up", "td", "tu"):
        v = getattr(args, key)
        if v is not None:
            c[key] = [int(x) for x in v.split(",")]
    L = len(c["down"])
    if not (len(c["up"]) == len(c["td"]) == len(c["tu"]) == L):
        usage_error("list lengths disagree (down, up, td, tu)")
    if c["height"] % (1 << L) or c["width"] % (1 << L):
        usage_error("image not divisible by 2^levels")
    return c


def usage_error(msg):
    print("stemdl_torch.py: error: %s" % msg, file=sys.stderr)
    sys.exit(2)


# ---- the wiring as shapes (no torch): what the model below builds ----------

def walk(c):
    """Every convolution of one forward pass as (kind, k, c_in, c_out, h_in, w_in)."""
    g, k, L = c["growth"], c["k"], len(c["down"])
    h, w = c["height"], c["width"]
    convs = [("conv", c["k0"], c["c_in"], c["f0"], h, w)]
    ch, skips = c["f0"], []
    for i in range(L):
        for l in range(c["down"][i]):
            convs.append(("conv", k, ch + l * g, g, h, w))
        ch += c["down"][i] * g
        skips.append(ch)
        convs.append(("conv", 1, ch, c["td"][i], h, w))
        ch, h, w = c["td"][i], h // 2, w // 2
    for l in range(c["bottleneck"]):
        convs.append(("conv", k, ch + l * g, g, h, w))
    new = c["bottleneck"] * g
    for j in range(L):
        convs.append(("tconv", 1, new, c["tu"][j], h, w))
        h, w = h * 2, w * 2
        ch = c["tu"][j] + skips[L - 1 - j]
        for l in range(c["up"][j]):
            convs.append(("conv", k, ch + l * g, g, h, w))
        new = c["up"][j] * g
        ch += new
    convs.append(("conv", 1, ch, c["c_out"], h, w))
    return convs


def count_from_shapes(c):
    flops = weights = 0
    for kind, k, ci, co, h, w in walk(c):
        flops += 2 * k * k * ci * co * h * w  # tconv: h, w are the input's
        weights += k * k * ci * co
    return flops, weights


# ---- the model ------------------------------------------------------------------

def build(torch, c):
    nn, F = torch.nn, torch.nn.functional

    class Dense(nn.Module):
        def __init__(self, c0, layers, g, k):
            super().__init__()
            self.convs = nn.ModuleList(
                nn.Conv2d(c0 + l * g, g, k, padding=k // 2, bias=False) for l in range(layers))

        def forward(self, x, rx):
            # x: the block input, rx its ReLU; returns (block output, its new maps)
            feats, rfeats, new = [x], [rx], []
            for i, conv in enumerate(self.convs):
                y = conv(torch.cat(rfeats, 1) if len(rfeats) > 1 else rfeats[0])
                new.append(y)
                feats.append(y)
                if i + 1 < len(self.convs):
                    rfeats.append(F.relu(y))
            return torch.cat(feats, 1), torch.cat(new, 1) if len(new) > 1 else new[0]

    class FCDenseNet(nn.Module):
        def __init__(self):
            super().__init__()
            g, k, L = c["growth"], c["k"], len(c["down"])
            self.L = L
            self.conv_init = nn.Conv2d(c["c_in"], c["f0"], c["k0"], padding=c["k0"] // 2, bias=True)
            ch, skips = c["f0"], []
            self.down, self.td = nn.ModuleList(), nn.ModuleList()
            for i in range(L):
                self.down.append(Dense(ch, c["down"][i], g, k))
                ch += c["down"][i] * g
                skips.append(ch)
                self.td.append(nn.Conv2d(ch, c["td"][i], 1, bias=False))
                ch = c["td"][i]
            self.bott = Dense(ch, c["bottleneck"], g, k)
            new = c["bottleneck"] * g
            self.tu, self.up = nn.ModuleList(), nn.ModuleList()
            for j in range(L):
                # 1x1, stride 2: input pixel (i, j) lands on (2i, 2j), the rest is 0
                self.tu.append(nn.ConvTranspose2d(new, c["tu"][j], 1, stride=2, output_padding=1,
                                                  bias=False))
                ch = c["tu"][j] + skips[L - 1 - j]
                self.up.append(Dense(ch, c["up"][j], g, k))
                new = c["up"][j] * g
                ch += new
            self.conv_fin = nn.Conv2d(ch, c["c_out"], 1, bias=True)

        def forward(self, x):
            x = F.relu(self.conv_init(x))
            rx, skips = x, []  # CONV_INIT's output is already ReLU'd
            for i in range(self.L):
                x, _ = self.down[i](x, rx)
                skips.append(x)
                x = F.avg_pool2d(self.td[i](x), 2)
                rx = F.relu(x)
            _, new = self.bott(x, rx)
            for j in range(self.L):
                x = torch.cat([self.tu[j](new), skips[self.L - 1 - j]], 1)
                x, new = self.up[j](x, F.relu(x))
            return self.conv_fin(x)

    return FCDenseNet()


def count_with_torch(torch, c):
    """Forward conv FLOPs per sample and conv weights of the model, by hooks on a meta forward."""
    model = build(torch, c).to("meta")
    total = [0]

    def hook(mod, inp, out):
        x = inp[0]
        kh, kw = mod.kernel_size
        if isinstance(mod, torch.nn.ConvTranspose2d):
            total[0] += 2 * kh * kw * mod.in_channels * mod.out_channels * x.shape[2] * x.shape[3]
        else:
            total[0] += 2 * kh * kw * mod.in_channels * mod.out_channels * out.shape[2] * out.shape[3]

    for m in model.modules():
        if isinstance(m, (torch.nn.Conv2d, torch.nn.ConvTranspose2d)):
            m.register_forward_hook(hook)
    x = torch.empty(1, c["c_in"], c["height"], c["width"], device="meta")
    with torch.no_grad():
        y = model(x)
    if tuple(y.shape) != (1, c["c_out"], c["height"], c["width"]):
        raise SystemExit("stemdl_torch.py: error: output shape %s" % (tuple(y.shape),))
    weights = sum(m.weight.numel() for m in model.modules()
                  if isinstance(m, (torch.nn.Conv2d, torch.nn.ConvTranspose2d)))
    return total[0], weights


def describe(stemdl, args):
    """stemdl --describe's per-sample numbers for the same network."""
    cmd = [stemdl, "--preset", args.preset, "--describe"]
    for key in ("c_in", "height", "width", "f0", "k0", "growth", "k", "bottleneck", "c_out",
                "image", "down", "up", "td", "tu"):
        v = getattr(args, key)
        if v is not None:
            cmd += ["--" + key.replace("_", "-"), str(v)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    got = {}
    for key in ("forward_conv_flops_per_sample", "executed_flops_per_sample", "conv_weights"):
        m = re.search(r"^\s*%s\s+(\d+)" % key, out, re.M)
        if m:
            got[key] = int(m.group(1))
    return got


def cmd_count(args, c):
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    sflops, sweights = count_from_shapes(c)
    print("preset: %s" % args.preset)
    print("shape_walk_forward_conv_flops_per_sample: %d" % sflops)
    print("shape_walk_conv_weights: %d" % sweights)
    bad = 0
    flops, weights = sflops, sweights
    if have_torch:
        flops, weights = count_with_torch(torch, c)
        print("torch: %s" % torch.__version__)
        print("torch_forward_conv_flops_per_sample: %d" % flops)
        print("torch_conv_weights: %d" % weights)
        if (flops, weights) != (sflops, sweights):
            print("FAIL: the torch model and the shape walk disagree")
            bad = 1
    else:
        print("torch: not importable here; counted from the wiring's shapes only")
    exp = EXPECTED.get(args.preset) if not any(
        getattr(args, k) is not None for k in ("c_in", "height", "width", "image", "f0", "k0",
                                                 "growth", "k", "bottleneck", "c_out", "down",
                                                 "up", "td", "tu")) else None
    if exp:
        ok = flops == exp["fwd_conv_flops"] and weights == exp["conv_weights"]
        print("published_forward_conv_flops_per_sample: %d" % exp["fwd_conv_flops"])
        print("published_conv_weights: %d" % exp["conv_weights"])
        print("%s: %s forward conv FLOPs and weights equal the published numbers"
              % ("PASS" if ok else "FAIL", args.preset))
        bad |= not ok
    if args.stemdl:
        d = describe(args.stemdl, args)
        sf = d.get("forward_conv_flops_per_sample")
        print("stemdl_forward_conv_flops_per_sample: %s" % sf)
        print("stemdl_executed_flops_per_sample: %s" % d.get("executed_flops_per_sample"))
        ok = sf == flops
        print("%s: %s forward conv FLOPs equal stemdl --describe" % ("PASS" if ok else "FAIL",
                                                                     args.preset))
        bad |= not ok
    return 1 if bad else 0


def cpu_variant(torch, c, args, bf16, layout):
    """Time args.warmup + args.steps CPU training steps of one variant: bf16
    None (fp32), 'autocast' or 'bf16_model'; returns (timed step times, last loss)."""
    F = torch.nn.functional
    torch.manual_seed(args.seed)
    model = build(torch, c)
    x = torch.randn(args.batch, c["c_in"], c["height"], c["width"])
    t = torch.randn(args.batch, c["c_out"], c["height"], c["width"])
    if layout == "channels_last":
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    if bf16 is not None:  # the batch already in the compute type, as on the GPU
        x = x.to(dtype=torch.bfloat16)
    if bf16 == "bf16_model":
        model = model.to(dtype=torch.bfloat16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)

    def step():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16 == "autocast"):
            y = model(x)
            loss = F.l1_loss(y.float(), t)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    times = []
    for i in range(args.warmup + args.steps):
        t0 = time.perf_counter()
        loss = step()
        if i >= args.warmup:
            times.append(time.perf_counter() - t0)
    return times, float(loss)


def cmd_bench_cpu(torch, args, c):
    if args.precision not in ("fp32", "bf16"):
        usage_error("--device cpu takes --precision fp32 or bf16")
    torch.set_num_threads(args.threads)
    modes = ["autocast", "bf16_model"] if args.precision == "bf16" else [None]
    print("torch: %s" % torch.__version__)
    print("torch_device: cpu")
    print("torch_threads: %d" % torch.get_num_threads())
    print("torch_precision: %s" % args.precision)
    print("torch_batch: %d" % args.batch)
    best = None
    for mode in modes:
        for layout in ("contiguous", "channels_last"):
            name = layout if mode is None else mode + "_" + layout
            try:
                times, loss = cpu_variant(torch, c, args, mode, layout)
            except RuntimeError as e:
                print('%s: failed ("%s")' % (name, str(e).splitlines()[0].replace('"', "'")))
                continue
            med = statistics.median(times)
            print("%s_step_s: [%s]" % (name, ", ".join("%.6g" % s for s in times)))
            print("%s_median_s: %.6g" % (name, med))
            print("%s_loss_last: %.6g" % (name, loss))
            if best is None or med < best[1]:
                best = (name, med)
    if best is None:
        print("FAIL: no variant ran")
        return 1
    print("torch_best: %s" % best[0])
    print("torch_step_s_median: %.6g" % best[1])
    print("torch_samples_per_s: %.6g" % (args.batch / best[1]))
    if args.flops_per_sample:
        print("torch_executed_tflops: %.6g" % (args.flops_per_sample * args.batch / best[1] / 1e12))
    return 0


def cmd_bench(args, c):
    try:
        import torch
    except ImportError:
        print("SKIPPED: PyTorch is not importable here")
        return 77
    if args.device == "cpu":
        return cmd_bench_cpu(torch, args, c)
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA GPU visible to PyTorch (torch %s)" % torch.__version__)
        return 77
    F = torch.nn.functional
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    # fp32 means fp32; tf32 allows TF32 tensor cores for convolutions and matmuls
    torch.backends.cudnn.allow_tf32 = args.precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = args.precision == "tf32"
    amp = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    torch.manual_seed(args.seed)
    model = build(torch, c).to(dev).to(memory_format=torch.channels_last)
    try:
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, fused=True)
        adam = "fused"
    except (TypeError, RuntimeError):
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
        adam = "default"
    scaler = torch.cuda.amp.GradScaler() if amp == torch.float16 else None
    b = args.batch
    # a fixed batch already on the device, in the compute type: stemdl's upload
    # of a batch is outside its step time too
    x = torch.randn(b, c["c_in"], c["height"], c["width"], device=dev)
    x = x.to(memory_format=torch.channels_last, dtype=amp or torch.float32)
    t = torch.randn(b, c["c_out"], c["height"], c["width"], device=dev)

    def step():
        with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
            y = model(x)
            loss = F.l1_loss(y.float(), t)
        opt.zero_grad(set_to_none=True)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss

    times = []
    torch.cuda.reset_peak_memory_stats()
    for i in range(args.warmup + args.steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        if i >= args.warmup:
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    print("torch: %s" % torch.__version__)
    print("torch_cudnn: %s" % torch.backends.cudnn.version())
    print("torch_device: %s" % torch.cuda.get_device_name(0))
    print("torch_precision: %s (autocast %s, channels_last, cudnn.benchmark, %s Adam)"
          % (args.precision, amp is not None, adam))
    print("torch_batch: %d" % b)
    print("torch_step_s: [%s]" % ", ".join("%.6g" % s for s in times))
    print("torch_step_s_median: %.6g" % med)
    print("torch_samples_per_s: %.6g" % (b / med))
    print("torch_loss_last: %.6g" % float(loss))
    print("torch_peak_memory_bytes: %d" % torch.cuda.max_memory_allocated())
    if args.flops_per_sample:
        print("torch_executed_tflops: %.6g" % (args.flops_per_sample * b / med / 1e12))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--count", action="store_true", help="count forward conv FLOPs and weights")
    mode.add_argument("--bench", action="store_true", help="time training steps (--device)")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--threads", type=int, default=1, help="--device cpu: torch.set_num_threads")
    p.add_argument("--preset", default="gb2019", choices=sorted(PRESETS))
    for key in ("c_in", "height", "width", "image", "f0", "k0", "growth", "k", "bottleneck", "c_out"):
        p.add_argument("--" + key.replace("_", "-"), dest=key, type=int)
    for key in ("down", "up", "td", "tu"):
        p.add_argument("--" + key, dest=key, help="comma-separated list")
    p.add_argument("--stemdl", help="stemdl binary: compare with its --describe")
    p.add_argument("--precision", default="bf16", choices=["fp32", "tf32", "bf16", "fp16"])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--flops-per-sample", type=int, help="executed FLOPs per sample (stemdl's count)")
    args = p.parse_args()
    c = config(args)
    sys.stdout.reconfigure(line_buffering=True)
    return cmd_count(args, c) if args.count else cmd_bench(args, c)


if __name__ == "__main__":
    sys.exit(main())
