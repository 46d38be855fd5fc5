#!/bin/sh
# vm-timeout: 60
# Another client's discovery coexists with joule's: with `bluetoothctl scan on` running, joule
# scans through BlueZ and prints adverts; when joule exits (SIGINT) the adapter is still
# discovering for bluetoothctl, which keeps finding devices; discovery ends with bluetoothctl.
# And the other way round: joule scanning first, `bluetoothctl scan on` still starts.
. /lib.sh
start_controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 20 -L
start_bluez "$ADAPTER"

bluetoothctl --timeout 20 scan on > ctl.out 2>&1 &
ctl=$!
track $ctl
wait_for 10 discovering "$ADAPTER" || fail "bluetoothctl's discovery did not start: $(tr '\n' ' ' < ctl.out)"
joule beacons scan --json --transport bluez --adapter "$ADAPTER" > live.ndjson 2> live.err &
joule_pid=$!
track $joule_pid
wait_for 15 test -s live.ndjson || fail "joule printed no advert beside bluetoothctl: $(tr '\n' ' ' < live.err)"
kill -INT $joule_pid
wait $joule_pid || fail "joule exited $? after SIGINT: $(tr '\n' ' ' < live.err)"
# bluetoothd restarts discovery with the remaining clients' merged filter when one leaves: off
# for a moment, then on again for bluetoothctl.
wait_for 8 discovering "$ADAPTER" || fail "joule's exit stopped bluetoothctl's discovery"
sleep 2
discovering "$ADAPTER" || fail "bluetoothctl's discovery stopped before its timeout"
grep -q 'NEW.*Device\|CHG.*Device' ctl.out || fail "bluetoothctl saw no device: $(tr '\n' ' ' < ctl.out)"
wait $ctl
seen=$(grep -c 'Device' ctl.out)  # counted once bluetoothctl has written all it will
wait_for 10 not_discovering "$ADAPTER" || fail "still discovering after bluetoothctl exited"

# joule first, then bluetoothctl.
joule beacons scan --json --transport bluez --adapter "$ADAPTER" > live2.ndjson 2> live2.err &
joule_pid=$!
track $joule_pid
wait_for 15 test -s live2.ndjson || fail "joule printed no advert: $(tr '\n' ' ' < live2.err)"
bluetoothctl --timeout 3 scan on > ctl2.out 2>&1 || fail "bluetoothctl scan on failed beside joule: $(tr '\n' ' ' < ctl2.out)"
grep -qi 'Discovery started' ctl2.out || fail "bluetoothctl could not start discovery beside joule: $(tr '\n' ' ' < ctl2.out)"
wait_for 5 discovering "$ADAPTER" || fail "bluetoothctl's exit stopped joule's discovery"
kill -0 $joule_pid 2>/dev/null || fail "joule exited when bluetoothctl did: $(tr '\n' ' ' < live2.err)"
n=$(wc -l < live2.ndjson)
sleep 1
[ "$(wc -l < live2.ndjson)" -gt "$n" ] || fail "joule stopped receiving adverts after bluetoothctl exited"
kill -INT $joule_pid
wait $joule_pid || fail "joule exited $? after SIGINT: $(tr '\n' ' ' < live2.err)"
wait_for 5 not_discovering "$ADAPTER" || fail "discovery still running after both clients exited"
pass "bluetoothctl and joule discover side by side ($seen bluetoothctl device lines)"
