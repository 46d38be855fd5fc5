#!/bin/bash
# Scenario 8: the user units. bob lingers, so his user manager runs without a login; there
# `systemctl --user start joule-session` starts the agent, which reaches the system daemon:
# Low Power Mode on turns the session's animations off (GSettings through bob's dconf), off
# puts them back. joule-user.service (`joule daemon --session`) starts too.
# timeout: 180
. "$SYSTEM_DIR/lib.sh"
install_joule
loginctl enable-linger bob || fail "loginctl enable-linger bob failed"
wait_for 60 sh -c '[ "$(systemctl is-active user@1001.service)" = active ]' || fail "bob's user manager did not start with lingering"
export -f as_user
bus=unix:path=/run/user/1001/bus
user() { as_user bob env XDG_RUNTIME_DIR=/run/user/1001 DBUS_SESSION_BUS_ADDRESS=$bus "$@"; }
[[ -f /usr/lib/systemd/user/joule-session.service ]] || fail "the package has no user unit joule-session.service"
user gsettings get org.gnome.desktop.interface enable-animations >/dev/null 2>&1 \
    || skip "no GSettings schema org.gnome.desktop.interface in the image: $(user gsettings get org.gnome.desktop.interface enable-animations 2>&1)"
[[ $(user gsettings get org.gnome.desktop.interface enable-animations) == true ]] || fail "bob's animations are not on to begin with"
systemctl --user -M bob@ start joule-session.service || fail "systemctl --user start joule-session failed"
wait_for 20 sh -c '[ "$(systemctl --user -M bob@ is-active joule-session.service)" = active ]' || fail "joule-session.service is $(systemctl --user -M bob@ is-active joule-session.service)"
sleep 2
journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=joule-session.service _UID=1001 | grep -q 'neither bus' \
    && fail "the agent did not find the system daemon: $(journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=joule-session.service | tail -n 3)"
joule lowpower on || fail "joule lowpower on failed"
wait_for 20 sh -c "[ \"\$(setpriv --reuid=bob --regid=bob --init-groups env XDG_RUNTIME_DIR=/run/user/1001 DBUS_SESSION_BUS_ADDRESS=$bus gsettings get org.gnome.desktop.interface enable-animations)\" = false ]" \
    || fail "Low Power Mode on did not turn bob's animations off: $(journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=joule-session.service | tail -n 5)"
joule lowpower off
wait_for 20 sh -c "[ \"\$(setpriv --reuid=bob --regid=bob --init-groups env XDG_RUNTIME_DIR=/run/user/1001 DBUS_SESSION_BUS_ADDRESS=$bus gsettings get org.gnome.desktop.interface enable-animations)\" = true ]" \
    || fail "Low Power Mode off did not put bob's animations back"
joule lowpower auto
systemctl --user -M bob@ start joule-user.service || fail "systemctl --user start joule-user failed"
wait_for 20 sh -c '[ "$(systemctl --user -M bob@ is-active joule-user.service)" = active ]' \
    || fail "joule-user.service is $(systemctl --user -M bob@ is-active joule-user.service): $(journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=joule-user.service | tail -n 5)"
systemctl --user -M bob@ stop joule-session.service joule-user.service
loginctl disable-linger bob
pass "lingering bob: joule-session reached the system daemon (animations off and back), joule-user active"
