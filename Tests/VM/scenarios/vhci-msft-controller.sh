#!/bin/sh
# vm-timeout: 60
# The virtual controller's MSFT extension, driven over a raw HCI socket (hci-raw) so that it is
# proven on any kernel, with or without CONFIG_BT_MSFTEXT: Read Supported Features says LE
# advertisement monitor with event prefix 4a4c; LE Monitor Advertisement with the iBeacon
# pattern of E2C56DB5-... returns handle 1; with the filter enabled and a passive scan on, the
# beacon of that UUID (C0:FF:EE:00:04:01, on the air 4 s) raises LE Monitor Device found before
# its first report, its reports arrive, the other UUID's beacon (C0:FF:EE:00:04:09) never
# reaches the host, and LE Monitor Device lost follows its silence. Cancel then succeeds, and a
# malformed monitor is refused.
. /lib.sh
start_controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L -D 4 -M 0xfc1e
index=${ADAPTER#hci}
pattern=4c000215e2c56db5dffb48d2b060d0f5a71096e0
# A pattern condition whose count promises a pattern that is not there is refused (0x12).
hci-raw -i "$index" "fc1e:03808001000101" > bad.txt 2> raw.err || fail "hci-raw: $(cat raw.err)"
grep -q ' event 0e 011efc1203$' bad.txt || fail "a monitor without its pattern was not refused: $(cat bad.txt)"
hci-raw -i "$index" -t 7 fc1e:00 "fc1e:0380800100010116ff00$pattern" fc1e:0501 200b:00a000a0000000 200c:0100 \
    > events.txt 2> raw.err || fail "hci-raw: $(cat raw.err)"
hci-raw -i "$index" fc1e:0401 200c:0000 > cancel.txt 2>> raw.err || fail "hci-raw cancel: $(cat raw.err)"
kill -TERM $CONTROLLER_PID
wait $CONTROLLER_PID

grep -q ' event 0e 011efc00000f00000000000000024a4c$' events.txt ||
    fail "Read Supported Features: $(grep ' 0e 011efc' events.txt | head -1)"
grep -q ' event 0e 011efc000301$' events.txt || fail "LE Monitor Advertisement did not return handle 1: $(grep ' 0e 011efc' events.txt | tr '\n' ';')"
grep -q ' event 0e 011efc0005$' events.txt || fail "LE Set Advertisement Filter Enable failed: $(grep ' 0e 011efc' events.txt | tr '\n' ';')"
grep -q "# msft monitor 1 rssi -128/-128 low-interval 1 patterns ff@0=$pattern\$" cmd.log ||
    fail "monitor not logged as programmed: $(grep '# msft' cmd.log | tr '\n' ';')"
found=$(grep -n ' event ff 4a4c0200010400eeffc00101$' events.txt | head -1 | cut -d: -f1)
lost=$(grep -n ' event ff 4a4c0200010400eeffc00100$' events.txt | head -1 | cut -d: -f1)
first=$(grep -n ' event 3e 02010[0-4]00010400eeffc0' events.txt | head -1 | cut -d: -f1)
last=$(grep -n ' event 3e 02010[0-4]00010400eeffc0' events.txt | tail -1 | cut -d: -f1)
[ -n "$found" ] || fail "no LE Monitor Device found for C0:FF:EE:00:04:01: $(grep ' event ff' events.txt | tr '\n' ';')"
[ -n "$first" ] || fail "no advertising report of the matching beacon"
[ -n "$lost" ] || fail "no LE Monitor Device lost after the beacon went silent"
[ "$found" -lt "$first" ] && [ "$last" -lt "$lost" ] || fail "found (line $found), reports ($first-$last), lost (line $lost) out of order"
! grep -q ' event 3e .*090400eeffc0' events.txt || fail "the filter let the other UUID's beacon through"
matched=$(grep -c ' event 3e 02010[0-4]00010400eeffc0' events.txt)
grep -q ' event 0e 011efc0004$' cancel.txt || fail "LE Cancel Monitor Advertisement failed: $(cat cancel.txt)"
stats=$(grep '# stats' cmd.log | tail -1 | sed 's/.*# stats //')
filtered=$(echo "$stats" | awk '{print $4}')
[ "${filtered:-0}" -gt 0 ] || fail "the controller filtered nothing: $stats"
pass "found, $matched matching reports, lost; $filtered non-matching filtered; cancelled"
