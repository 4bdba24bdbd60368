#!/usr/bin/env bash
# A real single-node SLURM on this machine, for the pipeline's SLURM test (tests/test_slurm.py).
#
#   tests/slurm/setup_slurm.sh [start]   install (apt-get) if missing, configure, start munged,
#                                        slurmctld and slurmd; wait until the node is idle.
#                                        Idempotent: daemons already running are left as they are.
#                                        The cluster is the SLURM test's own: a job in its queue at
#                                        start was left by an earlier run that was killed, and is
#                                        cancelled (slurmctld keeps its queue across restarts; such a
#                                        job would run later and write into the folders of whichever
#                                        run then holds the same path).
#   tests/slurm/setup_slurm.sh check     submit one job asking for the fake GPU and wait for it.
#   tests/slurm/setup_slurm.sh status    show daemons, PIDs and the node's state.
#   tests/slurm/setup_slurm.sh stop [slurmd|slurmctld|munged ...]
#                                        stop daemons by the PIDs in their PID files (default: all three).
#
# Environment:
#   PAIRBENCH_SLURM_STATE    state folder (spool, logs, PID files, job-completion log);
#                            default /var/tmp/pairbench-slurm
#   PAIRBENCH_SLURM_STARTED  if set, a file to which "NAME PID" is appended for every daemon this
#                            call started (the test stops exactly those, by PID)
#
# Needs root (it installs Debian packages and writes /etc/slurm/{slurm,gres}.conf). It refuses to
# overwrite a slurm.conf it did not write. No systemd is needed: the daemons are started by hand.
# Exit status: 0 ready; 2 SLURM cannot be installed here; 3 a foreign SLURM config; 4 a daemon
# did not start or the node did not become idle (see the logs under the state folder).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATE="${PAIRBENCH_SLURM_STATE:-/var/tmp/pairbench-slurm}"
STARTED="${PAIRBENCH_SLURM_STARTED:-}"
NODE=pbnode
CTLD_PORT="${PAIRBENCH_SLURM_CTLD_PORT:-6817}"
SLURMD_PORT="${PAIRBENCH_SLURM_SLURMD_PORT:-6818}"
CONF_DIR=/etc/slurm
MARKER="# pairbench-test-cluster"
MUNGE_PID=/run/munge/munged.pid

log() { echo "setup_slurm: $*" >&2; }
die() { local code=$1; shift; log "$*"; exit "$code"; }

# PID from a PID file if that process is alive and is the expected program, else nothing.
live_pid() {
    local name=$1 file=$2 pid
    [[ -r $file ]] || return 0
    pid=$(tr -dc 0-9 <"$file")
    [[ -n $pid && -r /proc/$pid/comm ]] || return 0
    [[ $(cat "/proc/$pid/comm") == "$name" ]] && echo "$pid"
    return 0
}

pid_file() {
    case $1 in
        munged) echo "$MUNGE_PID" ;;
        *) echo "$STATE/run/$1.pid" ;;
    esac
}

record_started() {
    local name=$1 pid
    pid=$(live_pid "$name" "$(pid_file "$name")")
    [[ -n $pid ]] || die 4 "$name did not start (see $STATE/log/ and $(pid_file "$name"))"
    log "started $name (PID $pid)"
    [[ -z $STARTED ]] || echo "$name $pid" >>"$STARTED"
}

wait_for_pid() {  # name: wait up to 15 s for the daemon's PID file
    local i
    for i in $(seq 1 30); do
        [[ -n $(live_pid "$1" "$(pid_file "$1")") ]] && return 0
        sleep 0.5
    done
    return 0
}

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
        command -v sbatch >/dev/null && command -v munged >/dev/null; then
        return 0
    fi
    [[ $(id -u) -eq 0 ]] || die 2 "SLURM is not installed and installing it needs root"
    command -v apt-get >/dev/null || die 2 "SLURM is not installed and there is no apt-get"
    log "installing munge slurmctld slurmd slurm-client with apt-get"
    {
        apt-get update &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
                munge slurmctld slurmd slurm-client
    } >"${TMPDIR:-/tmp}/pairbench-slurm-apt.log" 2>&1 ||
        die 2 "apt-get install failed (see ${TMPDIR:-/tmp}/pairbench-slurm-apt.log)"
}

render() {  # template -> stdout
    local host cpus mem real
    host=$(hostname -s)
    read -r cpus real < <(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*RealMemory=\([0-9]*\).*/\1 \2/p')
    [[ -n ${cpus:-} && -n ${real:-} ]] || { cpus=$(nproc); real=$(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo); }
    mem=$((real * 85 / 100))  # leave room for the OS; slurmd drains a node that declares too much
    sed -e "s|@HOST@|$host|g" -e "s|@NODE@|$NODE|g" -e "s|@STATE@|$STATE|g" \
        -e "s|@CPUS@|$cpus|g" -e "s|@MEM@|$mem|g" \
        -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@SLURMD_PORT@|$SLURMD_PORT|g" "$1"
}

write_configs() {  # sets CONF_CHANGED=1 when slurm.conf or gres.conf changed
    CONF_CHANGED=0
    mkdir -p "$CONF_DIR"
    local f new
    # The PID files of daemons started with the previous config (its state folder may differ).
    OLD_CTLD_PID=$(sed -n 's/^SlurmctldPidFile=//p' "$CONF_DIR/slurm.conf" 2>/dev/null || true)
    OLD_SLURMD_PID=$(sed -n 's/^SlurmdPidFile=//p' "$CONF_DIR/slurm.conf" 2>/dev/null || true)
    for f in slurm.conf gres.conf; do
        if [[ -e $CONF_DIR/$f ]] && ! head -n 1 "$CONF_DIR/$f" | grep -q "^$MARKER"; then
            die 3 "$CONF_DIR/$f exists and was not written by this script; not touching a real cluster's config"
        fi
    done
    for f in slurm.conf gres.conf; do
        new=$(render "$HERE/$f.in")
        if [[ ! -e $CONF_DIR/$f ]] || [[ $new != "$(cat "$CONF_DIR/$f")" ]]; then
            printf '%s\n' "$new" >"$CONF_DIR/$f"
            CONF_CHANGED=1
            log "wrote $CONF_DIR/$f"
        fi
    done
}

start_munged() {
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        return 0
    fi
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    chmod 0755 /run/munge
    [[ -s /etc/munge/munge.key ]] || {
        if command -v mungekey >/dev/null; then mungekey --create --keyfile /etc/munge/munge.key; else
            dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; fi
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
    }
    if command -v runuser >/dev/null; then
        runuser -u munge -- /usr/sbin/munged --pid-file="$MUNGE_PID"
    else
        su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=$MUNGE_PID"
    fi
    wait_for_pid munged
    record_started munged
}

start_daemon() {  # slurmctld | slurmd
    local name=$1
    if [[ -n $(live_pid "$name" "$(pid_file "$name")") ]]; then
        return 0
    fi
    case $name in
        slurmctld) /usr/sbin/slurmctld ;;
        slurmd) /usr/sbin/slurmd -N "$NODE" ;;
    esac
    wait_for_pid "$name"
    record_started "$name"
}

stop_daemon() {  # name [pid file]
    local name=$1 pid i
    pid=$(live_pid "$name" "${2:-$(pid_file "$name")}")
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 40); do
        [[ -d /proc/$pid ]] || break
        sleep 0.25
    done
    [[ -d /proc/$pid ]] && kill -KILL "$pid" 2>/dev/null || true
    log "stopped $name (PID $pid)"
}

wait_node_idle() {  # up to 60 s, while both SLURM daemons stay alive
    local deadline=$((SECONDS + 60)) state="" name
    while ((SECONDS < deadline)); do
        for name in slurmctld slurmd; do
            [[ -n $(live_pid "$name" "$(pid_file "$name")") ]] ||
                die 4 "$name exited; its log: $(tail -n 3 "$STATE/log/$name.log" 2>/dev/null | tr '\n' ' ')"
        done
        state=$(timeout 5 sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -n 1 || true)
        case $state in
            idle | mixed | allocated) log "node $NODE is $state"; return 0 ;;
            *drain* | down* | fail*)
                timeout 5 scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 || true ;;
        esac
        sleep 1
    done
    die 4 "node $NODE did not become idle in 60 s (last state '${state:-unknown}'; see $STATE/log/)"
}

clear_queue() {  # cancel every job still queued or running on this test cluster; wait up to 60 s
    local live=PENDING,RUNNING,CONFIGURING,COMPLETING,SUSPENDED deadline=$((SECONDS + 60)) out ids
    out=$(timeout 10 squeue -h -t "$live" -o %i) || die 4 "squeue failed; the queue of $NODE cannot be read"
    mapfile -t ids <<<"$out"
    [[ -n ${ids[0]:-} ]] || return 0
    log "cancelling jobs left by an earlier run: ${ids[*]}"
    timeout 10 scancel -- "${ids[@]}" >/dev/null 2>&1 || true
    while ((SECONDS < deadline)); do
        out=$(timeout 10 squeue -h -t "$live" -o %i) || out="(squeue failed)"
        [[ -z $out ]] && return 0
        sleep 1
    done
    die 4 "jobs left by an earlier run did not end in 60 s: $(timeout 10 squeue -h -t "$live" -o '%i %T' | tr '\n' ' ')"
}

cmd_start() {
    install_packages
    [[ $(id -u) -eq 0 ]] || die 2 "starting the SLURM daemons needs root"
    mkdir -p "$STATE"/{run,log,ctld,spool}
    write_configs
    if [[ $CONF_CHANGED -eq 1 ]]; then  # restart what runs with an old config
        [[ -z $OLD_SLURMD_PID ]] || stop_daemon slurmd "$OLD_SLURMD_PID"
        [[ -z $OLD_CTLD_PID ]] || stop_daemon slurmctld "$OLD_CTLD_PID"
        stop_daemon slurmd
        stop_daemon slurmctld
    fi
    start_munged
    start_daemon slurmctld
    start_daemon slurmd
    wait_node_idle
    clear_queue
}

cmd_check() {
    local out
    out=$(timeout 120 sbatch --parsable --wait --gpus=1 --time=1 --mem=100 \
        --output="$STATE/log/check-%j.out" --wrap 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"')
    log "check job $out finished: $(cat "$STATE/log/check-$out.out")"
}

cmd_status() {
    local name
    for name in munged slurmctld slurmd; do
        echo "$name: $(live_pid "$name" "$(pid_file "$name")")"
    done
    sinfo -N -o "%N %T %c %m %G" 2>/dev/null || true
}

case "${1:-start}" in
    start) cmd_start ;;
    check) cmd_check ;;
    status) cmd_status ;;
    stop)
        shift
        names=("$@")
        [[ ${#names[@]} -gt 0 ]] || names=(slurmd slurmctld munged)
        for n in "${names[@]}"; do stop_daemon "$n"; done
        ;;
    *) die 64 "usage: $0 [start|check|status|stop [slurmd|slurmctld|munged ...]]" ;;
esac
