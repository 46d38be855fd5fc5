#!/bin/bash
# Scenario 2, beacons: a beacon region of the daemon's config is monitored through bluetoothd,
# inside the unit's sandbox. The virtual LE controller (hci_vhci, Tests/VM/helpers) sends a
# region's iBeacon adverts; Debian's bluetooth.service takes the adapter; the daemon's
# monitor enters the region (its journal line) and bluetoothd, not a raw socket, is the path.
# timeout: 180
. "$SYSTEM_DIR/lib.sh"
install_joule
modprobe hci_vhci || fail "modprobe hci_vhci failed"
cd "$SYSTEM_STATE" || exit 1
rm -f ready cmd.log
"$SYSTEM_DIR/bin/vhci-controller" -c "$SYSTEM_DIR/fixtures/bluetooth/region-h4.btsnoop" -R 10 -L -l cmd.log -r ready 2> controller.err &
controller=$!
trap 'kill $controller 2>/dev/null' EXIT
wait_for 30 test -s ready || fail "the virtual controller did not come up: $(cat controller.err)"
adapter=$(cat ready)
systemctl start bluetooth.service || fail "bluetooth.service did not start"
wait_for 30 busctl introspect org.bluez "/org/bluez/$adapter" || fail "bluetoothd did not take $adapter"
cp /etc/joule/joule.yaml joule.yaml.orig
cat > /etc/joule/joule.yaml <<YAML
beacons:
  - regions: ["office=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"]
    exitTimeout: 5
    adapter: $adapter
YAML
mark_journal
reload_joule
wait_for 60 sh -c "journalctl -u joule -o cat --after-cursor='$(cat "$SYSTEM_STATE/$SYSTEM_NAME.cursor")' | grep -q '\"event\":\"enter\".*\"region\":\"office\"'" \
    || fail "the daemon's region monitor did not enter office: $(journal_since_mark -u joule | grep beacons | tail -n 5)"
log=$(journal_since_mark -u joule | grep 'beacons\[0\]')
note "$log"
echo "$log" | grep -qiE 'operation not permitted|permission denied|EPERM' && fail "the sandbox refused the beacon monitor: $log"
# The path: bluetoothd scanned for joule (its discovery or its monitor), the controller saw
# the scan enabled.
grep -qE ' (200c|2042) 01' cmd.log || fail "the controller never saw scanning enabled"
cp joule.yaml.orig /etc/joule/joule.yaml
reload_joule
how=$(echo "$log" | grep -o 'monitoring through [a-zA-Z0-9 ]*' | head -n 1)
[[ -n $how ]] || echo "$log" | grep -q "AdvertisementMonitor" || fail "the daemon did not say it monitors through bluetoothd: $log"
pass "entered office through bluetoothd on $adapter (${how:-through the monitor manager})"
