#!/bin/sh
# vm-timeout: 90
# Controller offload for real: the virtual controller offers the Microsoft HCI extension
# (hci_vhci's debugfs msft_opcode, which exists only with CONFIG_BT_MSFTEXT; SKIP with the
# kernel's config line otherwise). With bluetoothd --experimental, joule's region monitor goes
# through AdvertisementMonitorManager1 to the kernel, which programs it into the controller:
# the controller's log shows MSFT LE Monitor Advertisement with the iBeacon pattern (Apple's
# company id, type 0x02, length 0x15, the UUID) and LE Set Advertisement Filter Enable on.
# The controller raises LE Monitor Device found/lost, joule enters and exits, and the
# non-matching adverts on the air (another UUID) never reach the host.
. /lib.sh
uuid=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
on_air=6
vhci-controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L -D $on_air -m 0xfc1e -l cmd.log -r ready 2> controller.err &
CONTROLLER_PID=$!
track $CONTROLLER_PID
wait_for 30 sh -c 'test -s ready || ! kill -0 '$CONTROLLER_PID 2>/dev/null
if ! [ -s ready ] && grep -q 'msft_opcode unsupported' controller.err; then
    wait $CONTROLLER_PID
    skip "hci_vhci has no msft_opcode (kernel $(uname -r): $(grep -h 'CONFIG_BT_MSFTEXT' /boot/config-* 2>/dev/null || echo 'CONFIG_BT_MSFTEXT unknown'))"
fi
[ -s ready ] || fail "controller not up: $(cat controller.err)"
ADAPTER=$(cat ready)
grep -q '# msft features read' cmd.log || fail "the kernel never read the MSFT features: $(grep -c . cmd.log) log lines"
start_bluez --experimental "$ADAPTER"

monitor_in_out offloaded $on_air --transport bluez --adapter "$ADAPTER"
pattern=$(echo "$uuid" | tr -d '-' | tr 'A-F' 'a-f')
grep -q "# msft monitor [0-9]* .* ff@0=4c000215$pattern" cmd.log ||
    fail "no MSFT monitor with the iBeacon pattern: $(grep '# msft' cmd.log | tr '\n' ';')"
grep -q '# msft filter on' cmd.log || fail "the advertisement filter was never enabled: $(grep '# msft' cmd.log | tr '\n' ';')"
grep -q '# msft device found' cmd.log || fail "the controller raised no LE Monitor Device found"
grep -q '# msft device lost' cmd.log || fail "the controller raised no LE Monitor Device lost"
kill -TERM $CONTROLLER_PID
wait $CONTROLLER_PID
stats=$(grep '# stats' cmd.log | tail -1 | sed 's/.*# stats //')
filtered=$(echo "$stats" | awk '{print $4}')
[ "${filtered:-0}" -gt 0 ] || fail "no advert was filtered in the controller: $stats"
pass "offloaded: pattern programmed, filter on, enter +${ENTER_S}s, exit +${EXIT_S}s; controller $stats"
