#!/bin/sh
# vm-timeout: 60
# `--transport auto` (the default) picks the raw HCI socket without bluetoothd (the
# controller's log shows joule's own LE Set Scan Parameters, 100/100 ms) and BlueZ when
# org.bluez has the adapter (discovery runs, joule's raw parameters never appear).
# `--transport bluez` without bluetoothd exits 1 saying so; an unknown transport is a usage error.
. /lib.sh
start_controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 20 -L

timeout 15 joule beacons scan --json --transport bogus > bogus.out 2> bogus.err
[ $? = 2 ] || fail "--transport bogus did not exit 2: $(tr '\n' ' ' < bogus.err)"

# Only the system bus, no bluetoothd.
mkdir -p /run/dbus
rm -f /run/dbus/system_bus_socket
dbus-daemon --system --nofork --nopidfile --nosyslog > dbus.log 2>&1 &
DBUS_PID=$!
track $DBUS_PID
wait_for 10 test -S /run/dbus/system_bus_socket || fail "system bus did not start: $(cat dbus.log)"
timeout 15 joule beacons scan --json --transport bluez --adapter "$ADAPTER" > nobluez.out 2> nobluez.err
status=$?
[ $status = 1 ] || fail "--transport bluez without bluetoothd exited $status, not 1"
says nobluez.err bluetoothd || says nobluez.err org.bluez || says nobluez.err bluez ||
    fail "--transport bluez without bluetoothd did not say why: $(tr '\n' ' ' < nobluez.err)"

joule beacons scan --json --adapter "$ADAPTER" > hci.ndjson 2> hci.err &
joule_pid=$!
track $joule_pid
wait_for 15 test -s hci.ndjson || fail "auto without bluetoothd printed nothing: $(tr '\n' ' ' < hci.err)"
kill -INT $joule_pid
wait $joule_pid || fail "auto without bluetoothd exited $? after SIGINT: $(tr '\n' ' ' < hci.err)"
grep -q ' 200b 00a000a0000000$' cmd.log || fail "auto without bluetoothd did not scan with its own HCI commands"
says hci.err hci || fail "auto without bluetoothd did not say hci: $(tr '\n' ' ' < hci.err)"

: > cmd.log
start_bluez "$ADAPTER"
joule beacons scan --json --adapter "$ADAPTER" > bluez.ndjson 2> bluez.err &
joule_pid=$!
track $joule_pid
wait_for 15 discovering "$ADAPTER" || fail "auto with bluetoothd started no discovery: $(tr '\n' ' ' < bluez.err)"
wait_for 15 test -s bluez.ndjson || fail "auto with bluetoothd printed nothing: $(tr '\n' ' ' < bluez.err)"
kill -INT $joule_pid
wait $joule_pid || fail "auto with bluetoothd exited $? after SIGINT: $(tr '\n' ' ' < bluez.err)"
says bluez.err bluez || fail "auto with bluetoothd did not say bluez: $(tr '\n' ' ' < bluez.err)"
! grep -q ' 200b 00a000a0000000$' cmd.log || fail "auto with bluetoothd sent joule's own scan parameters"
pass "auto: hci without bluetoothd, bluez with it; bluez without bluetoothd exits 1"
