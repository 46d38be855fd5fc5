#!/bin/sh
# vm-timeout: 90
# `joule beacons scan --json` over the kernel's HCI socket prints the adverts that --replay of
# the same capture prints (every field but the timestamp), and the scan is legacy, passive and
# continuous: LE Set Scan Parameters 100/100 ms, then enable.
. /lib.sh
cap=/fixtures/bluetooth/all-kinds-h4.btsnoop

vhci-controller -c "$cap" -R 20 -l cmd.log -r ready -d sent 2> controller.err &
track $!
wait_for 30 test -s ready || fail "controller not up: $(cat controller.err)"
adapter=$(cat ready)

joule beacons scan --json --adapter "$adapter" > live.ndjson 2> live.err &
joule_pid=$!
track $joule_pid
wait_for 40 test -f sent || fail "capture not sent (commands: $(grep -v '#' cmd.log | tail -3 | tr '\n' ' '))"
sleep 1
kill -INT $joule_pid
wait $joule_pid
status=$?
[ $status = 0 ] || fail "scan exited $status after SIGINT: $(cat live.err)"

joule beacons scan --json --replay "$cap" > replay.ndjson 2> replay.err || fail "replay failed: $(cat replay.err)"
strip() { sed 's/"timestamp":[^,]*,//' "$1"; }
strip live.ndjson > live.cmp
strip replay.ndjson > replay.cmp
[ -s replay.cmp ] || fail "the replay printed nothing"
cmp -s live.cmp replay.cmp || fail "live and replay differ: $(diff replay.cmp live.cmp | head -8 | tr '\n' ' ')"

# Passive (00), interval 0x00a0 and window 0x00a0 (100 ms), public address, accept all.
grep -q ' 200b 00a000a0000000$' cmd.log || fail "no LE Set Scan Parameters 100/100 ms: $(grep ' 200b ' cmd.log)"
grep -q ' 200c 01' cmd.log || fail "scanning was never enabled"
pass "$(wc -l < live.cmp) adverts, as the replay"
