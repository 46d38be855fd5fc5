#!/bin/sh
# vm-timeout: 600
# `make bench` (group beacon-wakeups): host wakeups per minute of `joule beacons monitor`, for
# the three mechanisms (what joule's first stderr line says), in one VM run:
#   offloaded       bluetoothd --experimental, AdvertisementMonitorManager1, and a controller
#                   offering MSFT (-m): the kernel programs the pattern, the controller filters.
#                   Only where the kernel has CONFIG_BT_MSFTEXT (msft=yes).
#   manager         (mechanism bluez-software) bluetoothd --experimental, the monitor manager
#                   with a controller without MSFT: the kernel scans, bluetoothd matches
#   discovery       (mechanism bluez-software) bluetoothd without --experimental: filtered
#                   discovery, joule matches
#   hci-duty-cycle  no bluetoothd: joule's own duty-cycled scan on the raw HCI socket
# and two conditions:
#   none    no matching beacon: the other captures' beacons loop at 10 adverts/s (region
#           UUID not on the air), BENCH_NONE seconds
#   inout   one beacon going in and out: region-h4 looped at its own timestamps (46 s: in
#           0-5 s and 30-32 s), BENCH_INOUT seconds, --exit-timeout 5
# Wakeups are context switches (voluntary and not, every thread) of the host's processes in the
# path, joule + bluetoothd + dbus-daemon, per minute; joule's own are reported beside them, and
# the HCI events the controller sent to the host (reports and MSFT events) per minute.
# The result is the pass detail: one `MECH.COND=HOST/JOULE/EVENTS/ENTERS` field per run (per
# minute, ENTERS = enter events seen), and `msft=yes|no`.
. /lib.sh
BENCH_NONE=30
BENCH_INOUT=46
absent=11111111-2222-3333-4444-555555555555
office=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
msft=no
if grep -q '^CONFIG_BT_MSFTEXT=y' /boot/config-* 2>/dev/null; then msft=yes; fi
results=""

# Usage: measure MECH COND SECONDS CAPTURE-ARGS REGION
measure() {
    _mech=$1 _cond=$2 _secs=$3 _cap=$4 _region=$5
    rm -f cmd.log
    _transport=bluez
    case $_mech in
    offloaded) _said=offloaded; start_controller $_cap -m 0xfc1e; start_bluez --experimental "$ADAPTER" ;;
    manager) _said=bluez-software; start_controller $_cap; start_bluez --experimental "$ADAPTER" ;;
    discovery) _said=bluez-software; start_controller $_cap; start_bluez "$ADAPTER" ;;
    hci-duty-cycle) _said=hci-duty-cycle; start_controller $_cap; _transport=hci ;;
    esac
    joule beacons monitor --json --transport $_transport --adapter "$ADAPTER" --region "r=$_region" --exit-timeout 5 \
        > "$_mech.$_cond.ndjson" 2> "$_mech.$_cond.err" &
    _jp=$!
    track $_jp
    wait_for 20 test -s "$_mech.$_cond.err" || fail "$_mech/$_cond: joule said nothing on stderr"
    first_line_says "$_mech.$_cond.err" "$_said" || fail "$_mech/$_cond: mechanism is not $_said: $(head -n 1 "$_mech.$_cond.err")"
    sleep 3
    _pids="$_jp $BLUETOOTHD_PID $DBUS_PID"
    [ $_transport = hci ] && _pids=$_jp
    _h0=0; for p in $_pids; do _h0=$((_h0 + $(ctx_switches $p))); done
    _j0=$(ctx_switches $_jp)
    _e0=$(grep -c '"event":"enter"' "$_mech.$_cond.ndjson")
    _t0=$(now)
    kill -USR1 $CONTROLLER_PID 2>/dev/null
    sleep "$_secs"
    _h1=0; for p in $_pids; do _h1=$((_h1 + $(ctx_switches $p))); done
    _j1=$(ctx_switches $_jp)
    _t1=$(now)
    _e1=$(grep -c '"event":"enter"' "$_mech.$_cond.ndjson")
    kill -0 $_jp 2>/dev/null || fail "$_mech/$_cond: joule exited: $(tr '\n' ' ' < "$_mech.$_cond.err")"
    kill -INT $_jp
    wait $_jp
    kill -TERM $CONTROLLER_PID
    wait $CONTROLLER_PID
    [ "$_transport" = bluez ] && stop_bluez
    # Events the controller sent during the window: stats at the window's start (SIGUSR1) and end.
    _s0=$(grep '# stats' cmd.log | sed -n 1p | awk '{print $5 + $9}')
    _s1=$(grep '# stats' cmd.log | tail -n 1 | awk '{print $5 + $9}')
    results="$results $(awk -v mech=$_mech -v cond=$_cond -v h=$((_h1 - _h0)) -v j=$((_j1 - _j0)) \
        -v ev=$((${_s1:-0} - ${_s0:-0})) -v en=$((_e1 - _e0)) -v a=$_t0 -v b=$_t1 \
        'BEGIN{m = (b - a) / 60; printf "%s.%s=%.0f/%.0f/%.0f/%d", mech, cond, h / m, j / m, ev / m, en}')"
    note "$_mech/$_cond:$results"
}

mechs="manager discovery hci-duty-cycle"
[ $msft = yes ] && mechs="offloaded $mechs"
for mech in $mechs; do
    measure $mech none $BENCH_NONE "-c /fixtures/bluetooth/all-kinds-h4.btsnoop -R 10 -L" $absent
    measure $mech inout $BENCH_INOUT "-c /fixtures/bluetooth/region-h4.btsnoop -L" $office
done
pass "msft=$msft$results"
