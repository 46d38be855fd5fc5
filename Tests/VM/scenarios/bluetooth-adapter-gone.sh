#!/bin/sh
# vm-timeout: 60
# The controller goes away mid-scan (closes /dev/vhci after 5 adverts, so the kernel
# unregisters hci0): joule prints the adverts it heard, says the adapter went away and exits 1.
. /lib.sh
# ended PID: the process has exited (gone, or a zombie its shell has not waited for yet).
ended() { ! kill -0 "$1" 2>/dev/null || sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
vhci-controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 20 -L -n 5 -l cmd.log -r ready 2> controller.err &
track $!
wait_for 30 test -s ready || fail "controller not up: $(cat controller.err)"

joule beacons scan --json --adapter "$(cat ready)" > out.ndjson 2> err.txt &
joule_pid=$!
track $joule_pid
wait_for 30 grep -q '# vanish' cmd.log || fail "the controller did not vanish: $(tail -3 cmd.log)"
gone=$(now)
wait_for 10 ended $joule_pid || fail "joule still running 10 s after the adapter went away"
took=$(awk -v a="$gone" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
wait $joule_pid
status=$?
[ $status = 1 ] || fail "exit $status, not 1: $(cat err.txt)"
grep -q 'went away while scanning' err.txt || fail "no message saying the adapter went away: $(cat err.txt)"
[ "$(wc -l < out.ndjson)" -ge 3 ] || fail "only $(wc -l < out.ndjson) adverts printed before the end"
pass "exit 1 ${took}s after the adapter went: $(grep 'went away' err.txt | head -1)"
