#!/bin/sh
# vm-timeout: 60
# Ending joule leaves no discovery running (Adapter1.Discovering): on SIGINT joule calls
# StopDiscovery and exits 0; on SIGKILL bluetoothd stops the discovery itself when joule's
# bus connection drops. Also for `beacons range` and `beacons monitor`.
. /lib.sh
start_controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 20 -L
start_bluez "$ADAPTER"
uuid=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0

# Usage: run_until_discovering NAME ARGS...: starts joule ARGS, sets JPID once discovery runs
# (monitor discovers on its duty cycle: the signal comes while discovery is on).
run_until_discovering() {
    _name=$1; shift
    joule "$@" --transport bluez --adapter "$ADAPTER" > "$_name.out" 2> "$_name.err" &
    JPID=$!
    track $JPID
    wait_for 15 discovering "$ADAPTER" || fail "$_name: no discovery started: $(tr '\n' ' ' < "$_name.err")"
}
for sub in "beacons scan --json" "beacons range --json --region office=$uuid" "beacons monitor --json --region office=$uuid"; do
    name=$(echo "$sub" | cut -d' ' -f2)
    run_until_discovering "$name-int" $sub
    kill -INT $JPID
    sent=$(now)
    wait $JPID || fail "$name: exit $? after SIGINT: $(tr '\n' ' ' < "$name-int.err")"
    took=$(awk -v a="$sent" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
    awk -v t="$took" 'BEGIN{exit !(t < 5)}' || fail "$name: took ${took}s to exit after SIGINT"
    not_discovering "$ADAPTER" || fail "$name: still discovering after joule exited on SIGINT"

    run_until_discovering "$name-kill" $sub
    kill -KILL $JPID
    wait $JPID 2>/dev/null
    wait_for 5 not_discovering "$ADAPTER" || fail "$name: still discovering 5 s after joule was killed"
done
pass "SIGINT and SIGKILL of scan, range and monitor leave no discovery"
