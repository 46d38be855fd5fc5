#!/bin/sh
# joule enforce freezes a real cgroup v2 when a fixture's thermal zone crosses into fair, thaws it
# when the zone cools, freezes it again, and thaws it on SIGTERM. While frozen, cgroup.events says
# `frozen 1` and the busy process's CPU ticks stop advancing.
# vm-timeout: 60
. /lib.sh
cg=$(mk_cgroup vm-freeze)
spin_in "$cg"; spinner=$SPIN_PID
cp -a /fixtures/raspberry-pi-4-no-battery tree
zone=tree/sys/devices/virtual/thermal/thermal_zone0/temp   # critical trip 110 °C: fair from 85 °C
echo 48000 > "$zone"
cat > policy.yaml <<'YAML'
version: 1
classes:
  batch:
    level: deferrable
    match:
      - cgroup: vm-freeze
YAML

frozen() { grep -qx "frozen $1" "$cg/cgroup.events"; }
ticks_stopped() {   # the spinner gets no CPU for a second
    a=$(cpu_ticks "$spinner"); sleep 1; b=$(cpu_ticks "$spinner")
    note "ticks while frozen: $a -> $b"
    [ $((b - a)) -le 1 ]
}
ticks_advance() {
    a=$(cpu_ticks "$spinner"); sleep 1; b=$(cpu_ticks "$spinner")
    note "ticks while thawed: $a -> $b"
    [ $((b - a)) -ge 20 ]
}

joule enforce --policy policy.yaml --root tree --interval 0.2 --json > enforce.ndjson 2> enforce.err &
j=$!; track $j
sleep 1
kill -0 $j 2>/dev/null || fail "joule enforce exited early: $(cat enforce.err)"
frozen 0 || fail "frozen before any trip"
ticks_advance || fail "spinner not running before the trip"

echo 90000 > "$zone"
wait_for 5 frozen 1 || fail "not frozen 5 s after 90 °C (fair): $(cat enforce.ndjson enforce.err)"
ticks_stopped || fail "CPU ticks advance while cgroup.events says frozen 1"

echo 48000 > "$zone"
wait_for 5 frozen 0 || fail "still frozen 5 s after cooling to 48 °C: $(cat enforce.ndjson enforce.err)"
ticks_advance || fail "spinner gets no CPU after the thaw"

echo 100000 > "$zone"
wait_for 5 frozen 1 || fail "not frozen again at 100 °C (serious)"
kill -TERM $j
wait_for 5 sh -c "! kill -0 $j 2>/dev/null" || fail "joule enforce still running 5 s after SIGTERM"
wait $j; rc=$?
[ $rc = 0 ] || fail "joule enforce exited $rc after SIGTERM: $(cat enforce.err)"
frozen 0 || fail "left frozen after SIGTERM: $(cat enforce.ndjson)"
grep -q '"reason":"signal:SIGTERM"' enforce.ndjson || fail "no resume with reason signal:SIGTERM: $(cat enforce.ndjson)"
ticks_advance || fail "spinner gets no CPU after SIGTERM"
pauses=$(grep -c '"action":"pause"' enforce.ndjson)
grep -q '"result":"frozen"' enforce.ndjson || fail "no target reported frozen: $(cat enforce.ndjson)"
pass "frozen and thawed across trips ($pauses pauses), thawed on SIGTERM"
