#!/bin/sh
# vm-timeout: 120
# --extended uses LE Set Extended Scan Parameters/Enable (OCF 0x41/0x42) and decodes extended
# reports; a controller that refuses legacy scanning with Command Disallowed (0x0C) makes joule
# fall back to the same commands. Both print what --replay of the capture prints.
. /lib.sh
strip() { sed 's/"timestamp":[^,]*,//' "$1"; }

# run NAME CAPTURE CONTROLLER-FLAG [JOULE-FLAGS]: a scan to the end of the capture, then SIGINT.
run() {
    name=$1 cap=$2 flag=$3
    shift 3
    rm -f ready sent
    vhci-controller $flag -c "$cap" -R 20 -l "$name.log" -r ready -d sent 2> "$name.controller.err" &
    controller=$!
    track $controller
    wait_for 30 test -s ready || fail "$name: controller not up: $(cat "$name.controller.err")"
    joule beacons scan --json --adapter "$(cat ready)" "$@" > "$name.ndjson" 2> "$name.err" &
    joule_pid=$!
    track $joule_pid
    wait_for 40 test -f sent || fail "$name: capture not sent: $(grep -v '#' "$name.log" | tail -3 | tr '\n' ' ')"
    sleep 1
    kill -INT $joule_pid
    wait $joule_pid || fail "$name: exit $? after SIGINT: $(cat "$name.err")"
    kill $controller
    wait $controller 2>/dev/null
    # The device is unregistered when the controller closes /dev/vhci.
    wait_for 10 sh -c '! ls /sys/class/bluetooth/hci* >/dev/null 2>&1' || fail "$name: adapter still there"
    joule beacons scan --json --replay "$cap" > "$name.replay" 2>/dev/null
    strip "$name.ndjson" > "$name.a"
    strip "$name.replay" > "$name.b"
    [ -s "$name.b" ] || fail "$name: the replay printed nothing"
    cmp -s "$name.a" "$name.b" || fail "$name: live and replay differ: $(diff "$name.b" "$name.a" | head -6 | tr '\n' ' ')"
}

# scan_commands LOG: the scan commands in order, "OPCODE PARAMS" one per line.
scan_commands() { grep -v ' # ' "$1" | grep -E ' 20(0b|0c|41|42) ' | cut -d' ' -f2-; }

run extended /fixtures/bluetooth/extended-h4.btsnoop -x --extended
scan_commands extended.log > extended.cmds
grep -q '^20' extended.cmds || fail "extended: no scan command"
! grep -qE '^200[bc] ' extended.cmds || fail "extended: legacy commands sent with --extended: $(tr '\n' ' ' < extended.cmds)"
# Own address public, accept all, LE 1M, passive, 100/100 ms; enable without duplicates filter.
[ "$(head -2 extended.cmds | tr '\n' ' ')" = "2041 00000100a000a000 2042 010000000000 " ] ||
    fail "extended: unexpected start: $(tr '\n' ' ' < extended.cmds)"
[ "$(tail -1 extended.cmds)" = "2042 000000000000" ] || fail "extended: not disabled last: $(tail -1 extended.cmds)"

run fallback /fixtures/bluetooth/all-kinds-h4.btsnoop -X
scan_commands fallback.log > fallback.cmds
grep -q '# answer 200b status 0c' fallback.log || fail "fallback: legacy parameters were not refused"
[ "$(cut -d' ' -f1 fallback.cmds | tr '\n' ' ')" = "200b 2041 2042 2042 " ] ||
    fail "fallback: unexpected commands: $(tr '\n' ' ' < fallback.cmds)"
[ "$(tail -1 fallback.cmds)" = "2042 000000000000" ] || fail "fallback: not disabled last"
pass "extended $(wc -l < extended.a) adverts, fallback $(wc -l < fallback.a) adverts"
