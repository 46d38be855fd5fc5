#!/bin/sh
# joule cpu-monitor --action throttle holds a busy loop in a cgroup to the limit through the real
# cpu.max (within ±10 points, measured from /proc/PID/stat), and restores cpu.max on exit.
# vm-timeout: 70
. /lib.sh
limit=30
cg=$(mk_cgroup vm-throttle)
before=$(cat "$cg/cpu.max") || fail "no cpu.max in $cg"
spin_in "$cg"; spinner=$SPIN_PID
joule cpu-monitor --action throttle --cgroup /vm-throttle --limit $limit --window 2 --reports reports \
    > monitor.out 2> monitor.err &
j=$!; track $j
limited() { [ "$(cat "$cg/cpu.max")" != "$before" ]; }
wait_for "$(patience 10)" limited || fail "cpu.max still '$before' after $(patience 10) s: $(cat monitor.out monitor.err)"
note "cpu.max: $(cat $cg/cpu.max)"
sleep 1
use=$(cpuuse "$spinner" 4) || fail "spinner vanished"
note "spinner used $use% of one core (limit $limit%)"
[ "$use" -ge $((limit - 10)) ] && [ "$use" -le $((limit + 10)) ] || fail "spinner at $use%, limit $limit% (cpu.max $(cat $cg/cpu.max))"
kill -TERM $j; wait $j; rc=$?
[ $rc = 0 ] || fail "cpu-monitor exited $rc on SIGTERM: $(cat monitor.err)"
after=$(cat "$cg/cpu.max")
[ "$after" = "$before" ] || fail "cpu.max left at '$after' (was '$before')"
ls reports/*.json >/dev/null 2>&1 || fail "no report written"
grep -q 'cpu.max' reports/*.json || fail "report's actionTaken does not name cpu.max: $(cat reports/*.json)"
pass "held at $use% (limit $limit%) through cpu.max; restored to '$after'"
