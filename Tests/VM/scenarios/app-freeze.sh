#!/bin/sh
# joule run on the real cgroup v2 freezer: the app gets a cgroup of its own, `joule app
# background` freezes it after the debounce and the grace (cgroup.events `frozen 1`, state
# suspended, no CPU), `joule app foreground` thaws it; after `joule run` is SIGKILLed with the
# app frozen, `joule app list` thaws it from the pause journal; `joule app terminate` on a
# suspended app thaws, SIGTERMs and removes its cgroup.
# vm-timeout: 90
. /lib.sh
export JOULE_RUNTIME_DIR=$VM_WORK/run
# Apps 1 and 2 get a delegated subtree of their own through $JOULE_CGROUP; app 3 uses the
# default, the cgroup joule runs in (here the root cgroup, as root).
base=$(mk_cgroup vm-apps) || fail "cannot create the cgroup vm-apps"
export JOULE_CGROUP=/vm-apps

frozen() { grep -qx "frozen $2" "$1/cgroup.events"; }
state_is() {   # Usage: state_is APP STATE (one JSON object per line)
    joule app list --json 2>/dev/null | grep "\"app\": *\"$1\"" | grep -q "\"state\": *\"$2\""
}
ticks_stopped() {   # the spinner gets no CPU for a second
    a=$(cpu_ticks "$1"); sleep 1; b=$(cpu_ticks "$1")
    note "ticks while frozen: $a -> $b"
    [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -le 1 ]
}
ticks_advance() {
    a=$(cpu_ticks "$1"); sleep 1; b=$(cpu_ticks "$1")
    note "ticks while thawed: $a -> $b"
    [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -ge 20 ]
}
# Waits for the app's cgroup to hold a process and sets SPIN to it. Usage: spinner_of DIR
spinner_of() {
    # (cgroup files read as size 0: look at their text)
    wait_for 5 grep -q . "$1/cgroup.procs" || return 1
    SPIN=$(head -n 1 "$1/cgroup.procs")
    track "$SPIN"
}

# --- app 1: background → suspended → foreground, then joule run SIGKILLed while frozen ---------
joule run --name vmapp --grace 0.5 -- /bin/spin > run1.out 2> run1.err &
r1=$!; track $r1
cg1=$base/joule-app-vmapp
wait_for 5 test -d "$cg1" || fail "no cgroup $cg1 (did it fall back?): $(cat run1.err)"
spinner_of "$cg1" || fail "nothing joined $cg1: $(cat run1.err)"
# It joins the cgroup before exec (as a fork of joule), so its name may still change.
wait_for 5 grep -q "^spin" "/proc/$SPIN/comm" || fail "pid $SPIN in $cg1 is $(cat /proc/$SPIN/comm), not the spinner"
wait_for 5 state_is vmapp active || fail "joule app list never showed vmapp active: $(joule app list --json 2>&1; cat run1.err)"
frozen "$cg1" 0 || fail "frozen before any request"
ticks_advance "$SPIN" || fail "spinner not running in the foreground"

joule app background vmapp || fail "joule app background vmapp failed"
# The debounce (1 s) and the grace (0.5 s) come first.
wait_for 10 frozen "$cg1" 1 || fail "not frozen 10 s after joule app background: $(cat run1.err)"
wait_for 5 state_is vmapp suspended || fail "frozen but not listed suspended: $(joule app list --json 2>&1)"
ticks_stopped "$SPIN" || fail "CPU ticks advance while cgroup.events says frozen 1"

joule app foreground vmapp || fail "joule app foreground vmapp failed"
wait_for 5 frozen "$cg1" 0 || fail "still frozen 5 s after joule app foreground"
wait_for 5 state_is vmapp active || fail "not listed active after foreground: $(joule app list --json 2>&1)"
ticks_advance "$SPIN" || fail "spinner gets no CPU after foreground"

joule app suspend vmapp || fail "joule app suspend vmapp failed"
wait_for 10 frozen "$cg1" 1 || fail "not frozen 10 s after joule app suspend: $(cat run1.err)"
journal=$JOULE_RUNTIME_DIR/apps/vmapp.paused.json
grep -q "joule-app-vmapp" "$journal" 2>/dev/null || fail "frozen but the pause journal does not name the cgroup: $(cat "$journal" 2>&1)"
kill -KILL $r1; wait $r1 2>/dev/null
sleep 0.3
frozen "$cg1" 1 || fail "thawed although joule run was SIGKILLed (nothing left to recover?)"
# joule run is gone: listing recovers its journal (and then finds no app to list).
joule app list > list-after-kill.out 2> list-after-kill.err
frozen "$cg1" 0 || fail "still frozen after joule app list recovered the journal: $(cat list-after-kill.err)"
grep -q "which is gone" list-after-kill.err || fail "joule app list said nothing of the recovery: $(cat list-after-kill.err)"
[ ! -e "$journal" ] || fail "the pause journal is still there after recovery: $(cat "$journal")"
ticks_advance "$SPIN" || fail "spinner gets no CPU after the recovery"
kill -KILL "$SPIN" 2>/dev/null   # no joule run is left to terminate it

# --- app 2: terminate while suspended ---------------------------------------------------------
joule run --name vmapp2 --grace 0 -- /bin/spin > run2.out 2> run2.err &
r2=$!; track $r2
cg2=$base/joule-app-vmapp2
wait_for 5 test -d "$cg2" || fail "no cgroup $cg2: $(cat run2.err)"
spinner_of "$cg2" || fail "nothing joined $cg2: $(cat run2.err)"
wait_for 5 state_is vmapp2 active || fail "joule app list never showed vmapp2 active: $(cat run2.err)"
joule app suspend vmapp2 || fail "joule app suspend vmapp2 failed"
wait_for 10 frozen "$cg2" 1 || fail "vmapp2 not frozen 10 s after joule app suspend: $(cat run2.err)"
wait_for 5 state_is vmapp2 suspended || fail "vmapp2 frozen but not listed suspended"
joule app terminate vmapp2 || fail "joule app terminate vmapp2 failed"
wait_for 10 sh -c "! kill -0 $r2 2>/dev/null" || fail "joule run still running 10 s after terminate: $(cat run2.err)"
wait $r2; rc=$?
case $rc in
143|137) ;;
*) fail "joule run exited $rc after terminate (want 143 for SIGTERM or 137 for SIGKILL): $(cat run2.err)" ;;
esac
if [ -d "$cg2" ]; then
    ! grep -q . "$cg2/cgroup.procs" || fail "$cg2 still holds $(cat "$cg2/cgroup.procs") after terminate"
fi
kill -0 "$SPIN" 2>/dev/null && fail "the spinner $SPIN of vmapp2 survived terminate"

# --- app 3: the default base, joule's own cgroup (the root cgroup here) ----------------------
unset JOULE_CGROUP
joule run --name vmapp3 --grace 0 -- /bin/spin > run3.out 2> run3.err &
r3=$!; track $r3
cg3=/sys/fs/cgroup/joule-app-vmapp3
wait_for 5 test -d "$cg3" || fail "no cgroup $cg3 under the root cgroup (did it fall back?): $(cat run3.err)"
spinner_of "$cg3" || fail "nothing joined $cg3: $(cat run3.err)"
joule app suspend vmapp3 || fail "joule app suspend vmapp3 failed"
wait_for 10 frozen "$cg3" 1 || fail "vmapp3 not frozen 10 s after joule app suspend: $(cat run3.err)"
joule app terminate vmapp3 || fail "joule app terminate vmapp3 failed"
wait_for 10 sh -c "! kill -0 $r3 2>/dev/null" || fail "joule run vmapp3 still running 10 s after terminate"
pass "frozen (confirmed) and thawed through joule app; thawed from the journal after SIGKILL; terminate while suspended exited $rc; the default base works"
