#!/bin/bash
# Scenario 4: the watchdog fires on a wedged daemon. With Low Power Mode on and a knob written,
# SIGSTOP the daemon: systemd's watchdog (WatchdogSec, shortened to 10 s by a drop-in as
# `systemctl edit` would write it) aborts it, kills it when the abort cannot land
# (TimeoutAbortSec), runs ExecStopPost (`joule daemon --restore`: the knob goes back) and
# restarts it (Restart=on-failure); the new daemon enacts Low Power Mode again from the kept
# override, and the knob journal still holds the true original, so turning it off restores it.
# timeout: 240
. "$SYSTEM_DIR/lib.sh"
install_joule
original=$(cat "$KNOB")
mkdir -p /etc/systemd/system/joule.service.d
printf '[Service]\nWatchdogSec=10s\n' > /etc/systemd/system/joule.service.d/50-test-watchdog.conf
systemctl daemon-reload
systemctl restart joule
wait_for 60 joule_active || fail "joule did not restart with the drop-in"
configure_knob
joule lowpower on || fail "joule lowpower on failed"
wait_for 20 knob_is "$KNOB_VALUE" || fail "Low Power Mode did not write $KNOB ($(cat "$KNOB"))"
pid=$(systemctl show -p MainPID --value joule)
restarts=$(systemctl show -p NRestarts --value joule)
mark_journal
note "SIGSTOP to $pid (NRestarts $restarts)"
kill -STOP "$pid"
wait_for 150 sh -c "[ \$(systemctl show -p NRestarts --value joule) -gt $restarts ]" \
    || fail "systemd did not restart the wedged daemon: $(systemctl show -p ActiveState -p SubState -p Result --value joule | tr '\n' ' ')"
wait_for 60 joule_active || fail "the restarted joule is not active"
newpid=$(systemctl show -p MainPID --value joule)
[[ $newpid != "$pid" ]] || fail "MainPID did not change"
log=$(journal_since_mark -u joule)
note "$(echo "$log" | tail -n 12)"
echo "$log" | grep -qi 'watchdog timeout' || fail "systemd logged no watchdog timeout"
echo "$log" | grep -q 'restored' || fail "ExecStopPost (joule daemon --restore) logged no restored knob"
wait_for 20 knob_is "$KNOB_VALUE" || fail "the restarted daemon did not enact Low Power Mode again ($KNOB is $(cat "$KNOB"))"
grep -q "\"original\" *: *\"$original\"" /run/joule/lowpower-knobs.json \
    || fail "the knob journal does not hold the true original $original: $(cat /run/joule/lowpower-knobs.json)"
joule lowpower off
wait_for 20 knob_is "$original" || fail "Low Power Mode off after the restart left $KNOB at $(cat "$KNOB"), not $original"
joule lowpower auto
rm /etc/systemd/system/joule.service.d/50-test-watchdog.conf
systemctl daemon-reload
pass "SIGSTOP $pid -> watchdog abort, knob restored by ExecStopPost, restarted as $newpid, original $original kept"
