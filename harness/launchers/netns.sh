#!/usr/bin/env bash
# netns.sh: run a command in a network namespace whose loopback is
# rate-limited: the emulated slow network of docs/lioncub.md ("Emulated
# Ethernet").  The netns launcher (netns.c) puts it in front of mpirun; it
# also works alone.
#
#   harness/launchers/netns.sh [--rate RATE] [--check] [-- COMMAND ARGS...]
#     RATE     1gbit, 10gbit, 25gbit, 500mbit, ... (tc's units), or unlimited;
#              default $EXADL_NET_RATE
#     --check  set up and measure the link, print the rate and stop
#
# Inside a new namespace (unshare -n; unshare -rn where not root: a user
# namespace too) the loopback is brought up and, unless unlimited, its egress
# gets an htb qdisc of RATE.  Every packet between the ranks of one host
# crosses that one loopback, so RATE is the total of all ranks' traffic: a
# shared medium of RATE (2 ranks sending at once get RATE/2 each way).
# netem is not used (not every kernel has it).  Open MPI is told to talk TCP
# over it (OMPI_MCA_btl=self,tcp, btl_tcp_if_include=lo, oob over lo, pml ob1).
#
# Before COMMAND the achieved rate is measured: one TCP stream of about half a
# second of data, timed at the receiver (python3).  More than 20% above RATE
# the script refuses (the shaping does not hold); more than 20% below it warns
# and goes on (the machine cannot fill the link: EXADL_NET_MEASURED_BPS says
# what it reached).  Exit status: COMMAND's; 2 bad usage; 3 the emulation is not
# possible here (no namespace, no tc/htb, no python3 for the check, the rate
# not reached), said in one line.
set -u
me=netns.sh
say() { printf '%s: %s\n' "$me" "$*" >&2; }
refuse() { say "$*"; exit 3; }

rate=${EXADL_NET_RATE:-}
check=0 inside=0 userns=0
while [ $# -gt 0 ]; do
    case $1 in
        --rate) [ $# -ge 2 ] || { say "--rate needs a value"; exit 2; }; rate=$2; shift 2 ;;
        --rate=*) rate=${1#--rate=}; shift ;;
        --check) check=1; shift ;;
        --inside) inside=1; shift ;;
        --userns) userns=1; shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "unknown option '$1' (usage: $me [--rate RATE] [--check] [-- COMMAND...])"; exit 2 ;;
    esac
done
[ -n "$rate" ] || { say "no rate: give --rate RATE or set EXADL_NET_RATE (e.g. 1gbit, unlimited)"; exit 2; }
[ $check = 1 ] || [ $# -gt 0 ] || { say "no command after --"; exit 2; }

# RATE in bits per second (tc's decimal units), or 0 for unlimited
. "$(dirname "${BASH_SOURCE[0]}")/net_rate.sh"
bps=$(net_rate_bps "$rate")
[ "$bps" != bad ] || { say "rate '$rate' is not a number with kbit, mbit, gbit or tbit (or unlimited)"; exit 2; }

if [ $inside = 0 ]; then
    # into a fresh namespace, then this script again
    for t in unshare ip tc; do
        command -v $t >/dev/null 2>&1 || refuse "'$t' is not installed (util-linux, iproute2): no emulated network"
    done
    opts=(-n)
    [ "$(id -u)" = 0 ] || opts=(-r -n)
    if ! err=$(unshare "${opts[@]}" true 2>&1); then
        refuse "cannot create a network namespace here (unshare ${opts[*]}: ${err:-refused}); the emulated network needs one: run as root, or where user namespaces are allowed"
    fi
    args=(--inside --rate "$rate")
    [ "$(id -u)" = 0 ] || args+=(--userns)
    [ $check = 1 ] && args+=(--check)
    exec unshare "${opts[@]}" bash "$0" "${args[@]}" -- "$@"
fi

ip link set lo up || refuse "cannot bring the namespace's loopback up (ip link set lo up)"
if [ "$bps" != 0 ]; then
    # burst: 1 ms of data, at least 128 KiB (two 64 KiB loopback packets)
    burst=$((bps / 8 / 1000)); [ $burst -lt 131072 ] && burst=131072
    tc qdisc add dev lo root handle 1: htb default 10 r2q 1000 2>/dev/null &&
        tc class add dev lo parent 1: classid 1:10 htb rate "$bps"bit ceil "$bps"bit \
            burst $burst cburst $burst quantum 200000 ||
        refuse "tc could not put an htb qdisc of $rate on the loopback (is sch_htb available?)"
fi

command -v python3 >/dev/null 2>&1 || refuse "python3 is needed to measure the emulated link; not found"
measured=$(python3 - "$bps" <<'PY'
import socket, sys, threading, time
bps = float(sys.argv[1])
n = max(int(bps / 8 * 0.5), 8 << 20) if bps > 0 else 256 << 20
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
res = {}
def recv():
    c, _ = srv.accept()
    buf, got, t0 = bytearray(1 << 20), 0, None
    while got < n:
        k = c.recv_into(buf)
        if k == 0:
            break
        if t0 is None:
            t0 = time.monotonic()
        got += k
    res["bps"] = got * 8 / (time.monotonic() - t0)
    c.close()
th = threading.Thread(target=recv)
th.start()
s = socket.create_connection(("127.0.0.1", srv.getsockname()[1]))
chunk, left = b"\0" * (1 << 20), n
while left > 0:
    left -= s.send(chunk[:min(left, len(chunk))])
s.close()
th.join()
print("%.0f" % res["bps"])
PY
) || refuse "the link measurement failed"
gbps=$(awk -v m="$measured" 'BEGIN { printf "%.3g", m / 1e9 }')
if [ "$bps" = 0 ]; then
    say "rate unlimited (no qdisc): a TCP stream over the namespace's loopback reached $gbps Gbit/s"
else
    fast=$(awk -v m="$measured" -v r="$bps" 'BEGIN { print (m > 1.2 * r) ? 1 : 0 }')
    slow=$(awk -v m="$measured" -v r="$bps" 'BEGIN { print (m < 0.8 * r) ? 1 : 0 }')
    # faster than the rate: the shaping does not work, the run would measure
    # another network; slower: this machine cannot fill the link (its cores
    # or the probe's one Python stream), the run goes on at what it reaches
    [ "$fast" = 1 ] && refuse "the emulated link reached $gbps Gbit/s, more than 20% above $rate: the tc htb limit does not hold"
    if [ "$slow" = 1 ]; then
        say "warning: rate $rate: a TCP stream reached only $gbps Gbit/s (a loaded machine, or one Python stream, cannot fill the link): the link is at most that fast here (EXADL_NET_MEASURED_BPS)"
    else
        say "rate $rate (tc htb on the namespace's loopback, shared by all ranks): a TCP stream reached $gbps Gbit/s"
    fi
fi
[ $check = 1 ] && { echo "$measured"; exit 0; }

export EXADL_NET_RATE=$rate EXADL_NET_MEASURED_BPS=$measured
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_pml=ob1
# in a user namespace the caller, not root, appears as root to mpirun
[ $userns = 1 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec "$@"
