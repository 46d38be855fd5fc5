#!/bin/bash
# Scenario 3: polkit decides for real. alice, in her active local session on seat0, may set Low
# Power Mode; bob, with no session, may not; root may; a rule file in /etc/polkit-1/rules.d
# granting the group `energy` lets bob.
# timeout: 180
. "$SYSTEM_DIR/lib.sh"
install_joule
action=org.joule.Energy1.set-low-power-mode
set_lpm() { busctl call org.joule.Energy1 /org/joule/Energy1 org.joule.Energy1 SetLowPowerMode s "$1"; }
wait_for 60 test -n "$(alice_session)" || fail "alice's autologin session on tty1 never appeared: $(loginctl list-sessions --no-legend)"
s=$(alice_session)
note "alice's session $s: $(loginctl show-session "$s" -p Seat -p Active -p Remote -p Type -p State | tr '\n' ' ')"
[[ $(loginctl show-session "$s" -p Active --value) == yes ]] || fail "alice's session $s is not active"
pkaction --action-id "$action" >/dev/null || fail "polkit does not know $action: $(pkaction --action-id "$action" 2>&1)"

as_alice_in_session busctl call org.joule.Energy1 /org/joule/Energy1 org.joule.Energy1 SetLowPowerMode s on \
    || fail "alice (active local session) may not set Low Power Mode"
[[ $(energy_get LowPowerMode) == "b true" ]] || fail "alice's call returned but LowPowerMode is $(energy_get LowPowerMode)"
# pkcheck agrees, for a process in her session.
as_alice_in_session sleep 30 & sp=$!
sleep 0.5
pkcheck --action-id "$action" --process "$(pgrep -u alice -x sleep | head -n1)" || fail "pkcheck: a process of alice's session is not authorized"
kill $sp 2>/dev/null

if out=$(as_user bob busctl call org.joule.Energy1 /org/joule/Energy1 org.joule.Energy1 SetLowPowerMode s off 2>&1); then
    fail "bob (no session) set Low Power Mode"
fi
note "bob without a session: $out"
[[ $(energy_get LowPowerMode) == "b true" ]] || fail "bob's refused call changed LowPowerMode"
set_lpm off || fail "root may not set Low Power Mode"
[[ $(energy_get LowPowerMode) == "b false" ]] || fail "root's call did not turn Low Power Mode off"

cat > /etc/polkit-1/rules.d/50-joule-energy.rules <<'RULE'
polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.joule.") == 0 && subject.isInGroup("energy")) {
        return polkit.Result.YES;
    }
});
RULE
# polkitd reloads rules.d on its own (inotify).
wait_for 20 as_user bob busctl call org.joule.Energy1 /org/joule/Energy1 org.joule.Energy1 SetLowPowerMode s on \
    || fail "bob (group energy) is still refused with the rule file in place"
[[ $(energy_get LowPowerMode) == "b true" ]] || fail "bob's granted call did not turn Low Power Mode on"
rm /etc/polkit-1/rules.d/50-joule-energy.rules
set_lpm off
joule lowpower auto >/dev/null 2>&1 || true
pass "alice in session: yes; bob: no, then yes through a group rule; root: yes"
