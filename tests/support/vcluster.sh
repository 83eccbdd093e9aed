#!/usr/bin/env bash
# vcluster.sh: a cluster on one machine (docs/vcluster.md).  N emulated nodes
# n1..nN, each a network + UTS + mount namespace with its own hostname, its
# own /tmp and one veth link of a given rate to a Linux bridge; COMMAND runs on
# the "head" (where mpirun, srun and exadl run), and everything is stopped by
# PID and removed when it ends, whatever happens.
#
#   tests/support/vcluster.sh [--nodes N] [--rate RATE] [--slots S] [--slurm]
#                             [--dir DIR] [--check] -- COMMAND ARGS...
#     N      nodes, 1..64 [2]
#     RATE   each node's link, each way: 1gbit, 10gbit, 25gbit, 500mbit, ...
#            (tc's units), or unlimited [unlimited]
#     S      slots (CPUs) a node offers to mpirun and Slurm [2]
#     --slurm  also munged, slurmctld on the head and one slurmd per node
#              (tests/support/slurm_local.sh's settings); COMMAND sees SLURM_CONF
#     DIR    the cluster's folder, kept afterwards; not under /tmp, which each
#            node replaces [a new one under /var/tmp, removed at the end
#            unless COMMAND failed]
#     --check  measure each link (one TCP stream n1 -> nK) and print it
#
# The whole cluster lives in a private network and mount namespace of its own
# (unshare -n -m): the bridge, the head's address 10.231.0.254/24 and the
# /etc/hosts that names the nodes exist only there, and vanish with it even
# after SIGKILL.  Node K is a process (`sh`) holding namespaces made by
# unshare -n -u -m, which exits when the script does (even by SIGKILL: it
# reads a FIFO only the script writes); it has eth0 = 10.231.0.K/24, the peer vcK of which is a
# bridge port, and a tc htb qdisc of RATE on both ends (netem is not used: not
# every kernel has it).  Commands enter a node with nsenter -t PID -n -u -m,
# not `ip netns exec`, which remounts /sys and hides the cgroups slurmd needs.
#
# COMMAND's environment points Open MPI at the cluster: the hostfile
# (OMPI_MCA_orte_default_hostfile: nK slots=S), the rsh agent DIR/rsh (runs
# orted inside node K), TCP over 10.231.0.0/24 between nodes, shared memory
# inside one.  EXADL_EMULATED_NETWORK says what was emulated; the benchmarks
# write it into their records (system.network_emulated) and the report's System
# table shows it.  Also: EXADL_VCLUSTER_DIR, _NODES ("n1 n2"), _HOSTFILE, _RATE.
#
# With a rate, one TCP stream n1 -> n2 is measured first: above 1.2 x RATE the
# script refuses (the htb does not hold); below 0.8 x RATE it warns and records
# that the machine, not the htb, limits the link (10gbit and up on a small one).
#
# Exit status: COMMAND's; 2 bad usage; 3 the cluster cannot be made here (not
# root, no veth/bridge/htb, a daemon that would not start, the rate not held),
# said in one line starting "vcluster.sh: cannot".  Sourced (tests), it defines vc_node_pid and
# vc_on only.
set -u
me=vcluster.sh
vc_say() { printf '%s: %s\n' "$me" "$*" >&2; }
vc_refuse() { vc_say "cannot $*"; exit 3; }
VC_NET=10.231.0
VC_HEAD_ADDR=$VC_NET.254

# the holder PID of node $1 (n1..), or nothing
vc_node_pid() { cat "${EXADL_VCLUSTER_DIR:?}/nodes/$1.pid" 2>/dev/null; }
# run a command on node $1, as its rsh agent would
vc_on() {
    local p
    p=$(vc_node_pid "$1") || { echo "$me: no node $1" >&2; return 255; }
    shift
    nsenter -t "$p" -n -u -m -- "$@"
}
(return 0 2>/dev/null) && return 0

nodes=2 rate=unlimited slots=2 slurm=0 dir= check=0 inside=0 remove=0 args=()
while [ $# -gt 0 ]; do
    case $1 in
        --nodes) nodes=${2:-}; shift 2 || { vc_say "--nodes needs a value"; exit 2; } ;;
        --rate) rate=${2:-}; shift 2 || { vc_say "--rate needs a value"; exit 2; } ;;
        --slots) slots=${2:-}; shift 2 || { vc_say "--slots needs a value"; exit 2; } ;;
        --dir) dir=${2:-}; shift 2 || { vc_say "--dir needs a value"; exit 2; } ;;
        --slurm) slurm=1; shift ;;
        --check) check=1; shift ;;
        --inside) inside=1; shift ;;
        --remove) remove=1; shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) vc_say "unknown option '$1' (usage: $me [--nodes N] [--rate RATE] [--slots S] [--slurm] [--dir DIR] [--check] -- COMMAND...)"; exit 2 ;;
    esac
done
case $nodes in ''|*[!0-9]*) vc_say "--nodes '$nodes' is not a number 1..64"; exit 2 ;; esac
[ "$nodes" -ge 1 ] && [ "$nodes" -le 64 ] || { vc_say "--nodes $nodes: give 1..64"; exit 2; }
case $slots in ''|*[!0-9]*|0) vc_say "--slots '$slots' is not a positive number"; exit 2 ;; esac
[ $check = 1 ] || [ $# -gt 0 ] || { vc_say "no command after --"; exit 2; }
. "$(dirname "${BASH_SOURCE[0]}")/../../harness/launchers/net_rate.sh"
bps=$(net_rate_bps "$rate")
[ "$bps" != bad ] || { vc_say "rate '$rate' is not a number with kbit, mbit, gbit or tbit (or unlimited)"; exit 2; }

if [ $inside = 0 ]; then
    [ "$(id -u)" = 0 ] || vc_refuse "make the cluster: it needs root (network namespaces, veth, a bridge); not root here"
    for t in unshare nsenter ip tc hostname mount python3; do
        command -v $t >/dev/null 2>&1 || vc_refuse "make the cluster: '$t' is not installed (util-linux, iproute2, python3)"
    done
    err=$(unshare -n -m true 2>&1) || vc_refuse "make a network namespace here (unshare -n -m: ${err:-refused})"
    if [ -z "$dir" ]; then
        dir=$(mktemp -d /var/tmp/vcluster.XXXXXX) || vc_refuse "make a folder under /var/tmp"
        args=(--remove)
    fi
    mkdir -p "$dir" || vc_refuse "make $dir"
    dir=$(cd "$dir" && pwd -P)
    # each node mounts a /tmp of its own: what the nodes share must live elsewhere
    case $dir/ in /tmp/*) vc_say "--dir $dir is under /tmp, which each node replaces by its own: give another folder"; exit 2 ;; esac
    args+=(--inside --nodes "$nodes" --rate "$rate" --slots "$slots" --dir "$dir")
    [ $slurm = 1 ] && args+=(--slurm)
    [ $check = 1 ] && args+=(--check)
    # the whole cluster in one private network and mount namespace: what the
    # script makes there cannot outlive it
    exec unshare -n -m --propagation private bash "$0" "${args[@]}" -- "$@"
fi

# ---- inside the cluster's namespace: the head ------------------------------------------
export EXADL_VCLUSTER_DIR=$dir
holders=()
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM HUP
    [ $slurm = 1 ] && [ -n "${slurm_dir:-}" ] && slurm_down
    for p in "${holders[@]}"; do kill -9 "$p" 2>/dev/null; done
    for p in "${holders[@]}"; do wait "$p" 2>/dev/null; done
    # the folder this script made goes too, unless COMMAND failed (its logs are there)
    [ $remove = 1 ] && { [ $rc = 0 ] || [ $rc = 3 ] || [ $check = 1 ]; } && rm -rf "$dir"
    [ $remove = 1 ] && [ -d "$dir" ] && vc_say "exit $rc: the cluster's folder $dir is kept (logs)"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

mkdir -p "$dir/nodes" && mkfifo "$dir/nodes/alive" || vc_refuse "make $dir/nodes and its FIFO"
ip link set lo up || vc_refuse "bring the head's loopback up"
err=$(ip link add vcbr0 type bridge 2>&1) || vc_refuse "make a Linux bridge (ip link add type bridge: $err)"
ip addr add $VC_HEAD_ADDR/24 dev vcbr0 && ip link set vcbr0 up || vc_refuse "address the bridge"
head=$(hostname)
{
    echo "127.0.0.1 localhost"
    echo "$VC_HEAD_ADDR $head head"
    for ((k = 1; k <= nodes; k++)); do echo "$VC_NET.$k n$k"; done
} >"$dir/hosts"
# every process of the cluster resolves the nodes (mpirun, slurmctld, srun)
mount --bind "$dir/hosts" /etc/hosts || vc_refuse "bind-mount $dir/hosts on /etc/hosts"

# htb of RATE on device $1 of the namespace we are in (burst: 1 ms of data, >= 64 KiB)
vc_htb() {
    [ "$bps" = 0 ] && return 0
    local burst=$((bps / 8 / 1000))
    [ $burst -lt 65536 ] && burst=65536
    tc qdisc add dev "$1" root handle 1: htb default 10 r2q 1000 &&
        tc class add dev "$1" parent 1: classid 1:10 htb rate "${bps}bit" ceil "${bps}bit" \
            burst $burst cburst $burst quantum 60000
}
export -f vc_htb
export bps

# the project itself may live under /tmp (a CI clone): each node sees it at the
# same path inside its own /tmp (bound in before that /tmp is mounted)
proj=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
case $proj/ in /tmp/*) keep=${proj#/tmp/} ;; *) keep= ;; esac
for ((k = 1; k <= nodes; k++)); do
    n=n$k
    mkdir -p "$dir/$n/tmp" && chmod 1777 "$dir/$n/tmp" || vc_refuse "make $dir/$n/tmp"
    [ -z "$keep" ] || mkdir -p "$dir/$n/tmp/$keep" || vc_refuse "make $dir/$n/tmp/$keep"
    # the holder: hostname and /tmp set inside its new namespaces, then it sleeps
    # then waits on the FIFO "alive", whose one writer is this script (fd 9):
    # when the script ends in any way, SIGKILL included, the holders read EOF
    # and exit, and their namespaces go with them
    unshare -n -u -m --propagation private sh -c \
        'hostname "$1" && exec 3>"$3" && { [ -z "$5" ] || mount --bind "/tmp/$5" "$2/$5"; } &&
         mount --rbind "$2" /tmp && echo up >&3 && exec 3>&- 0<"$4" && read -r _' \
        holder "$n" "$dir/$n/tmp" "$dir/nodes/$n.ready" "$dir/nodes/alive" "$keep" 2>"$dir/nodes/$n.err" 9>&- &
    p=$!
    holders+=("$p")
    for _ in $(seq 100); do [ -s "$dir/nodes/$n.ready" ] && break; kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    [ -s "$dir/nodes/$n.ready" ] || vc_refuse "make node $n (unshare -n -u -m: $(tail -n 1 "$dir/nodes/$n.err"))"
    [ $k = 1 ] && exec 9>"$dir/nodes/alive" # opens once the first holder reads
    echo "$p" >"$dir/nodes/$n.pid"
    err=$(ip link add vc$k type veth peer name eth0 netns "$p" 2>&1) || vc_refuse "make a veth link for $n ($err)"
    ip link set vc$k master vcbr0 && ip link set vc$k up || vc_refuse "put vc$k on the bridge"
    vc_htb vc$k || vc_refuse "put an htb qdisc of $rate on vc$k (is sch_htb available?)"
    nsenter -t "$p" -n bash -c "ip link set lo up && ip addr add $VC_NET.$k/24 dev eth0 && ip link set eth0 up && vc_htb eth0" ||
        vc_refuse "address $n's eth0 or put an htb qdisc on it"
done

# the rsh agent of Open MPI: `rsh [options] HOST COMMAND...`, COMMAND a shell
# line as ssh would run it
cat >"$dir/rsh" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
p=\$(cat "$dir/nodes/\$1.pid" 2>/dev/null) || { echo "vcluster rsh: no emulated node '\$1' (nodes: n1..n$nodes)" >&2; exit 255; }
shift
exec nsenter -t "\$p" -n -u -m -- /bin/sh -c "\$*"
EOF
chmod 755 "$dir/rsh"
: >"$dir/hostfile"
for ((k = 1; k <= nodes; k++)); do echo "n$k slots=$slots" >>"$dir/hostfile"; done

# every link carries RATE only if the machine can push it: one TCP stream
# n1 -> nK (head -> n1 for one node), timed at the receiver
vc_measure() { # $1 from-pid (or ""), $2 to-pid, $3 to-address: bits/s
    local port=47999 n
    n=$(awk -v b="$bps" 'BEGIN { x = b / 8 * 0.5; if (b == 0 || x < 8388608) x = (b == 0 ? 268435456 : 8388608); printf "%d", x }')
    nsenter -t "$2" -n python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); buf = bytearray(1 << 20); got = 0; t0 = None
while got < int(sys.argv[2]):
    k = c.recv_into(buf)
    if k == 0: break
    if t0 is None: t0 = time.monotonic()
    got += k
print("%.0f" % (got * 8 / (time.monotonic() - t0)))' $port "$n" >"$dir/probe.out" 2>&1 &
    local rp=$!
    for _ in $(seq 100); do grep -q ready "$dir/probe.out" && break; sleep 0.05; done
    local send='import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2]))); left = int(sys.argv[3]); b = b"\0" * (1 << 20)
while left > 0: left -= s.send(b[:min(left, len(b))])
s.close()'
    if [ -n "$1" ]; then nsenter -t "$1" -n python3 -c "$send" "$3" $port "$n"; else python3 -c "$send" "$3" $port "$n"; fi
    wait $rp
    tail -n 1 "$dir/probe.out"
}
measured= below=
if [ $check = 1 ] || [ "$bps" != 0 ]; then
    if [ "$nodes" -ge 2 ]; then
        measured=$(vc_measure "$(cat "$dir/nodes/n1.pid")" "$(cat "$dir/nodes/n2.pid")" $VC_NET.2)
    else
        measured=$(vc_measure "" "$(cat "$dir/nodes/n1.pid")" $VC_NET.1)
    fi
    case $measured in ''|*[!0-9]*) vc_refuse "measure the emulated link (the probe printed '$measured')" ;; esac
    gbps=$(awk -v m="$measured" 'BEGIN { printf "%.3g", m / 1e9 }')
    if [ "$bps" != 0 ]; then
        over=$(awk -v m="$measured" -v r="$bps" 'BEGIN { print (m > 1.2 * r ? 1 : m < 0.8 * r ? -1 : 0) }')
        [ "$over" != 1 ] || vc_refuse "limit the link to $rate: one TCP stream between two nodes got $gbps Gbit/s, above it (the htb qdisc does not hold)"
        # below the rate: the machine (CPU, load) is the limit, not the htb; said,
        # and recorded in EXADL_EMULATED_NETWORK with the measured stream
        if [ "$over" = -1 ]; then
            below=" (below $rate: this machine's veth pairs and CPUs, not the htb, are the limit)"
            vc_say "warning: one TCP stream between two nodes reached only $gbps Gbit/s of $rate$below"
        fi
    fi
    vc_say "link $rate: one TCP stream between two nodes reached $gbps Gbit/s"
fi
[ $check = 1 ] && { echo "${measured:-0}"; exit 0; }

nodelist=$(for ((k = 1; k <= nodes; k++)); do printf '%sn%d' "$([ $k -gt 1 ] && echo ,)" $k; done)
export EXADL_VCLUSTER_NODES=${nodelist//,/ } EXADL_VCLUSTER_HOSTFILE=$dir/hostfile EXADL_VCLUSTER_RATE=$rate
export EXADL_EMULATED_NETWORK="$nodes emulated nodes ($nodelist) on one host ($head): each a network namespace behind a veth link to a Linux bridge, $([ "$bps" = 0 ] && echo "no rate limit" || echo "tc htb $rate each way per node")$([ -n "$measured" ] && awk -v m="$measured" -v b="$below" 'BEGIN { printf " (one TCP stream measured %.3g Gbit/s%s)", m / 1e9, b }'); shared memory inside a node; CPU cores and memory shared by all nodes (tests/support/vcluster.sh)"
export OMPI_MCA_plm_rsh_agent=$dir/rsh OMPI_MCA_orte_default_hostfile=$dir/hostfile
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=$VC_NET.0/24 OMPI_MCA_oob_tcp_if_include=$VC_NET.0/24
export OMPI_MCA_pml=ob1
# every node "has" the machine's cores: each orted would bind its first rank to core 0
export OMPI_MCA_hwloc_base_binding_policy=none
# a Slurm job around the script is not the emulated cluster's
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

if [ $slurm = 1 ]; then
    . "$(dirname "$0")/slurm_local.sh"
    slurm_node_run=vc_on
    # the daemons must not hold the holders' FIFO open (fd 9)
    slurm_nodes_up "$dir/slurm" "$nodes" "$slots" "$VC_HEAD_ADDR" 9>&- || vc_refuse "start Slurm on the nodes: $slurm_why"
fi

vc_say "up: $nodes nodes ($nodelist), link $rate, head $VC_HEAD_ADDR, folder $dir$([ $slurm = 1 ] && echo ", Slurm $SLURM_CONF")"
# in the background, so that a signal reaches the traps (and is passed on) at once
"$@" 0<&0 9>&- &
cpid=$!
trap 'kill -TERM $cpid 2>/dev/null; wait $cpid; exit 130' INT
trap 'kill -TERM $cpid 2>/dev/null; wait $cpid; exit 143' TERM
wait $cpid
