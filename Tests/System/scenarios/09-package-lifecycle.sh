#!/bin/bash
# Scenario 9: the package's life. Purge leaves no file of Joule's: the file list of the whole
# system before an install is compared with the list after install, use and purge. Remove
# with Low Power Mode on leaves the knob restored and nothing of joule running, and keeps the
# config and the history; a reinstall and an upgrade (the same package, version +1) keep both.
# timeout: 300
. "$SYSTEM_DIR/lib.sh"
# Everything but what changes without joule: the kernel's and systemd's runtime trees, logs,
# apt's and dpkg's own records, this runner's state.
snapshot() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp \
        -o -path /var/log -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
        -o -path /var/lib/systemd -o -path /var/lib/joule-system-test -o -path /srv/joule-test \
        -o -path /home -o -path /root -o -path /var/lib/polkit-1 -o -path /var/lib/upower -o -path /var/lib/NetworkManager \) -prune -o -print | sort
}
if dpkg-query -W -f='${Status}' joule 2>/dev/null | grep -q 'ok installed'; then
    apt-get purge -y -o Dpkg::Use-Pty=0 joule >/dev/null || fail "purging the earlier scenarios' install failed"
fi
snapshot > "$SYSTEM_STATE/files-before"
find /run -xdev -path '/run/user' -prune -o -print | grep -i joule > "$SYSTEM_STATE/run-before" || true
install_joule
configure_knob
joule lowpower on
wait_for 20 knob_is "$KNOB_VALUE" || fail "Low Power Mode did not write $KNOB"
joule lowpower off
wait_for 20 test -d /var/lib/joule || fail "no /var/lib/joule after using joule"
apt-get purge -y -o Dpkg::Use-Pty=0 joule >/dev/null || fail "apt-get purge joule failed"
snapshot > "$SYSTEM_STATE/files-after"
left=$(comm -13 "$SYSTEM_STATE/files-before" "$SYSTEM_STATE/files-after")
[[ -z $left ]] || fail "purge left files: $(echo "$left" | head -n 10 | tr '\n' ' ')"
gone=$(comm -23 "$SYSTEM_STATE/files-before" "$SYSTEM_STATE/files-after")
[[ -z $gone ]] || fail "install and purge removed files that were there before: $(echo "$gone" | head -n 10 | tr '\n' ' ')"
[[ ! -e /run/joule ]] || fail "purge left /run/joule"
ls /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | grep -q joule && fail "purge left deb-systemd-helper's record of joule"

# Remove with Low Power Mode on: the knob back, nothing running, config and history kept.
original=$(cat "$KNOB")
install_joule
configure_knob
echo "# kept across remove and upgrade (scenario 9)" >> /etc/joule/joule.yaml
joule lowpower on
wait_for 20 knob_is "$KNOB_VALUE" || fail "Low Power Mode did not write $KNOB before the remove"
wait_for 30 sh -c 'ls /var/lib/joule/ | grep -q .' || fail "/var/lib/joule is empty"
# The durable state (SQLite's -wal and -shm come and go with the connection).
state_before=$(ls /var/lib/joule | grep -vE -- '-(wal|shm)$' | sort | tr '\n' ' ')
apt-get remove -y -o Dpkg::Use-Pty=0 joule > "$SYSTEM_STATE/remove.out" 2>&1 || fail "apt-get remove joule failed: $(tail -n 5 "$SYSTEM_STATE/remove.out")"
knob_is "$original" || fail "remove left $KNOB at $(cat "$KNOB"), not $original"
pgrep -x joule >/dev/null && fail "a joule process runs after remove: $(pgrep -a -x joule)"
[[ $(systemctl is-active joule) != active ]] || fail "joule.service is active after remove"
grep -q 'kept across remove' /etc/joule/joule.yaml || fail "remove did not keep the edited /etc/joule/joule.yaml"
[[ $(ls /var/lib/joule | grep -vE -- '-(wal|shm)$' | sort | tr '\n' ' ') == "$state_before" ]] || fail "remove changed /var/lib/joule: $(ls /var/lib/joule | tr '\n' ' '), was $state_before"
install_joule
grep -q 'kept across remove' /etc/joule/joule.yaml || fail "the reinstall replaced the edited config"
[[ $(energy_get LowPowerMode) == "b true" ]] || fail "the reinstall lost the Low Power Mode override kept in /var/lib/joule: $(energy_get LowPowerMode)"
pid=$(systemctl show -p MainPID --value joule)
old=$(dpkg-query -W -f='${Version}' joule)
apt-get install -y -o Dpkg::Use-Pty=0 "$SYSTEM_DIR/joule-upgrade.deb" > "$SYSTEM_STATE/upgrade.out" 2>&1 \
    || fail "the upgrade failed: $(tail -n 5 "$SYSTEM_STATE/upgrade.out")"
new=$(dpkg-query -W -f='${Version}' joule)
[[ $new == "$old+1" ]] || fail "the upgrade installed $new, not $old+1"
wait_for 60 joule_active || fail "joule.service is not active after the upgrade"
[[ $(systemctl show -p MainPID --value joule) != "$pid" ]] || fail "the upgrade did not restart joule.service"
grep -q 'kept across remove' /etc/joule/joule.yaml || fail "the upgrade replaced the edited config"
wait_for 20 knob_is "$KNOB_VALUE" || fail "after the upgrade Low Power Mode is not enacted: $KNOB is $(cat "$KNOB")"
joule lowpower off
wait_for 20 knob_is "$original" || fail "Low Power Mode off after the upgrade left $KNOB at $(cat "$KNOB")"
joule lowpower auto
# Back to the package of this run for the scenarios after this one.
apt-get purge -y -o Dpkg::Use-Pty=0 joule >/dev/null
install_joule
pass "purge left no file ($(wc -l < "$SYSTEM_STATE/files-after") compared); remove restored the knob and kept config and state; reinstall and upgrade $old -> $new kept both"
