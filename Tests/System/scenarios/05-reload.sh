#!/bin/bash
# Scenario 5: `systemctl reload joule` applies a changed config (Low Power Mode, on with no
# actuator, writes the knob the new config names, in the same process); a bad config is logged with its file, line and key, and kept
# out: the daemon stays up with the old one.
# timeout: 120
. "$SYSTEM_DIR/lib.sh"
install_joule
original=$(cat "$KNOB")
cp /etc/joule/joule.yaml "$SYSTEM_STATE/joule.yaml.orig"
# Low Power Mode on with no actuator: announced, nothing written.
printf 'lowPowerMode:\n  actuators: []\n' > /etc/joule/joule.yaml
reload_joule
joule lowpower on || fail "joule lowpower on failed"
sleep 2
knob_is "$original" || fail "with actuators [] the daemon wrote $KNOB ($(cat "$KNOB"))"
pid=$(systemctl show -p MainPID --value joule)
mark_journal
# The changed config: joule's knobs, with the extra knob; the reload enacts them at once.
configure_knob
wait_for 20 knob_is "$KNOB_VALUE" || fail "the reloaded config was not applied: $KNOB is $(cat "$KNOB"), not $KNOB_VALUE"
journal_since_mark -u joule | grep -q 'SIGHUP: reloaded /etc/joule/joule.yaml' \
    || fail "no 'SIGHUP: reloaded /etc/joule/joule.yaml' line: $(journal_since_mark -u joule | tail -n 5)"
[[ $(systemctl show -p MainPID --value joule) == "$pid" ]] || fail "the reload restarted the daemon"

printf 'lowPowerMode:\n  lowPowerAt: banana\n' > /etc/joule/joule.yaml
mark_journal
reload_joule
bad=$(journal_since_mark -u joule | grep 'SIGHUP: keeping' | head -n 1)
[[ -n $bad ]] || fail "the bad config was not refused: $(journal_since_mark -u joule | tail -n 5)"
note "bad config: $bad"
[[ $bad == *'joule.yaml:2:'*'lowPowerAt'* ]] || fail "the bad config's line does not name line 2 and the key lowPowerAt: $bad"
joule_active || fail "joule.service is not active after a bad config"
[[ $(systemctl show -p MainPID --value joule) == "$pid" ]] || fail "the daemon restarted (or died) over a bad config"
knob_is "$KNOB_VALUE" || fail "the bad config changed what is enacted: $KNOB is $(cat "$KNOB")"
joule lowpower off
wait_for 20 knob_is "$original" || fail "Low Power Mode off left $KNOB at $(cat "$KNOB")"
joule lowpower auto
cp "$SYSTEM_STATE/joule.yaml.orig" /etc/joule/joule.yaml
reload_joule
pass "the reload enacted the new knobs ($KNOB $original -> $KNOB_VALUE) in the same process; a bad file logged as '$bad' and kept out"
