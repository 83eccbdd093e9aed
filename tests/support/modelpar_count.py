#!/usr/bin/env python3
"""modelpar_count: the counts of benchmarks/modelpar recomputed by another
route than mp_geom.c, for tests/it/modelpar.sh.

Parameters are counted by walking every position of every layer and adding
its filter and bias; FLOPs by listing, position by position, the kernel
calls a step makes (as counted.c's formulas price them); halo bytes by
walking every rank's neighbours and every message; memory by listing every
buffer.  Usage:
  modelpar_count.py describe SIZE CH H1 H2 K M GY GX RANKS BATCH DENSE [SPARSE]
      -> key: value lines (SPARSE 1: with the sparsity term)
  modelpar_count.py weights SIZE CH H1 H2 K GY GX PATH NRANKS DENSE     -> the whole model,
      reassembled from the shards PATH.<rank> of model group 0, to PATH.whole
"""
import struct
import sys


def layers(size, ch, h1, h2, k):
    chans = [ch, h1, h2, ch]
    return [(chans[i], chans[i + 1]) for i in range(3)]


def describe(size, ch, h1, h2, k, M, gy, gx, ranks, n, dense, sparse=0):
    L = layers(size, ch, h1, h2, k)
    pad = (k - 1) // 2
    th, tw = size // gy, size // gx
    out = {}
    params = 0
    for y in range(size):
        for x in range(size):
            for ci, co in L:
                params += co * ci * k * k + co
    for j in range(dense):      # the pair: hidden unit j's row of tp1, column of tp2
        params += h2 + h2
    out["parameters"] = params

    def step_flops(batch, positions, ds):
        f = 0
        for _ in range(size * size * batch):   # every position of the group, every sample
            f += 2 * 2 * h2 * ds                # tp1, tp2 forward
            f += 2 * ds                         # leaky ReLU forward
            f += 4 * 2 * h2 * ds                # weight and data gradients of both
            f += 2 * ds                         # leaky ReLU backward
        for _ in range(positions):
            for l, (ci, co) in enumerate(L):
                fin = ci * k * k
                f += 2 * batch * fin * co          # dense_fwd
                f += batch * co                    # bias3d_fwd
                f += 2 * batch * co * (l < 2)      # lrelu_fwd
                f += batch * co                    # bias3d_bwd
                f += 2 * batch * fin * co          # dense_bwd_weights
                if l > 0:
                    f += 2 * batch * fin * co      # dense_bwd_data
                    f += k * (batch * k * ci)      # k adds of a patch row
                f += 2 * batch * co * (l < 2)      # lrelu_bwd
            f += 3 * batch * ch + 1                # mse_fwd
            f += 2 * batch * ch                    # mse_bwd
        if sparse:   # over the tile's code: L1 forward, its sign, the scale (a 1x1 GEMM), add
            code = positions * batch * h2
            f += (3 * code + 1) + 2 * code + 2 * code + code
        return f

    out["train_flops_per_sample"] = step_flops(1, size * size, dense)
    # forward GEMMs of the locally connected layers, counted per output value:
    # each of the size^2 positions, each output channel, a multiply and an add
    # per input of its receptive field
    fwd = 0
    for ci, co in L:
        fwd += size * size * co * (2 * ci * k * k)
    out["forward_conv_flops_per_sample"] = fwd
    out["convention_flops_per_sample"] = fwd + fwd + fwd
    ds = dense // M
    pr = th * tw * sum(co * (ci * k * k + 1) for ci, co in L) + 2 * ds * h2
    out["mp_parameters_per_rank"] = pr
    out["train_flops_per_step_rank0"] = step_flops(n, th * tw, ds)
    out["executed_flops_per_step_rank0"] = out["train_flops_per_step_rank0"] + 13 * pr  # Adam
    group = 0
    rank0 = 0
    for s in range(M):
        ty, tx = divmod(s, gx)
        sent = 0
        for l in (1, 2):
            ci = L[l][0]
            for dy, dx in ((0, -1), (0, 1), (-1, 0), (1, 0)):
                if 0 <= ty + dy < gy and 0 <= tx + dx < gx:
                    rows, cols = (th, pad) if dy == 0 else (pad, tw + 2 * pad)
                    sent += 2 * rows * cols * ci * n * 4   # forward and backward
        group += sent
        if s == 0:
            rank0 = sent
    out["mp_halo_bytes_per_step"] = group
    out["halo_bytes_per_step_rank0"] = rank0
    buf = 2 * pr
    maxco = max(co for _, co in L)
    maxin = max(ci * k * k for ci, _ in L)
    for l, (ci, co) in enumerate(L):
        a = n * (th + 2 * pad) * (tw + 2 * pad) * ci
        buf += a + (a if l else 0) + th * tw * n * co
    buf += th * tw * n * ch + th * tw * n * maxco + 2 * n * maxin
    stage = max(pad * max(th, tw + 2 * pad) * L[l][0] * n for l in (1, 2))
    buf += 2 * stage
    if dense:
        buf += n * size * size * (h2 + h2 + ds + ds) + n * th * tw * h2
    if sparse:
        buf += 3 * th * tw * n * h2 + 1
    # two allgathers and two reduce-scatters of the tile's h2 channels, (M-1)/M of the whole
    out["mp_tp_bytes_per_step"] = 4 * (M - 1) * th * tw * n * h2 * 4 if dense else 0
    out["mp_memory_formula_bytes"] = 4 * buf + 8 * pr + 4 * pr  # Adam m, v; the runtime's copy
    return out


def weights(size, ch, h1, h2, k, gy, gx, path, nranks, dense):
    L = layers(size, ch, h1, h2, k)
    th, tw = size // gy, size // gx
    shards = []
    for r in range(nranks):
        with open("%s.%d" % (path, r), "rb") as f:
            b = f.read()
        shards.append(struct.unpack("<%df" % (len(b) // 4), b))
    whole = []
    for l, (ci, co) in enumerate(L):
        fin = ci * k * k
        per = co * fin
        w = [None] * (size * size)
        b = [None] * (size * size)
        for r in range(nranks):
            ty, tx = divmod(r, gx)
            off = sum(th * tw * c2 * (c1 * k * k + 1) for c1, c2 in L[:l])
            for t in range(th * tw):
                y, x = ty * th + t // tw, tx * tw + t % tw
                w[y * size + x] = shards[r][off + t * per: off + (t + 1) * per]
                bo = off + th * tw * per + t * co
                b[y * size + x] = shards[r][bo: bo + co]
        for p in w:
            whole.extend(p)
        for p in b:
            whole.extend(p)
    if dense:
        ds = dense // nranks
        base = th * tw * sum(c2 * (c1 * k * k + 1) for c1, c2 in L)
        tp1 = []
        tp2 = [[0.0] * dense for _ in range(h2)]
        for r in range(nranks):
            tp1.extend(shards[r][base: base + ds * h2])
            for i in range(h2):
                for j in range(ds):
                    tp2[i][r * ds + j] = shards[r][base + ds * h2 + i * ds + j]
        whole.extend(tp1)
        for row in tp2:
            whole.extend(row)
    with open(path + ".whole", "wb") as f:
        f.write(struct.pack("<%df" % len(whole), *whole))


def main():
    a = sys.argv[1:]
    if a and a[0] == "describe" and len(a) in (12, 13):
        v = [int(x) for x in a[1:]]
        for key, val in describe(*v).items():
            print("%s: %d" % (key, val))
    elif a and a[0] == "weights" and len(a) == 11:
        weights(*[int(x) for x in a[1:8]], a[8], int(a[9]), int(a[10]))
    else:
        sys.exit(__doc__)


main()
