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
on_air=6
start_controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L -D $on_air
start_bluez --experimental "$ADAPTER"
INSIDE_CHECK=manager_monitor_inside
monitor_in_out bluez-software $on_air --transport bluez --adapter "$ADAPTER"
pass "monitor manager: enter +${ENTER_S}s, exit +${EXIT_S}s"
