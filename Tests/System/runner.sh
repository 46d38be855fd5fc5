#!/bin/bash
# Tests/System/runner.sh: run by joule-system-test.service (scripts/system/setup-image.sh) in
# the systemd VM, after multi-user.target, with stdout on the serial console. Runs
# /srv/joule-test/scenarios/NAME.sh in name order (or the kernel command line's
# system.scenarios=a,b), each in its own process group with a timeout (300 s, or `# timeout: N`
# in the scenario), and prints one line each:
#   SYSTEM-SCENARIO <name> PASS|FAIL|SKIP <seconds>s <detail>
# then `system: N passed, M failed`, and powers off. The interface for scenarios is lib.sh.
# A scenario that calls `reboot_and_continue` has its state kept in /var/lib/joule-system-test:
# after the reboot the runner starts that scenario again with SYSTEM_PHASE=2, then goes on.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
dir=/srv/joule-test
state=/var/lib/joule-system-test
mkdir -p "$state"
export SYSTEM_DIR=$dir SYSTEM_STATE=$state
only=""
for word in $(cat /proc/cmdline); do
    case $word in system.scenarios=*) only=${word#system.scenarios=} ;; esac
done
names=()
for f in "$dir"/scenarios/*.sh; do
    n=$(basename "$f" .sh)
    if [[ -n $only && ",$only," != *",$n,"* ]]; then continue; fi
    names+=("$n")
done
resume=$(cat "$state/resume" 2>/dev/null || true)
rm -f "$state/resume"
echo "system: boot $(cat /proc/sys/kernel/random/boot_id), $(systemctl is-system-running 2>/dev/null), ${#names[@]} scenarios${resume:+, resuming $resume}"
for n in "${names[@]}"; do
    if [[ -n $resume ]]; then
        [[ $n == "$resume" ]] || { [[ -f $state/done-$n ]] && continue; }
    fi
    [[ -f $state/done-$n ]] && continue
    f=$dir/scenarios/$n.sh
    limit=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
    limit=${limit:-300}
    phase=1; [[ $n == "$resume" ]] && phase=2
    out=$state/$n.out
    result=$state/$n.result
    rm -f "$result"
    t0=$(date +%s)
    SYSTEM_PHASE=$phase SYSTEM_RESULT=$result SYSTEM_NAME=$n timeout -k 5 "$limit" setsid bash "$f" >>"$out" 2>&1
    rc=$?
    t=$(($(date +%s) - t0))
    if [[ -f $state/resume ]]; then
        echo "system: $n reboots the VM"
        sync
        systemctl reboot
        sleep infinity
    fi
    if [[ -s $result ]]; then
        read -r status detail < "$result"
    elif ((rc == 124 || rc == 137)); then
        status=FAIL detail="timed out after ${limit}s"
    else
        status=FAIL detail="ended (exit $rc) without pass, fail or skip"
    fi
    if [[ $status == FAIL ]]; then
        tail -n 30 "$out" | sed "s/^/  [$n] /"
        journalctl -b -u joule --no-pager -n 15 -o short-monotonic 2>/dev/null | sed "s/^/  [$n journal] /"
    fi
    echo "SYSTEM-SCENARIO $n $status ${t}s $detail"
    echo "$status" > "$state/done-$n"
done
passed=0 failed=0
for n in "${names[@]}"; do
    case $(cat "$state/done-$n" 2>/dev/null) in
    PASS) passed=$((passed + 1)) ;;
    SKIP) ;;
    *) failed=$((failed + 1)) ;;
    esac
done
echo "system: $passed passed, $failed failed"
sync
systemctl poweroff --no-block
