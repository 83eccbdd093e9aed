#!/usr/bin/env python3
"""platgen: a SimGrid platform (XML) and an smpirun hostfile for a GPU machine,
from a few numbers a procurement team has at hand (docs/simulate.md).

One simulated host per node; each GPU is one MPI rank on its node's host, so
traffic between GPUs of a node crosses the host's loopback link, which stands
for NVLink (aggregated: one shared link per node).  Between nodes:

  fattree   SimGrid's FAT_TREE cluster: 2 or 3 levels of switches, the up-links
            of each level divided by --taper (1 = non-blocking)
  dragonfly SimGrid's DRAGONFLY cluster: groups of chassis of routers of nodes
  flat      every node's own link (shared by its GPUs' flows, full duplex)
            plus a backbone: non-blocking (--taper 1) it is a FATPIPE that
            limits no flow, standing for a non-blocking fat tree; tapered, a
            shared link of the bisection bandwidth (nodes x link / 2 / taper).
            Routing is O(1) and no flow is coupled through the backbone, so it
            is the one that reaches tens of thousands of ranks; it ignores
            switch-level contention and counts 3 link latencies per route

Usage: platgen.py --topology fattree|dragonfly|flat --nodes N --gpus-per-node G
                  --link-gbps BW --link-lat-us L [--intra-gbps BW] [--intra-lat-us L]
                  [--taper T] [--gflops F] [--name NAME] --out PREFIX
Writes PREFIX.xml and PREFIX.hosts.  Bandwidths in GB/s (bytes), per node
(a dual-rail node: the sum of both rails).
"""
import argparse
import sys


def die(msg):
    sys.stderr.write("platgen: error: %s\n" % msg)
    sys.exit(2)


def factor_fattree(nodes, radix):
    """down-link counts per level whose product is nodes (2 or 3 levels, at
    most radix down-links per switch: half the ports of a non-blocking one)."""
    for levels in (2, 3):
        best = None
        for a in range(radix, 1, -1):
            if nodes % a:
                continue
            rest = nodes // a
            if levels == 2:
                if rest <= radix:
                    best = [a, rest]
            else:
                for b in range(min(a, radix), 1, -1):
                    if rest % b == 0 and rest // b <= radix:
                        best = [a, b, rest // b]
                        break
            if best:
                break
        if best:
            return best
    die("--nodes %d: no 2- or 3-level fat tree of switches with at most %d "
        "down-links per level has exactly that many nodes" % (nodes, radix))


def args_text(argv):
    """the command line for the file's comment: "--" may not appear in an XML
    comment, so options are written without their dashes"""
    return " ".join(x[2:] if x.startswith("--") else x.replace("--", "-") for x in argv)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--topology", choices=["fattree", "dragonfly", "flat"], required=True)
    p.add_argument("--nodes", type=int, required=True)
    p.add_argument("--gpus-per-node", type=int, required=True)
    p.add_argument("--link-gbps", type=float, required=True, help="node injection GB/s")
    p.add_argument("--link-lat-us", type=float, required=True, help="per link, microseconds")
    p.add_argument("--intra-gbps", type=float, default=None, help="GPU-GPU in a node, GB/s")
    p.add_argument("--intra-lat-us", type=float, default=1.0)
    p.add_argument("--taper", type=float, default=1.0, help="up-link taper (2 = 2:1)")
    p.add_argument("--gflops", type=float, default=1000.0, help="per GPU (core), GFLOP/s")
    p.add_argument("--switch-ports", type=int, default=36, help="fat tree switch radix")
    p.add_argument("--name", default="machine")
    p.add_argument("--out", required=True, help="writes OUT.xml and OUT.hosts")
    a = p.parse_args()
    for k in ("nodes", "gpus_per_node"):
        if getattr(a, k) < 1:
            die("--%s must be at least 1" % k.replace("_", "-"))
    for k in ("link_gbps", "link_lat_us", "taper", "gflops", "intra_lat_us"):
        v = getattr(a, k)
        if not (v > 0) or v != v or v == float("inf"):
            die("--%s must be a positive number" % k.replace("_", "-"))
    if a.taper < 1:
        die("--taper must be 1 (non-blocking) or more")
    intra = a.intra_gbps if a.intra_gbps else 10 * a.link_gbps
    # one core per GPU: a rank computes at --gflops whatever its node-mates do
    common = ('id="%s" prefix="%s-" suffix="" radical="0-%d" speed="%gGf" core="%d" '
              'bw="%gGBps" lat="%gus" loopback_bw="%gGBps" loopback_lat="%gus"'
              % (a.name, a.name, a.nodes - 1, a.gflops, a.gpus_per_node, a.link_gbps,
                 a.link_lat_us, intra, a.intra_lat_us))
    if a.topology == "flat":
        bb = a.nodes * a.link_gbps / 2 / a.taper
        pol = "FATPIPE" if a.taper == 1 else "SHARED"
        cluster = ('<cluster %s sharing_policy="SPLITDUPLEX" bb_bw="%gGBps" bb_lat="%gus" '
                   'bb_sharing_policy="%s"/>' % (common, bb, a.link_lat_us, pol))
        shape = "flat, backbone %g GB/s" % bb
    elif a.topology == "fattree":
        if a.switch_ports < 4:
            die("--switch-ports must be at least 4")
        down = factor_fattree(a.nodes, a.switch_ports // 2)
        # parents per switch of each level: one for a host, then the down-link
        # count of the level below divided by the taper (at least 1)
        up = [1] + [max(1, int(round(down[i - 1] / a.taper))) for i in range(1, len(down))]
        params = "%d;%s;%s;%s" % (len(down), ",".join(map(str, down)),
                                  ",".join(map(str, up)), ",".join("1" * len(down)))
        cluster = '<cluster %s topology="FAT_TREE" topo_parameters="%s"/>' % (common, params)
        shape = "fat tree %s" % params
    else:
        # groups of chassis of routers of nodes; 4 nodes per router, 16 routers
        # per chassis, as many chassis per group as fit 6 groups or more
        per_router = 4
        if a.nodes % per_router:
            die("--nodes %d: a dragonfly here has 4 nodes per router" % a.nodes)
        routers = a.nodes // per_router
        rpc = 16 if routers % 16 == 0 else 1
        chassis = routers // rpc
        cpg = 1
        for c in range(1, chassis + 1):
            if chassis % c == 0 and chassis // c >= min(6, chassis):
                cpg = c
        groups = chassis // cpg
        glinks = max(1, int(round(2 / a.taper)))
        params = "%d,%d;%d,1;%d,1;%d" % (groups, glinks, cpg, rpc, per_router)
        cluster = '<cluster %s topology="DRAGONFLY" topo_parameters="%s"/>' % (common, params)
        shape = "dragonfly %s" % params
    with open(a.out + ".xml", "w") as f:
        f.write("<?xml version='1.0'?>\n"
                '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                '<!-- generated by reference/platforms/platgen.py %s -->\n'
                '<!-- %d nodes x %d GPUs (ranks), %s -->\n'
                '<platform version="4.1">\n  <zone id="world" routing="Full">\n    %s\n'
                '  </zone>\n</platform>\n'
                % (args_text(sys.argv[1:]), a.nodes, a.gpus_per_node, shape, cluster))
    with open(a.out + ".hosts", "w") as f:
        for n in range(a.nodes):
            f.write("%s-%d:%d\n" % (a.name, n, a.gpus_per_node))


if __name__ == "__main__":
    main()
