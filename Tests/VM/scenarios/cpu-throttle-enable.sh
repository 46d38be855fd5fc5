#!/bin/sh
# The cgroup's parent does not enable the cpu controller (no cpu.max in the cgroup) but may:
# joule writes +cpu to the parent's cgroup.subtree_control, limits through cpu.max, and on exit
# takes both back.
# vm-timeout: 70
. /lib.sh
limit=30
parent=$(mk_cgroup vm-enable)
echo -cpu > "$parent/cgroup.subtree_control" 2>/dev/null
cg=$(mk_cgroup vm-enable/job)
[ -e "$cg/cpu.max" ] && fail "cpu.max exists although the parent does not enable cpu"
spin_in "$cg"; spinner=$SPIN_PID
joule cpu-monitor --action throttle --cgroup /vm-enable/job --limit $limit --window 2 --reports reports \
    > monitor.out 2> monitor.err &
j=$!; track $j
limited() { [ -e "$cg/cpu.max" ] && [ "$(cut -d' ' -f1 "$cg/cpu.max")" != max ]; }
wait_for "$(patience 10)" limited || fail "no cpu.max limit after $(patience 10) s: $(cat monitor.out monitor.err)"
note "subtree_control: $(cat $parent/cgroup.subtree_control); cpu.max: $(cat $cg/cpu.max)"
sleep 1
use=$(cpuuse "$spinner" 4) || fail "spinner vanished"
note "spinner used $use% of one core (limit $limit%)"
[ "$use" -ge $((limit - 10)) ] && [ "$use" -le $((limit + 10)) ] || fail "spinner at $use%, limit $limit%"
kill -TERM $j; wait $j; rc=$?
[ $rc = 0 ] || fail "cpu-monitor exited $rc on SIGTERM: $(cat monitor.err)"
grep -q 'cpu controller is enabled' monitor.err || fail "joule did not say it enabled the cpu controller: $(cat monitor.err)"
grep -qw cpu "$parent/cgroup.subtree_control" && fail "+cpu left in $parent/cgroup.subtree_control"
pass "enabled +cpu, held at $use% (limit $limit%), took +cpu back on exit"
