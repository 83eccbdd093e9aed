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
# Commands of the tests (salloc, sbatch, srun, squeue) find the cluster
# through SLURM_CONF.

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

slurm_up() {
    slurm_dir=$1
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
    local node
    node=$(slurmd -C 2>/dev/null | head -n 1)
    case $node in NodeName=*) ;; *) slurm_why="slurmd -C printed no node line"; slurm_down; return 1 ;; esac
    local cport dport host mem
    cport=$(slurm_free_port) dport=$(slurm_free_port)
    host=$(printf '%s\n' "$node" | sed 's/^NodeName=\([^ ]*\).*/\1/')
    mem=$(printf '%s\n' "$node" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
    cat >"$d/slurm.conf" <<EOF
ClusterName=exadltest
SlurmctldHost=$host
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
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
NodeName=$host CPUs=8 RealMemory=${mem:-1024} State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
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

# stop by PID: slurmd, slurmctld, munged (all at once; 5 s, then SIGKILL)
slurm_down() {
    [ -n "$slurm_dir" ] || return 0
    local d=$slurm_dir f p i pids=
    for f in "$d/slurmd.pid" "$d/slurmctld.pid" "$d/munge/munged.pid"; do
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
