#!/bin/sh
# The cpu controller cannot be enabled for the cgroup: its grandparent does not enable cpu, so
# the parent has no cpu to give (+cpu in the parent's subtree_control fails with ENOENT), as in a
# delegated subtree without cpu. joule falls back to SIGSTOP/SIGCONT duty cycling and still holds
# the busy loop near the limit (never fails open), and leaves nothing stopped on exit.
# vm-timeout: 40
. /lib.sh
skip_under_sanitizer "the SIGSTOP/SIGCONT duty cycle holds the limit only as fast as joule reacts"
limit=30
top=$(mk_cgroup vm-fallback)
echo -cpu > "$top/cgroup.subtree_control" 2>/dev/null
parent=$(mk_cgroup vm-fallback/mid)
cg=$(mk_cgroup vm-fallback/mid/job)
if echo +cpu > "$parent/cgroup.subtree_control" 2>/dev/null; then
    fail "the kernel allowed +cpu in $parent; the fallback is not exercised"
fi
[ -e "$cg/cpu.max" ] && fail "cpu.max exists in $cg"
spin_in "$cg"; spinner=$SPIN_PID
joule cpu-monitor --action throttle --cgroup /vm-fallback/mid/job --limit $limit --window 2 --reports reports \
    > monitor.out 2> monitor.err &
j=$!; track $j
wait_for 10 grep -q 'SIGSTOP/SIGCONT' monitor.err || fail "no fallback message after 10 s: $(cat monitor.out monitor.err)"
note "$(head -n 3 monitor.err)"
sleep 2   # the duty follows measured usage toward the limit in halfway steps
use=$(cpuuse "$spinner" 4) || fail "spinner vanished"
note "spinner used $use% of one core (limit $limit%)"
[ "$use" -ge $((limit - 10)) ] && [ "$use" -le $((limit + 10)) ] || fail "spinner at $use%, limit $limit% by duty cycling"
kill -TERM $j; wait $j; rc=$?
[ $rc = 0 ] || fail "cpu-monitor exited $rc on SIGTERM: $(cat monitor.err)"
sleep 0.3
state=$(sed 's/.*) //' /proc/$spinner/stat | cut -d' ' -f1)
[ "$state" = R ] || [ "$state" = S ] || fail "spinner left in state $state after exit"
a=$(cpu_ticks "$spinner"); sleep 1; b=$(cpu_ticks "$spinner")
[ $((b - a)) -ge 50 ] || fail "spinner runs slowly after exit ($a -> $b ticks in 1 s)"
grep -q 'SIGSTOP/SIGCONT' reports/*.json || fail "report's actionTaken does not name the duty cycling"
pass "+cpu impossible: held at $use% (limit $limit%) by SIGSTOP/SIGCONT; continued on exit"
