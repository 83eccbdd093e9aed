#!/usr/bin/env python3
"""cosmoflow_torch.py: the CosmoFlow network written in PyTorch, from the
wiring of docs/cosmoflow.md, for two jobs:

  --count   parameters and forward FLOPs per sample (convolutions and dense
            layers) counted on the model itself: parameters from
            model.parameters(), FLOPs from its modules in order (Conv3d 2 k^3
            c_in c_out per output voxel, MaxPool3d halving the extent,
            Linear 2 in out); with --cosmoflow BIN, compared with
            `cosmoflow --describe`.
  --bench   time training steps the way a PyTorch user writes them (Adam,
            MSE), in the default layout and channels_last_3d; the better of
            the two is PyTorch's number: median step time and samples/s.
            --device cpu (the default): torch.set_num_threads(--threads),
            --precision fp32 (channels_last_3d is oneDNN's preferred layout)
            or bf16: CPU autocast (fp32 weights) and the model and input
            cast to bf16 (oneDNN's bf16 path, Adam on bf16 weights), each in
            both layouts, the fastest of the four is PyTorch's number
            (best_bf16 and best_layout name it); a variant this PyTorch
            cannot run prints "<variant>: failed (...)" and is left out.
            --device cuda: one GPU, --precision fp32 (no TF32), tf32, bf16 or
            fp16 (autocast, fp32 weights; fp16 with GradScaler),
            cudnn.benchmark, fused Adam where the version has it, the batch
            already on the device in the compute type (cosmoflow's upload is
            outside its step time too), torch.cuda.synchronize() around each
            step; with --flops-per-sample (cosmoflow's executed count) also
            TFLOP/s.

Output: "key: value" lines.  Exit status 0; 1 when a count disagrees; 2 on
bad arguments; 77 with "SKIPPED: ..." when torch cannot be imported, or with
--device cuda when PyTorch sees no CUDA GPU.

Network (MLPerf HPC CosmoFlow; LBANN's at 256^3 and 512^3): input D^3 x
channels; blocks i = 0..B-1 of Conv3d(k, 'same', min(filters * 2^i, cap),
bias) + LeakyReLU(slope) + MaxPool3d(2);
flatten; Linear dense1, LeakyReLU, Linear dense2, LeakyReLU, Linear targets;
MSE against the targets.
"""
import argparse
import contextlib
import re
import statistics
import subprocess
import sys
import time

PRESETS = {
    "cosmo128": dict(size=128, channels=4, blocks=5, filters=32, kernel=3, dense1=128, dense2=64, targets=4),
    # LBANN's CosmoFlow: log2(size) - 2 blocks, filters capped at 512
    "cosmo256": dict(size=256, channels=4, blocks=6, filters=32, kernel=3, dense1=128, dense2=64, targets=4,
                     cap=512),
    "cosmo512": dict(size=512, channels=4, blocks=7, filters=32, kernel=3, dense1=128, dense2=64, targets=4,
                     cap=512),
    "small": dict(size=64, channels=4, blocks=5, filters=8, kernel=3, dense1=32, dense2=16, targets=4),
    "tiny": dict(size=16, channels=4, blocks=2, filters=4, kernel=3, dense1=16, dense2=8, targets=4),
}
SLOPE = 0.3  # Keras' LeakyReLU, as the MLPerf reference and cosmoflow


def build(torch, c):
    nn = torch.nn
    layers, ci, d = [], c["channels"], c["size"]
    for i in range(c["blocks"]):
        co = c["filters"] * 2**i
        if c.get("cap"):
            co = min(co, c["cap"])
        layers += [nn.Conv3d(ci, co, c["kernel"], padding=c["kernel"] // 2), nn.LeakyReLU(SLOPE),
                   nn.MaxPool3d(2)]
        ci, d = co, d // 2
    flat = ci * d * d * d
    layers += [nn.Flatten(), nn.Linear(flat, c["dense1"]), nn.LeakyReLU(SLOPE),
               nn.Linear(c["dense1"], c["dense2"]), nn.LeakyReLU(SLOPE),
               nn.Linear(c["dense2"], c["targets"])]
    return nn.Sequential(*layers)


def count(torch, c):
    """Walk the model's modules in order: a Conv3d ('same', stride 1) keeps
    the extent and costs 2 k^3 c_in c_out per output voxel, a MaxPool3d
    halves the extent, a Linear costs 2 in out.  (PyTorch 1.13 cannot run
    max_pool3d on the meta device, and a real forward of cosmo512 would need
    tens of GB: the walk reads the modules' own sizes instead.)"""
    model = build(torch, c)
    conv = dense = 0
    d = c["size"]
    for m in model.modules():
        if isinstance(m, torch.nn.Conv3d):
            k = m.kernel_size[0] * m.kernel_size[1] * m.kernel_size[2]
            conv += 2 * k * m.in_channels * m.out_channels * d ** 3
        elif isinstance(m, torch.nn.MaxPool3d):
            d //= 2
        elif isinstance(m, torch.nn.Linear):
            dense += 2 * m.in_features * m.out_features
    params = sum(p.numel() for p in model.parameters())
    conv_w = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Conv3d))
    dense_w = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))
    return dict(parameters=params, conv_weights=conv_w, dense_weights=dense_w,
                forward_conv_flops_per_sample=conv, forward_dense_flops_per_sample=dense)


# cosmoflow's Adam learning rates (cf_config.c): the cosmo presets take 1e-4
LR = {"cosmo128": 1e-4, "cosmo256": 1e-4, "cosmo512": 1e-4}


def bench(torch, c, a, layout, mode=None):
    """Time a.warmup + a.steps training steps in one layout; returns (step
    times of the timed steps, last loss, 'fused' or 'default' Adam).  mode
    'bf16_model' (CPU bf16): the model cast to bf16 instead of autocast."""
    cuda = a.device == "cuda"
    dev = torch.device(a.device)
    amp = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.precision)
    if cuda:
        torch.backends.cudnn.benchmark = True
        # fp32 means fp32; tf32 allows TF32 tensor cores for convolutions and matmuls
        torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    else:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    model = build(torch, c).to(dev)
    x = torch.randn(a.batch, c["channels"], c["size"], c["size"], c["size"], device=dev)
    t = torch.rand(a.batch, c["targets"], device=dev) * 2 - 1
    if layout == "channels_last_3d":
        model = model.to(memory_format=torch.channels_last_3d)
        x = x.contiguous(memory_format=torch.channels_last_3d)
    if amp is not None:  # the input already in the compute type, as cosmoflow's
        x = x.to(dtype=amp)
    if mode == "bf16_model":
        model = model.to(dtype=amp)
    lr = LR.get(a.preset, 1e-3)
    adam = "default"
    opt = None
    if cuda:
        try:
            opt = torch.optim.Adam(model.parameters(), lr=lr, fused=True)
            adam = "fused"
        except (TypeError, RuntimeError):
            opt = None
    if opt is None:
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    scaler = None
    if amp == torch.float16:
        try:
            scaler = torch.amp.GradScaler("cuda")
        except (AttributeError, TypeError):
            scaler = torch.cuda.amp.GradScaler()
    loss_fn = torch.nn.MSELoss()

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast(a.device, dtype=amp) if amp is not None and mode != "bf16_model" \
                else contextlib.nullcontext():
            y = model(x)
        loss = loss_fn(y.float(), t)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss

    times = []
    loss = None
    for s in range(a.warmup + a.steps):
        if cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = step()
        if cuda:
            torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        if s >= a.warmup:
            times.append(dt)
    return times, float(loss), adam


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="cosmo128", choices=sorted(PRESETS))
    ap.add_argument("--count", action="store_true")
    ap.add_argument("--cosmoflow", help="cosmoflow binary to compare --describe with")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16", "fp16"],
                    help="cpu: fp32 or bf16 (autocast and the model cast); on cuda tf32 allows TF32, "
                         "bf16/fp16 are autocast")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flops-per-sample", type=int, help="executed FLOPs per sample (cosmoflow's count)")
    a = ap.parse_args()
    if not (a.count or a.bench):
        ap.error("give --count and/or --bench")
    if a.device == "cpu" and a.precision not in ("fp32", "bf16"):
        ap.error("--precision %s needs --device cuda (the CPU benchmark is fp32 or bf16)" % a.precision)
    if a.steps < 1 or a.warmup < 0 or a.batch < 1 or a.threads < 1:
        ap.error("--steps, --batch and --threads must be >= 1, --warmup >= 0")
    try:
        import torch
    except ImportError as e:
        print(f"SKIPPED: torch cannot be imported ({e}); apt-get install python3-torch")
        return 77
    c = PRESETS[a.preset]
    rc = 0
    print(f"torch: {torch.__version__}")
    if a.count:
        n = count(torch, c)
        for k, v in n.items():
            print(f"torch_{k}: {v}")
        if a.cosmoflow:
            out = subprocess.run([a.cosmoflow, "--preset", a.preset, "--describe"], capture_output=True,
                                 text=True, check=True).stdout
            for k, v in n.items():
                m = re.search(rf"^{k}\s+(\d+)", out, re.M)
                got = int(m.group(1)) if m else None
                same = got == v
                rc |= 0 if same else 1
                print(f"cosmoflow_{k}: {got} ({'equal' if same else 'DIFFERENT'})")
    if a.bench:
        if a.device == "cuda" and not torch.cuda.is_available():
            print(f"SKIPPED: no CUDA GPU visible to PyTorch (torch {torch.__version__})")
            return 77
        print(f"device: {a.device}")
        if a.device == "cuda":
            print(f"torch_cudnn: {torch.backends.cudnn.version()}")
            print(f"torch_device: \"{torch.cuda.get_device_name(0)}\"")
            torch.cuda.reset_peak_memory_stats()
        else:
            print(f"threads: {a.threads}")
        print(f"precision: {a.precision}")
        print(f"batch: {a.batch}")
        best = None
        cpu_bf16 = a.device == "cpu" and a.precision == "bf16"
        for mode in ("autocast", "bf16_model") if cpu_bf16 else (None,):
            for layout in ("contiguous", "channels_last_3d"):
                name = layout if mode is None else f"{mode}_{layout}"
                try:
                    ts, loss, adam = bench(torch, c, a, layout, mode)
                except RuntimeError as e:
                    if not cpu_bf16:
                        raise
                    msg = str(e).splitlines()[0].replace('"', "'")
                    print(f"{name}: failed (\"{msg}\")")
                    continue
                med = statistics.median(ts)
                print(f"{name}_step_s: [{', '.join(f'{x:.4g}' for x in ts)}]")
                print(f"{name}_median_s: {med:.5g}")
                print(f"{name}_samples_per_s: {a.batch / med:.5g}")
                print(f"{name}_loss_last: {loss:.5g}")
                if best is None or med < best[1]:
                    best = (layout, med, mode)
        if best is None:
            print("FAIL: no variant ran")
            return 1
        if a.device == "cuda":
            amp = "autocast " + a.precision if a.precision in ("bf16", "fp16") else "no autocast"
            print(f"setup: \"{amp}, cudnn.benchmark, {adam} Adam\"")
            print(f"peak_memory_bytes: {torch.cuda.max_memory_allocated()}")
        if cpu_bf16:
            print(f"best_bf16: {best[2]}")
        print(f"best_layout: {best[0]}")
        print(f"median_s: {best[1]:.5g}")
        print(f"samples_per_s: {a.batch / best[1]:.5g}")
        if a.flops_per_sample:
            print(f"executed_tflops: {a.flops_per_sample * a.batch / best[1] / 1e12:.5g}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
