#!/bin/sh
# vm-timeout: 60
# On the bluez transport joule sends no raw HCI command: run under trace-hci-filter (which
# logs every Bluetooth socket joule opens and every write to a raw HCI socket), `beacons scan`
# and `beacons monitor` print what they should and the trace shows no send and no HCI filter.
. /lib.sh
start_controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L
start_bluez "$ADAPTER"
uuid=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
for sub in "scan --json" "monitor --json --region office=$uuid"; do
    name=$(echo "$sub" | cut -d' ' -f1)
    trace-hci-filter "$name.trace" joule beacons $sub --transport bluez --adapter "$ADAPTER" > "$name.out" 2> "$name.err" &
    pid=$!
    track $pid
    wait_for 30 test -s "$name.out" || fail "$name printed nothing: $(tr '\n' ' ' < "$name.err")"
    kill -INT $pid
    wait $pid || fail "$name exited $? after SIGINT: $(tr '\n' ' ' < "$name.err")"
    ! grep -q ' send ' "$name.trace" || fail "$name wrote to a raw HCI socket: $(grep ' send ' "$name.trace" | head -3 | tr '\n' ';')"
    ! grep -qE ' (get|set) ' "$name.trace" || fail "$name set an HCI socket filter: $(head -3 "$name.trace" | tr '\n' ';')"
done
pass "scan and monitor through bluez: no raw HCI command ($(cat scan.trace monitor.trace | grep -c ' socket ') Bluetooth sockets opened)"
