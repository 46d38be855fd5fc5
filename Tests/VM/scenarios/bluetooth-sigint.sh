#!/bin/sh
# vm-timeout: 60
# SIGINT mid-scan: joule disables scanning (LE Set Scan Enable 00) as its last command, puts
# back the HCI socket filter it found (seen through trace-hci-filter, a ptrace helper that logs
# getsockopt/setsockopt(HCI_FILTER)), then exits 0, promptly.
. /lib.sh
vhci-controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 20 -L -l cmd.log -r ready 2> controller.err &
track $!
wait_for 30 test -s ready || fail "controller not up: $(cat controller.err)"

trace-hci-filter filter.log joule beacons scan --json --adapter "$(cat ready)" > live.ndjson 2> live.err &
joule_pid=$!
track $joule_pid
wait_for 30 test -s live.ndjson || fail "no advert printed: $(cat live.err)"
kill -INT $joule_pid
sent=$(now)
wait $joule_pid
status=$?
took=$(awk -v a="$sent" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
[ $status = 0 ] || fail "exit $status after SIGINT: $(cat live.err)"
awk -v t="$took" 'BEGIN{exit !(t < 5)}' || fail "took ${took}s to stop after SIGINT"

last=$(grep -v ' # ' cmd.log | grep -E ' 20(0b|0c|41|42) ' | tail -1 | cut -d' ' -f2-)
[ "$last" = "200c 0000" ] || fail "last scan command is \"$last\", not LE Set Scan Enable 00 00"
grep -q '# answer 200c status 00' cmd.log || fail "disable not answered"

# The filter: read once (saved), set to the scan filter, and at the end set back to the saved one.
saved=$(grep ' get ' filter.log | head -1 | cut -d' ' -f4-)
[ -n "$saved" ] || fail "the filter was never read: $(cat filter.log)"
[ "$(grep -c ' set ' filter.log)" -ge 2 ] || fail "the filter was not set and restored: $(tr '\n' ';' < filter.log)"
scan=$(grep ' set ' filter.log | head -1 | cut -d' ' -f4-)
[ "$scan" != "$saved" ] || fail "the scan filter is the saved one: $scan"
restored=$(grep ' set ' filter.log | tail -1 | cut -d' ' -f4-)
[ "$restored" = "$saved" ] || fail "filter left as $restored, not restored to $saved"
disabled_at=$(grep ' 200c 0000$' cmd.log | tail -1 | cut -d' ' -f1)
restored_at=$(grep ' set ' filter.log | tail -1 | cut -d' ' -f1)
awk -v d="$disabled_at" -v r="$restored_at" 'BEGIN{exit !(r >= d)}' || fail "filter restored ($restored_at) before the disable ($disabled_at)"
pass "disabled, then filter restored ($saved), exited ${took}s after SIGINT"
