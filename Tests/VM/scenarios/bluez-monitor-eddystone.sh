#!/bin/sh
# vm-timeout: 90
# An Eddystone-UID region through AdvertisementMonitorManager1 (bluetoothd --experimental): its
# pattern is the namespace and instance in 0xFEAA service data, at offset 4 for the kernel and
# bluetoothd 5.66 (after the UUID, frame type and Tx power) and at offset 2 for newer bluetoothd.
# bluetoothd matches it in software here (no MSFT controller): DeviceFound enters while the
# capture's Eddystone-UID beacon is on the air, DeviceLost exits after it went silent, and the
# lines carry the namespace and instance.
. /lib.sh
on_air=6
start_controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 10 -L -D $on_air
start_bluez --experimental "$ADAPTER"
INSIDE_CHECK=manager_monitor_inside
MONITOR_REGION=office=edd1ebeac04e5defa017:0badc0ffee01
monitor_in_out bluez-software $on_air --transport bluez --adapter "$ADAPTER"
grep -q '"event":"enter","region":"office","namespace":"edd1ebeac04e5defa017","instance":"0badc0ffee01"}' events.ndjson ||
    fail "the enter line does not carry the namespace and instance: $(head -n 1 events.ndjson)"
pass "Eddystone-UID monitor: enter +${ENTER_S}s, exit +${EXIT_S}s"
