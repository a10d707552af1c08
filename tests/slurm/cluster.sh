#!/bin/bash
# A one-node Slurm cluster on localhost for the ctest label `slurm` (tests/slurm/CMakeLists.txt):
#   cluster.sh start DIR   munge key (if none), munged, slurm.conf under DIR, slurmctld and slurmd as
#                          root in the background; waits until `scontrol ping` answers and the node is idle.
#   cluster.sh stop DIR    stops every daemon this script started (by the pids it recorded) and removes DIR.
#   cluster.sh env DIR     prints `export SLURM_CONF=...` for clients.
# Exit status 77 (ctest's skip) with a message when not root or when slurm-wlm / munge are absent.
# No systemd and no cgroups: proctrack/linuxproc, task/none, no accounting, state under DIR.
set -u
cmd="${1:-}"
dir="${2:-}"
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: cluster.sh start|stop|env DIR" >&2
  exit 2
fi
conf="$dir/slurm.conf"

skip() {
  echo "SKIP: $*" >&2
  exit 77
}

wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
  local limit=$1
  shift
  local t=0
  while ! "$@" >/dev/null 2>&1; do
    t=$((t + 1))
    [ "$t" -ge "$((limit * 5))" ] && return 1
    sleep 0.2
  done
}

kill_recorded() {  # kill_recorded PIDFILE: TERM, then KILL after 10 s, the process whose pid the file holds
  local f=$1 pid
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$f"
}

case "$cmd" in
  env)
    echo "export SLURM_CONF=$conf"
    ;;
  start)
    [ "$(id -u)" -eq 0 ] || skip "the Slurm tests start slurmctld and slurmd as root (run as root)"
    for b in slurmctld slurmd munged sbatch squeue scancel scontrol sinfo; do
      command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
        skip "$b not found (apt-get install slurm-wlm munge)"
    done
    PATH="$PATH:/usr/sbin"
    mkdir -p "$dir/state" "$dir/spool" "$dir/log" /run/munge /var/log/munge /var/lib/munge
    if [ ! -s /etc/munge/munge.key ]; then
      mkdir -p /etc/munge
      if command -v mungekey >/dev/null 2>&1; then
        mungekey --create --keyfile=/etc/munge/munge.key --force
      else
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
      fi
      chmod 0400 /etc/munge/munge.key
    fi
    # munged: ours unless one already answers (then it is left alone at stop).
    if ! munge -n </dev/null >/dev/null 2>&1; then
      munged --force --foreground >"$dir/log/munged.log" 2>&1 &
      echo $! >"$dir/munged.pid"
      wait_for 20 sh -c 'munge -n </dev/null | unmunge' || { echo "munged did not start:" >&2; cat "$dir/log/munged.log" >&2; exit 1; }
    fi
    cat >"$conf" <<CONF
ClusterName=kvaddrci
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.daemon.pid
SlurmdPidFile=$dir/slurmd.daemon.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MinJobAge=3600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$conf"
    slurmctld -D -i -f "$conf" >"$dir/log/slurmctld.out" 2>&1 &
    echo $! >"$dir/slurmctld.pid"
    wait_for 30 scontrol ping || { echo "slurmctld does not answer:" >&2; tail -n 30 "$dir/log/slurmctld.log" "$dir/log/slurmctld.out" >&2; "$0" stop "$dir"; exit 1; }
    slurmd -D -N localhost -f "$conf" >"$dir/log/slurmd.out" 2>&1 &
    echo $! >"$dir/slurmd.pid"
    idle() { sinfo -h -N -o %t | grep -qx 'idle'; }
    wait_for 60 idle || { echo "node localhost is not idle:" >&2; sinfo -N >&2; tail -n 30 "$dir/log/slurmd.log" "$dir/log/slurmd.out" >&2; "$0" stop "$dir"; exit 1; }
    scontrol ping
    sinfo -N
    ;;
  stop)
    export SLURM_CONF="$conf"
    if [ -s "$dir/slurmctld.pid" ] && command -v scancel >/dev/null 2>&1; then
      scancel --quiet --user=root 2>/dev/null  # jobs left by a failed test
    fi
    kill_recorded "$dir/slurmd.pid"
    kill_recorded "$dir/slurmctld.pid"
    kill_recorded "$dir/munged.pid"
    # Job steps the daemons started (slurmstepd) end with slurmd; none may be left.
    rm -rf "$dir"
    ;;
  *)
    echo "usage: cluster.sh start|stop|env DIR" >&2
    exit 2
    ;;
esac
