#!/bin/sh
# vm-timeout: 90
# `joule beacons monitor` on the controller's schedule: the region's beacon is on the air for
# the first 6 s after scanning starts, then silent. Joule scans at the monitoring duty
# (window 500 ms every 5 s, which the controller honours: it only hears inside the window),
# enters the region in the first window, and exits once it has listened --exit-timeout (1 s)
# without a match, which is after the beacon went silent.
. /lib.sh
uuid=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
on_air=6
vhci-controller -c /fixtures/bluetooth/region-h4.btsnoop -R 10 -L -D $on_air -l cmd.log -r ready 2> controller.err &
track $!
wait_for 30 test -s ready || fail "controller not up: $(cat controller.err)"

joule beacons monitor --json --adapter "$(cat ready)" --region office=$uuid --exit-timeout 1 > events.ndjson 2> err.txt &
joule_pid=$!
track $joule_pid
wait_for 60 grep -q '"event":"exit"' events.ndjson || fail "no exit event: $(cat events.ndjson err.txt | tr '\n' ' ')"
kill -INT $joule_pid
wait $joule_pid || fail "exit $? after SIGINT: $(cat err.txt)"

# Monitoring duty: passive, interval 0x1f40 (5 s), window 0x0320 (500 ms).
grep -q ' 200b 00401f20030000$' cmd.log || fail "not the monitoring duty: $(grep ' 200b ' cmd.log | head -2 | tr '\n' ' ')"
start=$(grep ' 200c 01' cmd.log | head -1 | cut -d' ' -f1)
[ -n "$start" ] || fail "scanning never enabled"
[ "$(grep -c '"event"' events.ndjson)" = 2 ] || fail "expected one enter and one exit: $(tr '\n' ' ' < events.ndjson)"
enter=$(sed -n '1s/.*"timestamp":\([0-9.]*\),"event":"enter","region":"office".*/\1/p' events.ndjson)
exit_at=$(sed -n '2s/.*"timestamp":\([0-9.]*\),"event":"exit","region":"office".*/\1/p' events.ndjson)
[ -n "$enter" ] && [ -n "$exit_at" ] || fail "not enter then exit of office: $(tr '\n' ' ' < events.ndjson)"
awk -v s="$start" -v e="$enter" 'BEGIN{exit !(e >= s - 0.1 && e <= s + 1.5)}' ||
    fail "entered at +$(awk -v s="$start" -v e="$enter" 'BEGIN{print e - s}')s, not in the first window"
awk -v s="$start" -v x="$exit_at" -v d=$on_air 'BEGIN{exit !(x >= s + d)}' ||
    fail "exited at +$(awk -v s="$start" -v x="$exit_at" 'BEGIN{print x - s}')s, before the beacon went silent (+${on_air}s)"
pass "enter +$(awk -v s="$start" -v e="$enter" 'BEGIN{printf "%.1f", e - s}')s, exit +$(awk -v s="$start" -v x="$exit_at" 'BEGIN{printf "%.1f", x - s}')s"
