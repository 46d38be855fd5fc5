#!/bin/bash
# Scenario 1: the package installs with apt, and joule.service comes up active (running) with
# READY=1 (Type=notify: systemd reports it running only after READY=1), its STATUS= line in
# `systemctl status`, and the ready line in the journal at info priority.
# timeout: 180
. "$SYSTEM_DIR/lib.sh"
install_joule
[[ $(systemctl is-enabled joule) == enabled ]] || fail "joule.service is not enabled after install: $(systemctl is-enabled joule)"
# The postinst's deb-systemd-helper enable made bus activation's aliases (scenario 7), each
# under its own name.
for n in Energy1 Apps1 Location1 Transfers1; do
    [[ $(readlink -f /etc/systemd/system/dbus-org.joule.$n.service) == /usr/lib/systemd/system/joule.service ]] \
        || fail "no alias dbus-org.joule.$n.service -> joule.service after install: $(ls /etc/systemd/system)"
done
ls /etc/systemd/system | grep -q ' ' && fail "a unit link with a space in its name: $(ls /etc/systemd/system | grep ' ')"
state="$(systemctl show -p ActiveState --value joule) $(systemctl show -p SubState --value joule) $(systemctl show -p Type --value joule)"
note "joule.service: $state"
[[ $state == "active running notify" ]] || fail "joule.service is '$state', not 'active running notify'"
status=$(systemctl show -p StatusText --value joule)
[[ -n $status ]] || fail "joule.service has no STATUS= text"
systemctl status --no-pager joule | grep -qF "Status: \"$status\"" || fail "systemctl status does not show the STATUS line '$status'"
ready=$(journalctl -b -u joule -o json --no-pager | grep -F '"MESSAGE":"joule daemon: ready: ' | tail -n 1)
[[ -n $ready ]] || fail "no 'joule daemon: ready:' line in journalctl -u joule"
[[ $ready == *'"PRIORITY":"6"'* ]] || fail "the ready line is not at priority 6 (info): $ready"
# The activation files' names answer on the system bus.
energy_get LowPowerMode >/dev/null || fail "Energy1.LowPowerMode cannot be read: $(energy_get LowPowerMode 2>&1)"
pass "active (running), STATUS \"$status\""
