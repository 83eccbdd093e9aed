"""Compare a split stemdl run with the 1-rank run at the same samples.

usage: stemdl_compare.py ONE.yaml SPLIT.yaml ONE_WEIGHTS SPLIT_WEIGHTS_PREFIX RANKS

Prints "ok ..." when every step's loss is within 1e-5 relative of the 1-rank
run's, every rank's weight dump is byte-identical, and the weights are within
1e-4 of the 1-rank run's largest weight (docs/spatial.md says why the weights
need the wider bound); else "bad ...".
"""
import array
import sys


def losses(path):
    # the record's loss block: "loss:", "  warmup: [...]", "  steps: [...]" (flow list)
    text = open(path).read()
    start = text.index("\nloss:\n")
    steps = text.index("  steps: [", start) + len("  steps: [")
    return [float(v) for v in text[steps:text.index("]", steps)].split(",")]


def main(one_path, split_path, w1_path, ws_prefix, nranks):
    one, split = losses(one_path), losses(split_path)
    w1 = array.array("f")
    with open(w1_path, "rb") as f:
        w1.frombytes(f.read())
    ranks = [open(f"{ws_prefix}.{r}", "rb").read() for r in range(int(nranks))]
    if len(one) != len(split) or not one:
        print(f"bad steps {len(one)} vs {len(split)}")
        return
    loss_rel = max(abs(a - b) / abs(a) for a, b in zip(one, split))
    same = all(r == ranks[0] for r in ranks)
    ws = array.array("f")
    ws.frombytes(ranks[0])
    big = max(abs(v) for v in w1)
    wdiff = max(abs(a - b) for a, b in zip(w1, ws)) if len(ws) == len(w1) else float("inf")
    ok = loss_rel <= 1e-5 and same and wdiff <= 1e-4 * big
    print(f"{'ok' if ok else 'bad'} {len(one)} steps, loss within {loss_rel:.2g} relative, ranks "
          f"{'identical' if same else 'DIFFER'}, weights within {wdiff / big:.2g} of the largest")


if __name__ == "__main__":
    main(*sys.argv[1:6])
