#!/bin/sh
# vm-timeout: 90
# `joule beacons monitor --json --transport bluez` with bluetoothd --experimental: the region
# becomes an or_patterns monitor registered with AdvertisementMonitorManager1, which bluetoothd
# hands to the kernel (its debug log shows mgmt Add Adv Patterns Monitor, 0x0052 or 0x0056 with
# RSSI, completing with status 0), joule starts no discovery, DeviceFound enters the
# region while the beacon is on the air (6 s) and DeviceLost exits it after it went silent.
# This controller has no MSFT extension, so the manager's SupportedFeatures lacks
# controller-patterns: the kernel scans, bluetoothd matches, and joule's first stderr line says
# bluez-software. The controller-offloaded case is bluez-monitor-offload.
. /lib.sh
uuid=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
on_air=6
start_controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L -D $on_air
start_bluez --experimental "$ADAPTER"

joule beacons monitor --json --transport bluez --adapter "$ADAPTER" --region office=$uuid --exit-timeout 2 \
    > events.ndjson 2> err.txt &
joule_pid=$!
track $joule_pid
wait_for 20 grep -q '"event":"enter"' events.ndjson || fail "no enter event: $(cat events.ndjson err.txt | tr '\n' ' ')"
grep -qE 'command 0x005[26] complete: 0x00' bluetoothd.log ||
    fail "bluetoothd gave the kernel no pattern monitor: $(grep -i 'monitor' bluetoothd.log | tail -n 5 | tr '\n' ' ')"
not_discovering "$ADAPTER" || fail "joule started discovery although the monitor manager is there"
wait_for 60 grep -q '"event":"exit"' events.ndjson || fail "no exit event: $(cat events.ndjson err.txt | tr '\n' ' ')"
kill -INT $joule_pid
wait $joule_pid || fail "exit $? after SIGINT: $(tr '\n' ' ' < err.txt)"
first_line_says err.txt bluez-software || fail "first stderr line is not the bluez-software mechanism: $(head -n 1 err.txt)"
[ "$(grep -c '"event"' events.ndjson)" = 2 ] || fail "expected one enter and one exit: $(tr '\n' ' ' < events.ndjson)"
sed -n '1p' events.ndjson | grep -q '"event":"enter","region":"office"' || fail "first event is not entering office: $(head -n 1 events.ndjson)"
exit_at=$(sed -n '2s/.*"timestamp":\([0-9.]*\),"event":"exit","region":"office".*/\1/p' events.ndjson)
first_on=$(grep -E ' (200c|2042) 01' cmd.log | head -1 | cut -d' ' -f1)
awk -v s="$first_on" -v x="$exit_at" -v d=$on_air 'BEGIN{exit !(x >= s + d)}' ||
    fail "exited at +$(awk -v s="$first_on" -v x="$exit_at" 'BEGIN{print x - s}')s, before the beacon went silent (+${on_air}s)"
pass "monitor manager: enter, exit +$(awk -v s="$first_on" -v x="$exit_at" 'BEGIN{printf "%.1f", x - s}')s"
