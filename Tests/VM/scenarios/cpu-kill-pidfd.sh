#!/bin/sh
# joule cpu-monitor --action kill (SIGKILL through a pidfd) under PID reuse pressure: with
# kernel.pid_max at 400 (PIDs wrap to 300), pidchurn forks short-lived bystanders back to back while one
# victim after another spins. Every victim must die by SIGKILL and no bystander by any signal,
# though bystanders keep reusing the PIDs of killed victims.
# vm-timeout: 50
. /lib.sh
skip_under_sanitizer "killing each victim within its 8 s among 300 churning PIDs is a race against joule's sampling speed"
old_max=$(cat /proc/sys/kernel/pid_max)
echo 400 > /proc/sys/kernel/pid_max || fail "cannot lower kernel.pid_max"
restore() { echo "$old_max" > /proc/sys/kernel/pid_max; }
joule cpu-monitor --action kill --match '^victim$' --limit 20 --window 1 --reports reports \
    > monitor.out 2> monitor.err &
j=$!; track $j
sleep 1
kill -0 $j 2>/dev/null || { restore; fail "cpu-monitor exited early: $(cat monitor.err)"; }
pidchurn 10 > churn.out 2> churn.err
restore
kill -TERM $j; wait $j
note "$(cat churn.out) reports=$(ls reports/*.json 2>/dev/null | wc -l)"
eval "$(tr ' ' '\n' < churn.out | grep -E '^[a-z_]+=[0-9]+$')"
[ -n "${bystanders:-}" ] || fail "pidchurn printed nothing: $(cat churn.err)"
[ "$bystanders_killed" = 0 ] || fail "$bystanders_killed bystanders killed: $(cat churn.err)"
[ "$victims_killed" -ge 3 ] || fail "only $victims_killed of $victims victims killed: $(cat monitor.err | tail -n 5)"
if [ "$victims_survived" != 0 ]; then
    for v in $(sed -n 's/^pidchurn: victim \([0-9]*\) survived.*/\1/p' churn.err); do
        note "survivor $v: $(grep "\[$v\]" monitor.out | tr '\n' '|')"
    done
    fail "$victims_survived victims ran their 8 s to the end"
fi
[ "$reused" -ge 1 ] || fail "no bystander reused a victim's PID: no reuse pressure ($bystanders bystanders)"
grep -q 'pidfd' reports/*.json || fail "reports do not say the kill went through a pidfd"
pass "$victims_killed/$victims victims SIGKILLed, 0 of $bystanders bystanders hit, $reused reused a victim PID"
