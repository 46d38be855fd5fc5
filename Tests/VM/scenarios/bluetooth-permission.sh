#!/bin/sh
# vm-timeout: 60
# Without CAP_NET_RAW (an unprivileged user), the kernel refuses LE commands on a raw HCI
# socket with EPERM: joule exits 1 with the documented permission message, and the controller
# never sees a scan command.
. /lib.sh
# ended PID: the process has exited (gone, or a zombie its shell has not waited for yet).
ended() { ! kill -0 "$1" 2>/dev/null || sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
vhci-controller -c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 20 -L -l cmd.log -r ready 2> controller.err &
track $!
wait_for 30 test -s ready || fail "controller not up: $(cat controller.err)"

run-as 65534 65534 sh -c 'grep CapEff /proc/self/status' > caps 2>&1
grep -q 'CapEff:[[:space:]]*0*$' caps || fail "run-as kept capabilities: $(cat caps)"

run-as 65534 65534 joule beacons scan --json --adapter "$(cat ready)" > out.ndjson 2> err.txt &
joule_pid=$!
track $joule_pid
wait_for 30 ended $joule_pid || fail "still running without privileges"
wait $joule_pid
status=$?
[ $status = 1 ] || fail "exit $status, not 1: $(cat err.txt)"
grep -q 'permission denied. Raw HCI access needs root, or grant the binary the capabilities: sudo setcap cap_net_raw,cap_net_admin+eip' err.txt ||
    fail "not the permission message: $(cat err.txt)"
! grep -qE ' 20(0b|0c|41|42) ' cmd.log || fail "a scan command reached the controller"
[ ! -s out.ndjson ] || fail "printed adverts without privileges"
pass "$(head -1 err.txt)"
