# A real single-node Slurm for the tests, sourced by tests/it/slurm*.sh:
# munged, slurmctld and slurmd of Debian's packages (munge, slurmctld, slurmd,
# slurm-client), started by hand (no systemd) as root with their own key,
# sockets, spool, state and slurm.conf under one folder, on free ports; the
# node line comes from `slurmd -C`.  MpiDefault=none, Slurm's built-in value,
# so that exadl's --mpi choice and preflight are exercised.  Stopped by PID.
#
# The node offers 8 CPUs whatever the host has (config_overrides), so that
# 2-task jobs run on a 1-core CI machine too, and several jobs at once.
#
#   slurm_up DIR    start everything; 0 and SLURM_CONF exported, or 1 with the
#                   reason in $slurm_why (the caller prints SKIP with it)
#   slurm_down      stop the daemons by PID (idempotent; call it from a trap)
#
#   slurm_nodes_up DIR N CPUS ADDR   the same over the N nodes of an emulated
#                   cluster (tests/support/vcluster.sh --slurm)
#
# Commands of the tests (salloc, sbatch, srun, squeue) find the cluster
# through SLURM_CONF.
#
# As a command, to try exadl under Slurm by hand (docs/harness.md "Running
# under Slurm"):
#   bash tests/support/slurm_local.sh up DIR     start it; prints the SLURM_CONF to export
#   bash tests/support/slurm_local.sh down DIR   stop the daemons it started in DIR

slurm_dir= slurm_why=

# a TCP port nothing listens on
slurm_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

slurm_pid_of() { [ -f "$1" ] && cat "$1" 2>/dev/null; }

# process $1 runs (a zombie left to an init that does not reap counts as ended)
slurm_alive() {
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# wait up to $2 tenths of a second for command $1 to succeed
slurm_wait() {
    local i
    for ((i = 0; i < $2; i++)); do
        eval "$1" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

# the checks every Slurm here needs, then munged with a key of its own
slurm_munge_up() {
    local d=$slurm_dir c
    for c in munged mungekey slurmctld slurmd salloc sbatch srun squeue scontrol; do
        command -v "$c" >/dev/null 2>&1 ||
            { slurm_why="$c not installed (Debian: apt-get install munge slurmctld slurmd slurm-client)"; return 1; }
    done
    [ "$(id -u)" = 0 ] || { slurm_why="the test Slurm runs its daemons as root; not root here"; return 1; }
    mkdir -p "$d/state" "$d/spool" "$d/munge" || { slurm_why="cannot create $d"; return 1; }
    chmod 700 "$d/munge"
    mungekey -c -k "$d/munge/munge.key" -b 1024 >/dev/null 2>&1 ||
        { slurm_why="mungekey could not create a key"; return 1; }
    # munged checks that its folders are not writable by others
    chmod 755 "$d"
    munged -f --key-file="$d/munge/munge.key" --socket="$d/munge/sock" \
        --pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" \
        --seed-file="$d/munge/seed" >"$d/munged.out" 2>&1 ||
        { slurm_why="munged did not start: $(tail -n 1 "$d/munged.out")"; return 1; }
    slurm_wait "test -S '$d/munge/sock'" 50 || { slurm_why="munged made no socket"; slurm_down; return 1; }
}

# slurm.conf's lines but the nodes and the partition: $1 SlurmctldHost, $2 and
# $3 what follows the slurmd spool folder and the slurmd pid/log file names
slurm_conf_common() {
    local d=$slurm_dir
    cat <<EOF
ClusterName=exadltest
SlurmctldHost=$1
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool$2
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd$3.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd$3.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
KillWait=5
MessageTimeout=20
InactiveLimit=0
MinJobAge=300
PlugStackConfig=$d/plugstack.conf
SlurmdParameters=config_overrides
EOF
}

slurm_up() {
    slurm_dir=$1
    local d=$slurm_dir
    slurm_munge_up || return 1
    local node
    node=$(slurmd -C 2>/dev/null | head -n 1)
    case $node in NodeName=*) ;; *) slurm_why="slurmd -C printed no node line"; slurm_down; return 1 ;; esac
    local host mem
    host=$(printf '%s\n' "$node" | sed 's/^NodeName=\([^ ]*\).*/\1/')
    mem=$(printf '%s\n' "$node" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
    { slurm_conf_common "$host" "" ""; cat <<EOF
NodeName=$host CPUs=8 RealMemory=${mem:-1024} State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    } >"$d/slurm.conf"
    : >"$d/plugstack.conf"
    export SLURM_CONF=$d/slurm.conf
    # the tests' own settings must not leak into Slurm's children from outside
    unset SLURM_JOB_ID SLURM_JOBID SLURM_NTASKS SLURM_NNODES SLURM_JOB_NUM_NODES SLURM_MPI_TYPE
    slurmctld -f "$SLURM_CONF" -i >"$d/slurmctld.out" 2>&1 ||
        { slurm_why="slurmctld did not start: $(tail -n 2 "$d/slurmctld.out" "$d/slurmctld.log" 2>/dev/null | tr '\n' ' ')"; slurm_down; return 1; }
    slurmd -f "$SLURM_CONF" >"$d/slurmd.out" 2>&1 ||
        { slurm_why="slurmd did not start: $(tail -n 2 "$d/slurmd.out" "$d/slurmd.log" 2>/dev/null | tr '\n' ' ')"; slurm_down; return 1; }
    if ! slurm_wait "sinfo -h -o %t 2>/dev/null | grep -qx idle" 300; then
        slurm_why="the node did not become idle in 30 s: $(sinfo -h -o '%t %E' 2>&1 | head -n 1); $(tail -n 3 "$d/slurmd.log" 2>/dev/null | tr '\n' ' ')"
        slurm_down
        return 1
    fi
    return 0
}

# A multi-node Slurm on an emulated cluster (tests/support/vcluster.sh --slurm):
# slurmctld here on the head, one slurmd per node n1..n$2, each started inside
# its node by the command $slurm_node_run NODE ARGS... (vcluster's vc_on), each
# node offering $3 CPUs.  $1: the folder; $4: the head's address.
slurm_node_run=
slurm_nodes_up() {
    slurm_dir=$1
    local d=$slurm_dir n=$2 cpus=$3 addr=$4 k
    slurm_munge_up || return 1
    for ((k = 1; k <= n; k++)); do mkdir -p "$d/spool/n$k" || { slurm_why="cannot create $d/spool/n$k"; return 1; }; done
    # slurmctld insists on its host name; the nodes reach it at the head's address
    { slurm_conf_common "$(hostname -s)($addr)" /%n -%n; cat <<EOF
NodeName=n[1-$n] CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=n[1-$n] Default=YES MaxTime=INFINITE State=UP
EOF
    } >"$d/slurm.conf"
    : >"$d/plugstack.conf"
    export SLURM_CONF=$d/slurm.conf
    unset SLURM_JOB_ID SLURM_JOBID SLURM_NTASKS SLURM_NNODES SLURM_JOB_NUM_NODES SLURM_MPI_TYPE
    slurmctld -f "$SLURM_CONF" -i >"$d/slurmctld.out" 2>&1 ||
        { slurm_why="slurmctld did not start: $(tail -n 2 "$d/slurmctld.out" "$d/slurmctld.log" 2>/dev/null | tr '\n' ' ')"; slurm_down; return 1; }
    for ((k = 1; k <= n; k++)); do
        $slurm_node_run n$k slurmd -f "$SLURM_CONF" -N n$k >"$d/slurmd-n$k.out" 2>&1 ||
            { slurm_why="slurmd did not start on n$k: $(tail -n 2 "$d/slurmd-n$k.out" "$d/slurmd-n$k.log" 2>/dev/null | tr '\n' ' ')"; slurm_down; return 1; }
    done
    if ! slurm_wait "[ \$(sinfo -h -N -o %t 2>/dev/null | grep -cx idle) = $n ]" 300; then
        slurm_why="the $n nodes did not all become idle in 30 s: $(sinfo -h -N -o '%N %t %E' 2>&1 | tr '\n' ' '); $(tail -n 3 "$d/slurmd-n1.log" 2>/dev/null | tr '\n' ' ')"
        slurm_down
        return 1
    fi
    return 0
}

# stop by PID: slurmd, slurmctld, munged (all at once; 5 s, then SIGKILL)
slurm_down() {
    [ -n "$slurm_dir" ] || return 0
    local d=$slurm_dir f p i pids=
    for f in "$d/slurmd.pid" "$d"/slurmd-*.pid "$d/slurmctld.pid" "$d/munge/munged.pid"; do
        p=$(slurm_pid_of "$f")
        [ -n "$p" ] && kill "$p" 2>/dev/null && pids="$pids $p"
    done
    for ((i = 0; i < 50; i++)); do
        for p in $pids; do slurm_alive "$p" && break; p=; done
        [ -z "$p" ] && break
        sleep 0.1
    done
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    # the step daemons of this cluster (their slurmd is gone): those holding its spool
    for p in $(pgrep -x slurmstepd 2>/dev/null); do
        ls -l "/proc/$p/cwd" "/proc/$p/fd" 2>/dev/null | grep -q "$d/spool" && kill -9 "$p" 2>/dev/null
    done
    slurm_dir=
    return 0
}

# ---- as a command: up DIR / down DIR --------------------------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    me=$0
    usage() { echo "usage: $me up DIR | down DIR" >&2; exit 2; }
    [ $# -eq 2 ] || usage
    case $1 in
    up)
        mkdir -p "$2" || exit 1
        d=$(cd "$2" && pwd) || exit 1
        [ -e "$d/slurmctld.pid" ] && slurm_alive "$(slurm_pid_of "$d/slurmctld.pid")" &&
            { echo "$me: a Slurm of $d runs already (SLURM_CONF=$d/slurm.conf)" >&2; exit 1; }
        slurm_up "$d" || { echo "$me: no local Slurm: $slurm_why" >&2; exit 1; }
        echo "local Slurm up: node $(sinfo -h -o %N | head -n 1), partition debug, 8 CPUs; now run:"
        echo "export SLURM_CONF=$SLURM_CONF"
        ;;
    down)
        [ -f "$2/slurm.conf" ] || { echo "$me: $2 holds no local Slurm (no slurm.conf)" >&2; exit 1; }
        slurm_dir=$(cd "$2" && pwd) && slurm_down
        echo "local Slurm of $2 stopped"
        ;;
    *) usage ;;
    esac
fi
