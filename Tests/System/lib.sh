# Tests/System/lib.sh: sourced by each scenario of the systemd VM (Tests/System/scenarios).
# A scenario is bash, runs as root from joule-system-test.service, and ends with exactly one
# of `pass [DETAIL]`, `fail MESSAGE`, `skip MESSAGE` (each exits). Everything it prints goes
# to its log, shown under its result line when it fails. $SYSTEM_DIR is the run's disk (the
# .deb, fixtures), $SYSTEM_STATE survives a reboot, $SYSTEM_PHASE is 2 after one.
set -u
_result() { printf '%s %s\n' "$1" "$2" > "$SYSTEM_RESULT"; [[ $1 == FAIL ]] && exit 1; exit 0; }
pass() { _result PASS "${*:-ok}"; }
fail() { _result FAIL "${*:-failed}"; }
skip() { _result SKIP "${*:-skipped}"; }
note() { echo "$(date +%T) $*"; }

# Marks the scenario to run again after a reboot, with SYSTEM_PHASE=2; the caller exits next.
reboot_and_continue() { echo "$SYSTEM_NAME" > "$SYSTEM_STATE/resume"; exit 0; }

# wait_for SECONDS COMMAND...: true once COMMAND succeeds, false after SECONDS.
wait_for() {
    local limit=$1; shift
    local end=$((SECONDS + limit))
    while ((SECONDS < end)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
    "$@" >/dev/null 2>&1
}

# The package, installed with apt from the run's disk (idempotent).
install_joule() {
    dpkg-query -W -f='${Status}' joule 2>/dev/null | grep -q 'install ok installed' && return 0
    note "apt-get install ./$(basename "$SYSTEM_DIR"/joule_*.deb)"
    apt-get install -y -o Dpkg::Use-Pty=0 "$SYSTEM_DIR"/joule_*.deb || fail "apt-get install of the package failed"
    wait_for 60 joule_active || fail "joule.service did not become active after install: $(systemctl is-active joule)"
}
joule_active() { [[ $(systemctl is-active joule) == active ]]; }

# Energy1 on the system bus.
energy_get() { busctl get-property org.joule.Energy1 /org/joule/Energy1 org.joule.Energy1 "$1"; }
lowpower() { joule lowpower "$@"; }

# alice's tty1 session (autologin on seat0): its id and its scope's cgroup.
alice_session() { loginctl list-sessions --no-legend | awk '$3 == "alice" {print $1; exit}'; }
# as_alice_in_session COMMAND...: COMMAND as alice inside her active local session (its
# process joins the session's scope, which is what logind and polkit read), as if typed there.
as_alice_in_session() {
    local s; s=$(alice_session)
    [[ -n $s ]] || { echo "alice has no session"; return 99; }
    local scope; scope=/sys/fs/cgroup/user.slice/user-1000.slice/session-$s.scope
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec setpriv --reuid=alice --regid=alice --init-groups env HOME=/home/alice USER=alice XDG_RUNTIME_DIR=/run/user/1000 "$@"' sh "$scope" "$@"
}
# as_user USER COMMAND...: COMMAND as USER outside any session (a cron job, a service).
as_user() {
    local u=$1; shift
    setpriv --reuid="$u" --regid="$u" --init-groups env HOME="/home/$u" USER="$u" "$@"
}
# The journal of joule.service this boot, since the cursor saved by mark_journal.
mark_journal() { journalctl -n 0 --show-cursor -q 2>/dev/null | sed -n 's/^-- cursor: //p' > "$SYSTEM_STATE/$SYSTEM_NAME.cursor"; }
journal_since_mark() { journalctl --no-pager -o cat --after-cursor="$(cat "$SYSTEM_STATE/$SYSTEM_NAME.cursor")" "$@"; }

# The config every knob scenario uses: joule's own knobs (not power-profiles-daemon's profile),
# with one real kernel tunable as an `extra` knob (powertop's "VM writeback timeout"), then a
# reload. KNOB and KNOB_VALUE name it.
KNOB=/proc/sys/vm/dirty_writeback_centisecs
KNOB_VALUE=1500
configure_knob() {
    cat > /etc/joule/joule.yaml <<YAML
lowPowerMode:
  actuators: [knobs]
  knobs:
    extra:
      $KNOB: "$KNOB_VALUE"
YAML
    reload_joule
}
# systemctl reload (SIGHUP; systemd 252 does not wait for it), then the daemon's line saying
# it reloaded or kept the old config, which is printed once the new one is enacted.
reload_joule() {
    local cursor; cursor=$(journalctl -n 0 --show-cursor -q 2>/dev/null | sed -n 's/^-- cursor: //p')
    systemctl reload joule || fail "systemctl reload joule failed"
    wait_for 30 sh -c "journalctl -u joule -o cat --after-cursor='$cursor' | grep -qE 'SIGHUP: (reloaded|keeping)'" \
        || fail "joule logged neither 'SIGHUP: reloaded' nor 'SIGHUP: keeping' after systemctl reload"
}
knob_is() { [[ $(cat "$KNOB") == "$1" ]]; }
