#!/bin/sh
# vm-timeout: 90
# `joule beacons monitor --json --transport bluez` with bluetoothd started without
# --experimental (no AdvertisementMonitorManager1): joule falls back to filtered discovery,
# says `bluez-software` on its first stderr line, enters the region while the beacon is on the
# air (6 s), and exits after it went silent.
. /lib.sh
uuid=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
on_air=6
start_controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L -D $on_air
start_bluez "$ADAPTER"

joule beacons monitor --json --transport bluez --adapter "$ADAPTER" --region office=$uuid --exit-timeout 2 \
    > events.ndjson 2> err.txt &
joule_pid=$!
track $joule_pid
wait_for 15 discovering "$ADAPTER" || fail "no discovery started: $(tr '\n' ' ' < err.txt)"
wait_for 60 grep -q '"event":"exit"' events.ndjson || fail "no exit event: $(cat events.ndjson err.txt | tr '\n' ' ')"
kill -INT $joule_pid
wait $joule_pid || fail "exit $? after SIGINT: $(tr '\n' ' ' < err.txt)"
first_line_says err.txt bluez-software || fail "first stderr line is not the bluez-software mechanism: $(head -n 1 err.txt)"
[ "$(grep -c '"event"' events.ndjson)" = 2 ] || fail "expected one enter and one exit: $(tr '\n' ' ' < events.ndjson)"
enter=$(sed -n '1s/.*"timestamp":\([0-9.]*\),"event":"enter","region":"office".*/\1/p' events.ndjson)
exit_at=$(sed -n '2s/.*"timestamp":\([0-9.]*\),"event":"exit","region":"office".*/\1/p' events.ndjson)
[ -n "$enter" ] && [ -n "$exit_at" ] || fail "not enter then exit of office: $(tr '\n' ' ' < events.ndjson)"
first_on=$(grep -E ' (200c|2042) 01' cmd.log | head -1 | cut -d' ' -f1)
awk -v s="$first_on" -v x="$exit_at" -v d=$on_air 'BEGIN{exit !(x >= s + d)}' ||
    fail "exited at +$(awk -v s="$first_on" -v x="$exit_at" 'BEGIN{print x - s}')s, before the beacon went silent (+${on_air}s)"
wait_for 5 not_discovering "$ADAPTER" || fail "discovery still running after joule exited"
pass "bluez-software: enter +$(awk -v s="$first_on" -v e="$enter" 'BEGIN{printf "%.1f", e - s}')s, exit +$(awk -v s="$first_on" -v x="$exit_at" 'BEGIN{printf "%.1f", x - s}')s"
