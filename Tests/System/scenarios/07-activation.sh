#!/bin/bash
# Scenario 7: bus activation. joule.service disabled: a client's call does not start it (the
# activation files name dbus-org.joule.*.service, aliases that only `systemctl enable`
# creates). Enabled but stopped: the first call starts it.
# timeout: 120
. "$SYSTEM_DIR/lib.sh"
install_joule
call() { busctl --timeout=30 call org.joule.Energy1 /org/joule/Energy1 org.freedesktop.DBus.Properties Get ss org.joule.Energy1 LowPowerMode; }
systemctl disable --now joule || fail "systemctl disable --now joule failed"
[[ ! -e /etc/systemd/system/dbus-org.joule.Energy1.service ]] || fail "the alias outlived systemctl disable"
if refused=$(call 2>&1); then fail "a call to the disabled joule succeeded: $refused"; fi
note "disabled: $refused"
sleep 1
[[ $(systemctl is-active joule) != active ]] || fail "the call started the disabled joule.service"
for n in Apps1 Location1 Transfers1; do
    busctl --timeout=30 introspect org.joule.$n /org/joule/$n >/dev/null 2>&1 && fail "org.joule.$n activated the disabled joule"
done
[[ $(systemctl is-active joule) != active ]] || fail "a call to another of joule's names started it"

systemctl enable joule || fail "systemctl enable joule failed"
[[ -L /etc/systemd/system/dbus-org.joule.Energy1.service ]] || fail "systemctl enable made no dbus-org.joule.Energy1.service alias"
out=$(call 2>&1) || fail "the enabled but stopped joule was not activated by a call: $out"
# The name is owned before READY=1: the unit may still be activating when the call returns.
wait_for 30 joule_active || fail "the call returned but joule.service is $(systemctl is-active joule)"
pass "disabled: not started ($refused); enabled: started by the first call"
