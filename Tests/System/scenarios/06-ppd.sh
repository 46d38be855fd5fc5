#!/bin/bash
# Scenario 6: with power-profiles-daemon running, Low Power Mode holds power-saver through it
# and writes no knob. Stopping ppd mid-hold follows the README ("How Low Power Mode is enacted
# and restored"): without an owner of the name, joule's knobs take over; ppd back, it gets a
# new hold and the knobs are put back.
# timeout: 180
. "$SYSTEM_DIR/lib.sh"
install_joule
ppd() { busctl get-property net.hadess.PowerProfiles /net/hadess/PowerProfiles net.hadess.PowerProfiles "$1"; }
original=$(cat "$KNOB")
systemctl start power-profiles-daemon || fail "power-profiles-daemon does not start: $(systemctl status --no-pager power-profiles-daemon | tail -n 5)"
wait_for 20 ppd ActiveProfile || fail "net.hadess.PowerProfiles does not answer"
note "ppd: $(ppd ActiveProfile), profiles $(ppd Profiles | head -c 200)"
cat > /etc/joule/joule.yaml <<YAML
lowPowerMode:
  actuators: [power-profiles-daemon, knobs]
  knobs:
    extra:
      $KNOB: "$KNOB_VALUE"
YAML
reload_joule
joule lowpower on || fail "joule lowpower on failed"
wait_for 20 sh -c "busctl get-property net.hadess.PowerProfiles /net/hadess/PowerProfiles net.hadess.PowerProfiles ActiveProfile | grep -q power-saver" \
    || fail "ppd's ActiveProfile is $(ppd ActiveProfile), not power-saver"
ppd ActiveProfileHolds | grep -q joule || fail "ppd lists no hold by joule: $(ppd ActiveProfileHolds)"
sleep 2
knob_is "$original" || fail "joule wrote $KNOB ($(cat "$KNOB")) although ppd holds power-saver"

systemctl stop power-profiles-daemon
wait_for 20 knob_is "$KNOB_VALUE" || fail "with ppd stopped mid-hold, joule's knobs did not take over ($KNOB is $(cat "$KNOB"))"
systemctl start power-profiles-daemon
wait_for 20 sh -c "busctl get-property net.hadess.PowerProfiles /net/hadess/PowerProfiles net.hadess.PowerProfiles ActiveProfile | grep -q power-saver" \
    || fail "the restarted ppd got no new hold: ActiveProfile $(ppd ActiveProfile)"
wait_for 20 knob_is "$original" || fail "ppd back, joule left $KNOB at $(cat "$KNOB"), not $original"

joule lowpower off
wait_for 20 sh -c "busctl get-property net.hadess.PowerProfiles /net/hadess/PowerProfiles net.hadess.PowerProfiles ActiveProfile | grep -qv power-saver" \
    || fail "Low Power Mode off left ppd at $(ppd ActiveProfile)"
knob_is "$original" || fail "Low Power Mode off: $KNOB is $(cat "$KNOB")"
joule lowpower auto
pass "power-saver held through ppd with no knob; ppd stopped: knobs took over; ppd back: held again, knob restored"
