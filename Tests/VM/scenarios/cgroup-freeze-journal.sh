#!/bin/sh
# After joule enforce is SIGKILLed with a cgroup frozen, the journal ($JOULE_STATE_DIR/
# enforce-paused.json) lets `joule enforce --resume-all` thaw it, and also the next ordinary run.
# vm-timeout: 60
. /lib.sh
cg=$(mk_cgroup vm-journal)
spin_in "$cg"; spinner=$SPIN_PID
cp -a /fixtures/raspberry-pi-4-no-battery tree
zone=tree/sys/devices/virtual/thermal/thermal_zone0/temp
cat > policy.yaml <<'YAML'
version: 1
classes:
  batch:
    level: deferrable
    match:
      - cgroup: vm-journal
YAML
frozen() { grep -qx "frozen $1" "$cg/cgroup.events"; }
journal=$JOULE_STATE_DIR/enforce-paused.json

freeze_then_kill() {   # starts enforce hot, waits for the freeze, SIGKILLs it
    echo 90000 > "$zone"
    joule enforce --policy policy.yaml --root tree --interval 0.2 --json > "run$1.ndjson" 2> "run$1.err" &
    j=$!; track $j
    wait_for "$(patience 8)" frozen 1 || fail "run $1: not frozen: $(cat run$1.ndjson run$1.err)"
    [ -s "$journal" ] || fail "run $1: frozen but no journal at $journal"
    grep -q vm-journal "$journal" || fail "run $1: journal does not name the cgroup: $(cat $journal)"
    kill -KILL $j; wait $j 2>/dev/null
    sleep 0.5
    frozen 1 || fail "run $1: thawed although joule was SIGKILLed (nothing to recover?)"
}

freeze_then_kill 1
joule enforce --resume-all --json > resume.ndjson 2> resume.err || fail "--resume-all failed: $(cat resume.err)"
frozen 0 || fail "--resume-all left the cgroup frozen: $(cat resume.ndjson resume.err)"
grep -q '"reason":"journal"' resume.ndjson || fail "--resume-all printed no journal resume: $(cat resume.ndjson)"

freeze_then_kill 2
echo 48000 > "$zone"    # the next run starts cool: only the journal can thaw
joule enforce --policy policy.yaml --root tree --interval 0.2 --json > run3.ndjson 2> run3.err &
j=$!; track $j
wait_for "$(patience 8)" frozen 0 || fail "the next run did not thaw through the journal: $(cat run3.ndjson run3.err)"
# The line follows the thaw: wait for it rather than read at the instant the cgroup thaws.
wait_for "$(patience 4)" grep -q '"reason":"journal"' run3.ndjson \
    || fail "the next run printed no journal resume: $(cat run3.ndjson)"
kill -TERM $j; wait $j
a=$(cpu_ticks "$spinner"); sleep 1; b=$(cpu_ticks "$spinner")
[ $((b - a)) -ge 20 ] || fail "spinner gets no CPU after recovery ($a -> $b)"
pass "SIGKILLed twice: thawed by --resume-all and by the next run"
