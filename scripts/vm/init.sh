#!/bin/sh
# /init of the test VM (busybox): mounts the kernel's file systems and cgroup2, loads the
# Bluetooth modules, runs every executable /scenarios/*.sh in name order with a timeout, prints
# one `VM-SCENARIO <name> PASS|FAIL|SKIP <seconds>s <detail>` line each and then
# `vm: N passed, M failed`, and powers off. The interface for scenarios is in /lib.sh.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /usr/bin /usr/sbin /sbin
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /sys/fs/cgroup
mount -t cgroup2 cgroup2 /sys/fs/cgroup
# debugfs: hci_vhci's msft_opcode (the MSFT extension) is set there.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo 1 > /proc/sys/kernel/printk 2>/dev/null

finish() {
    sync
    reboot -f   # qemu runs with -no-reboot, so this ends it
    sleep 5
    echo o > /proc/sysrq-trigger
}

cmdline=$(cat /proc/cmdline)
case " $cmdline " in
*" vm.probe=1 "*) echo "VM-PROBE OK"; finish ;;
esac
only=""
for word in $cmdline; do
    case "$word" in
    vm.scenarios=*) only=$(echo "${word#vm.scenarios=}" | tr ',' ' ') ;;
    vm.sanitizer=*) export VM_SANITIZER=${word#vm.sanitizer=} ;;
    esac
done

# Every controller the kernel offers, delegated to the root's children.
for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
    echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done
echo "vm: kernel $(uname -r), cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"

# Modules, in dependency order (written by the host from modprobe --show-depends).
if [ -f /modules.order ]; then
    while read -r ko; do
        insmod "$ko" 2>/tmp/insmod.err || echo "vm: insmod $ko failed: $(cat /tmp/insmod.err)"
    done < /modules.order
fi
[ -e /dev/vhci ] || echo "vm: /dev/vhci missing after loading modules"

passed=0; failed=0; skipped=0
for script in /scenarios/*.sh; do
    [ -x "$script" ] || continue
    name=$(basename "$script" .sh)
    if [ -n "$only" ]; then
        case " $only " in *" $name "*) ;; *) continue ;; esac
    fi
    limit=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$script" | head -n 1)
    [ -n "$limit" ] || limit=60
    work=/tmp/work/$name
    mkdir -p "$work/state"
    rm -f /tmp/vm-result /tmp/vm-timed-out
    start=$(cut -d' ' -f1 /proc/uptime)
    # The scenario leads its own process group, so that a timeout reaches whatever it waits
    # on: SIGTERM to the group (lib.sh's trap then reports), SIGKILL 2 s later.
    (cd "$work" && VM_SCENARIO=$name VM_WORK=$work VM_RESULT=/tmp/vm-result \
        JOULE_STATE_DIR=$work/state HOME=$work exec setsid "$script") > "$work/output.log" 2>&1 &
    pid=$!
    (sleep "$limit"; touch /tmp/vm-timed-out; kill -TERM -"$pid" "$pid" 2>/dev/null
     sleep 2; kill -KILL -"$pid" "$pid" 2>/dev/null) &
    watchdog=$!
    wait "$pid"
    rc=$?
    kill "$watchdog" 2>/dev/null
    end=$(cut -d' ' -f1 /proc/uptime)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b - a}')
    if [ -e /tmp/vm-timed-out ]; then
        status=FAIL; detail="timed out after ${limit}s"
    elif [ -s /tmp/vm-result ]; then
        read -r status detail < /tmp/vm-result
    else
        status=FAIL; detail="exited $rc without pass/fail/skip"
    fi
    case "$status" in
    PASS) passed=$((passed + 1)) ;;
    SKIP) skipped=$((skipped + 1)) ;;
    *) status=FAIL; failed=$((failed + 1)) ;;
    esac
    if [ "$status" = FAIL ]; then
        sed "s/^/  [$name] /" "$work/output.log" | tail -n 40
    fi
    echo "VM-SCENARIO $name $status ${secs}s $detail"
    # Nothing a scenario left running may disturb the next one.
    # (kernel threads have an empty cmdline; init is pid 1)
    for d in /proc/[0-9]*; do
        [ "${d#/proc/}" = 1 ] || [ ! -s "$d/cmdline" ] || kill -KILL "${d#/proc/}" 2>/dev/null
    done
done
echo "vm: $skipped skipped"
echo "vm: $passed passed, $failed failed"
finish
