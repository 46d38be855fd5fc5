#!/bin/sh
# vm-timeout: 90
# `joule beacons monitor --json --transport bluez` with bluetoothd started without
# --experimental (no AdvertisementMonitorManager1): joule falls back to filtered discovery,
# says `bluez-software` on its first stderr line, enters the region while the beacon is on the
# air (6 s), and exits after it went silent.
. /lib.sh
on_air=6
start_controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L -D $on_air
start_bluez "$ADAPTER"
inside() { discovering "$ADAPTER" || wait_for 10 discovering "$ADAPTER" || fail "no discovery while inside the region"; }
INSIDE_CHECK=inside
monitor_in_out bluez-software $on_air --transport bluez --adapter "$ADAPTER"
wait_for 5 not_discovering "$ADAPTER" || fail "discovery still running after joule exited"
pass "bluez-software: enter +${ENTER_S}s, exit +${EXIT_S}s"
