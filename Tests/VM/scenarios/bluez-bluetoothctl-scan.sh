#!/bin/sh
# vm-timeout: 60
# The BlueZ rig itself, without joule: the system bus and Debian's bluetoothd take the virtual
# controller, `bluetoothctl --timeout 5 scan on` discovers the capture's beacons through the
# kernel's LE scan (Adapter1.Discovering true meanwhile), and discovery ends with its client.
. /lib.sh
vhci-controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 20 -L -W -l cmd.log -r ready 2> controller.err &
track $!
wait_for 30 test -s ready || fail "controller not up: $(cat controller.err)"
adapter=$(cat ready)
start_bluez "$adapter"
note "bluetoothd has $adapter: $(adapter_prop "$adapter" Address)"

bluetoothctl --timeout 5 scan on > ctl.out 2>&1 &
ctl=$!
track $ctl
wait_for 10 discovering "$adapter" || fail "Discovering never true: $(tr '\n' ' ' < ctl.out)"
wait_for 10 grep -q 'NEW.*Device' ctl.out || fail "bluetoothctl found no device: $(tr '\n' ' ' < ctl.out)"
wait $ctl
wait_for 10 not_discovering "$adapter" || fail "still discovering after bluetoothctl exited"
grep -qE ' (200c|2042) 01' cmd.log || fail "the kernel never enabled scanning: $(grep -vc '#' cmd.log) commands"
pass "$(grep -c 'NEW.*Device' ctl.out) devices found by bluetoothctl"
