#!/usr/bin/env bash
# `make test-install` (part of `make test`): `make install DESTDIR=tmp PREFIX=/usr` lays out
# every file; systemd-analyze verify accepts the units (where it exists); the binary runs in
# a clean environment and ldd shows no Swift runtime library; completions and man pages are
# there; the D-Bus policy lets root, and only root, own org.joule.Energy1 (on a private
# dbus-daemon, when run as root); `make uninstall` leaves nothing but the administrator's
# joule.yaml, which install never touches. Reuses .build-release when it is up to date (the
# first release build takes minutes). Prints `install: N passed, M failed`; exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
MAKE=${MAKE:-make}
started=$SECONDS
passed=0
failed=0
work=$(mktemp -d "${TMPDIR:-/tmp}/joule-test-install.XXXXXX")
bus_pid=
cleanup() {
    [[ -n $bus_pid ]] && kill "$bus_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

pass() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
note() { echo "note  $*"; }
check() { # check DESCRIPTION COMMAND...: pass when the command succeeds
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
refuses() { ! "$@"; }
lacks() { ! grep -q "$1" <<<"$2"; } # lacks PATTERN TEXT
# Directories from a caller's environment (a make that exports them) would override PREFIX.
unset DESTDIR BINDIR DATADIR MANDIR SYSCONFDIR SYSTEMDSYSTEMUNITDIR SYSTEMDUSERUNITDIR DBUSPOLICYDIR \
    DBUSSERVICEDIR DBUSINTERFACEDIR POLKITACTIONDIR BASHCOMPLETIONDIR ZSHCOMPLETIONDIR FISHCOMPLETIONDIR XDGAUTOSTARTDIR

dest=$work/root
mkdir -p "$dest/etc/joule"
# The administrator's own config: install must not overwrite it, uninstall must not remove it.
echo "# mine" >"$dest/etc/joule/joule.yaml"
# GeoClue 2.6's own config (it reads no conf.d): install appends joule's whitelist section,
# uninstall takes exactly that back out.
mkdir -p "$dest/etc/geoclue"
printf '[agent]\nwhitelist=gnome-shell\n\n[firefox]\nallowed=true\nsystem=false\nusers=\n' >"$dest/etc/geoclue/geoclue.conf"
chmod 0644 "$dest/etc/geoclue/geoclue.conf"
geoclue_before=$(cat "$dest/etc/geoclue/geoclue.conf")

t0=$SECONDS
if ! $MAKE -s --no-print-directory install DESTDIR="$dest" PREFIX=/usr >"$work/install.log" 2>&1; then
    tail -n 40 "$work/install.log"
    fail "make install DESTDIR=… PREFIX=/usr"
    echo "install: $passed passed, $failed failed"
    exit 1
fi
pass "make install DESTDIR=… PREFIX=/usr ($((SECONDS - t0))s, release build included)"
grep -E '^install.sh: .*[0-9]+s$|up to date' "$work/install.log" | sed 's/^install.sh: /note  /'

bin=$dest/usr/bin/joule
# Does this tree have `joule daemon` yet (issue 12, written in parallel)? Then completions and
# the man pages must cover it too.
has_daemon=no
# (`joule daemon --help` exits 0 without it too: ArgumentParser prints the root's help.)
env -i "$bin" --help 2>/dev/null | grep -qE '^  daemon( |$)' && has_daemon=yes

# --- layout ----------------------------------------------------------------------------------
expected=(
    usr/bin/joule
    usr/lib/systemd/system/joule.service
    usr/lib/systemd/user/joule-user.service
    usr/lib/systemd/user/joule-session.service
    etc/xdg/autostart/joule-session.desktop
    usr/share/dbus-1/system.d/org.joule.Energy1.conf
    usr/share/dbus-1/system-services/org.joule.Energy1.service
    usr/share/dbus-1/interfaces/org.joule.Energy1.xml
    usr/share/polkit-1/actions/org.joule.Energy1.policy
    etc/joule/joule.yaml.example
    etc/geoclue/conf.d/90-joule.conf
    usr/share/bash-completion/completions/joule
    usr/share/zsh/site-functions/_joule
    usr/share/fish/vendor_completions.d/joule.fish
    usr/share/man/man1/joule.1
    usr/share/man/man1/joule.status.1
)
[[ $has_daemon == yes ]] && expected+=(usr/share/man/man1/joule.daemon.1)
for file in "${expected[@]}"; do
    check "installed /$file (non-empty)" test -s "$dest/$file"
done
check "/usr/bin/joule is executable (0755)" test "$(stat -c %a "$bin")" = 755
others=$(find "$dest" -type f ! -path "$bin" ! -perm 0644 ! -name joule.yaml -printf '/%P\n')
check "every other file is 0644${others:+ (not: $others)}" test -z "$others"
check "the administrator's /etc/joule/joule.yaml is untouched" test "$(cat "$dest/etc/joule/joule.yaml")" = "# mine"
# GeoClue's whitelist entry: the keys geoclue.conf documents for an application, all three.
geoclue_entry=$dest/etc/geoclue/conf.d/90-joule.conf
check "GeoClue whitelist drop-in: [joule] allowed=true system=true users= (for every user)" \
    test "$(grep -v '^#' "$geoclue_entry" | sed '/^$/d')" = "$(printf '[joule]\nallowed=true\nsystem=true\nusers=')"
geoclue_main=$dest/etc/geoclue/geoclue.conf
check "GeoClue 2.6's geoclue.conf keeps its own sections and gains [joule] once" \
    test "$(grep -c '^\[joule\]$' "$geoclue_main"):$(head -c ${#geoclue_before} "$geoclue_main")" = "1:$geoclue_before"
check "geoclue.conf's [joule] section is the drop-in's" \
    test "$(sed -n '/^\[joule\]$/,/^# joule: end$/p' "$geoclue_main" | sed '$d')" = "$(grep -v '^#' "$geoclue_entry" | sed '/^$/d')"
left=$(grep -rl '@bindir@' "$dest" 2>/dev/null)
check "@bindir@ replaced everywhere${left:+ (not in: $left)}" test -z "$left"
unit=$dest/usr/lib/systemd/system/joule.service
user_unit=$dest/usr/lib/systemd/user/joule-user.service
check "joule.service: ExecStart=/usr/bin/joule daemon --system" grep -qx 'ExecStart=/usr/bin/joule daemon --system' "$unit"
check "joule.service: ExecStopPost=/usr/bin/joule daemon --restore" grep -qx 'ExecStopPost=/usr/bin/joule daemon --restore' "$unit"
for line in Type=notify 'WatchdogSec=[1-9].*' BusName=org.joule.Energy1 'ExecReload=/bin/kill -HUP $MAINPID' \
    RuntimeDirectory=joule StateDirectory=joule WantedBy=multi-user.target; do
    check "joule.service: $line" grep -qx "$line" "$unit"
done
for option in ProtectControlGroups PrivateNetwork ProtectKernelTunables; do
    check "joule.service does not set $option" refuses grep -q "^$option=" "$unit"
done
for line in Type=notify BusName=org.joule.Energy1 WantedBy=default.target; do
    check "joule-user.service: $line" grep -qx "$line" "$user_unit"
done
check "joule-user.service: ExecStart=/usr/bin/joule daemon --session" grep -qx 'ExecStart=/usr/bin/joule daemon --session' "$user_unit"
session_unit=$dest/usr/lib/systemd/user/joule-session.service
autostart=$dest/etc/xdg/autostart/joule-session.desktop
for line in 'ExecStart=/usr/bin/joule session' PartOf=graphical-session.target WantedBy=graphical-session.target; do
    check "joule-session.service: $line" grep -qx "$line" "$session_unit"
done
check "joule-session.desktop: Exec=/usr/bin/joule session, hidden where systemd runs the session" \
    bash -c 'grep -qx "Exec=/usr/bin/joule session" "$1" && grep -qx X-GNOME-HiddenUnderSystemd=true "$1" && grep -qx X-systemd-skip=true "$1"' _ "$autostart"
if command -v desktop-file-validate >/dev/null; then
    check "desktop-file-validate joule-session.desktop" desktop-file-validate "$autostart"
fi
check "D-Bus activation: Exec=/usr/bin/joule daemon --system, SystemdService=dbus-org.joule.Energy1.service (joule.service's alias)" \
    bash -c 'grep -qx "Exec=/usr/bin/joule daemon --system" "$1" && grep -qx SystemdService=dbus-org.joule.Energy1.service "$1"' _ \
    "$dest/usr/share/dbus-1/system-services/org.joule.Energy1.service"
check "the interface XML is data/org.joule.Energy1.xml" cmp -s data/org.joule.Energy1.xml "$dest/usr/share/dbus-1/interfaces/org.joule.Energy1.xml"
check "the interface XML is data/org.joule.Location1.xml" cmp -s data/org.joule.Location1.xml "$dest/usr/share/dbus-1/interfaces/org.joule.Location1.xml"
check "D-Bus activation of org.joule.Location1 starts joule.service through its alias dbus-org.joule.Location1.service" \
    bash -c 'grep -qx "Name=org.joule.Location1" "$1" && grep -qx SystemdService=dbus-org.joule.Location1.service "$1" && grep -q "^Alias=.*dbus-org.joule.Location1.service" "$2"' _ \
    "$dest/usr/share/dbus-1/system-services/org.joule.Location1.service" "$unit"
check "polkit's org.joule.Location1.use is for active sessions only" \
    bash -c 'grep -A8 "org.joule.Location1.use" "$1" | grep -q "<allow_active>yes</allow_active>" && grep -A8 "org.joule.Location1.use" "$1" | grep -q "<allow_inactive>no</allow_inactive>"' _ \
    "$dest/usr/share/polkit-1/actions/org.joule.Energy1.policy"
check "the interface XML is data/org.joule.Transfers1.xml" cmp -s data/org.joule.Transfers1.xml "$dest/usr/share/dbus-1/interfaces/org.joule.Transfers1.xml"
check "D-Bus activation of org.joule.Transfers1 starts joule.service through its alias dbus-org.joule.Transfers1.service" \
    bash -c 'grep -qx "Name=org.joule.Transfers1" "$1" && grep -qx SystemdService=dbus-org.joule.Transfers1.service "$1" && grep -q "^Alias=.*dbus-org.joule.Transfers1.service" "$2"' _ \
    "$dest/usr/share/dbus-1/system-services/org.joule.Transfers1.service" "$unit"
check "the interface XML is data/org.joule.Apps1.xml" cmp -s data/org.joule.Apps1.xml "$dest/usr/share/dbus-1/interfaces/org.joule.Apps1.xml"
check "D-Bus activation of org.joule.Apps1 starts joule.service through its alias dbus-org.joule.Apps1.service" \
    bash -c 'grep -qx "Name=org.joule.Apps1" "$1" && grep -qx SystemdService=dbus-org.joule.Apps1.service "$1" && grep -q "^Alias=.*dbus-org.joule.Apps1.service" "$2"' _ \
    "$dest/usr/share/dbus-1/system-services/org.joule.Apps1.service" "$unit"

# --- the binary --------------------------------------------------------------------------------
libs=$(ldd "$bin" 2>&1)
swift_libs=$(grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|/opt/swift' <<<"$libs")
if [[ -n ${JOULE_BINARY:-} ]]; then
    # `make test` installs its ThreadSanitizer build, which links the runtime dynamically
    # (TSan's allocator and a static Foundation do not mix); a release install is static.
    note "JOULE_BINARY given: the static-runtime check is left to a release build (make test-install)"
else
    check "ldd shows no Swift runtime library${swift_libs:+: $swift_libs}" test -z "$swift_libs"
fi
check "ldd resolves every library" lacks 'not found' "$libs"
check "joule --help runs in a clean environment" bash -c "env -i '$bin' --help | grep -q 'USAGE: joule'"
fixture=hw-fixtures/thinkpad-t480-two-batteries-discharging
if [[ -d $fixture ]]; then
    check "joule status --json --root FIXTURE runs in a clean environment" \
        bash -c "env -i '$bin' status --json --root '$repo/$fixture' | grep -q '\"lowPowerMode\"'"
fi

# --- completions and man pages -------------------------------------------------------------
words=(status)
[[ $has_daemon == yes ]] && words+=(daemon)
[[ $has_daemon == no ]] && note "no \`joule daemon\` in this tree yet: completions and man pages are checked for \`status\` only"
for completion in bash-completion/completions/joule zsh/site-functions/_joule fish/vendor_completions.d/joule.fish; do
    for word in "${words[@]}"; do
        check "$completion mentions $word" grep -qw "$word" "$dest/usr/share/$completion"
    done
done
check "bash completion parses (bash -n)" bash -n "$dest/usr/share/bash-completion/completions/joule"
if command -v zsh >/dev/null; then check "zsh completion parses (zsh -n)" zsh -n "$dest/usr/share/zsh/site-functions/_joule"; fi
if command -v fish >/dev/null; then check "fish completion parses (fish -n)" fish -n "$dest/usr/share/fish/vendor_completions.d/joule.fish"; fi
man1=$dest/usr/share/man/man1
for page in "$man1"/joule*.1; do
    # generate-manual writes mdoc(7): .Dd/.Dt/.Os, then sections.
    check "man page ${page##*/} is troff" grep -q '^\.\(Dd\|TH\)' "$page"
done
check "joule.1 names the subcommands" grep -qw status "$man1/joule.1"
if command -v man >/dev/null; then
    rendered=$(MANWIDTH=80 man -l "$man1/joule.1" 2>/dev/null)
    check "man -l joule.1 renders" grep -q 'joule' <<<"$rendered"
fi

# --- XML: polkit action and D-Bus policy -----------------------------------------------------
policy=$dest/usr/share/polkit-1/actions/org.joule.Energy1.policy
conf=$dest/usr/share/dbus-1/system.d/org.joule.Energy1.conf
check "polkit actions org.joule.Energy1.set-low-power-mode and set-charge-limit: allow_any no, allow_inactive no, allow_active yes" \
    python3 - "$policy" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for name in ("set-low-power-mode", "set-charge-limit"):
    d = root.find(f"action[@id='org.joule.Energy1.{name}']").find("defaults")
    if (d.findtext("allow_any"), d.findtext("allow_inactive"), d.findtext("allow_active")) != ("no", "no", "yes"):
        sys.exit(1)
EOF
if command -v xmllint >/dev/null; then
    check "xmllint: D-Bus policy and interface XML are well-formed" xmllint --noout "$conf" "$dest/usr/share/dbus-1/interfaces/org.joule.Energy1.xml"
    dtd=/usr/share/polkit-1/policyconfig-1.dtd
    if [[ -f $dtd ]]; then
        check "xmllint: the polkit action is valid against polkit's DTD" xmllint --noout --dtdvalid "$dtd" "$policy"
    else
        check "xmllint: the polkit action is well-formed" xmllint --noout "$policy"
    fi
else
    note "no xmllint (apt libxml2-utils): XML checked by python only"
fi

# A private bus with the system bus's default policy (nobody owns a name, method calls are
# denied) plus the installed policy, as dbus-daemon reads it from system.d.
if [[ $(id -u) == 0 ]] && command -v dbus-daemon >/dev/null && command -v busctl >/dev/null && command -v setpriv >/dev/null; then
    bus_conf() { # bus_conf FILE [INCLUDE]
        cat >"$1" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
  ${2:+<include>$2</include>}
</busconfig>
EOF
    }
    start_bus() {
        rm -f "$work/bus"
        dbus-daemon --config-file="$1" --nofork --print-pid=1 >"$work/bus.pid" 2>"$work/bus.log" &
        bus_pid=$!
        for _ in $(seq 50); do [[ -S $work/bus ]] && return 0; sleep 0.05; done
        return 1
    }
    stop_bus() { kill "$bus_pid" 2>/dev/null; wait "$bus_pid" 2>/dev/null; bus_pid=; }
    own() { # own [AS-UID]: RequestName(org.joule.Energy1, DO_NOT_QUEUE) on the private bus
        local run=()
        [[ -n ${1:-} ]] && run=(setpriv --reuid="$1" --regid="$1" --clear-groups)
        "${run[@]}" busctl --address="unix:path=$work/bus" call org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus RequestName su org.joule.Energy1 4 >/dev/null 2>&1
    }
    chmod 0755 "$work"
    bus_conf "$work/without.conf"
    bus_conf "$work/with.conf" "$conf"
    if start_bus "$work/without.conf"; then
        check "private system bus without the policy: root may not own org.joule.Energy1 (control)" refuses own
        stop_bus
    fi
    if start_bus "$work/with.conf"; then
        pass "dbus-daemon loads the installed policy"
        check "with the policy: root may own org.joule.Energy1" own
        check "with the policy: nobody (uid 65534) may not" refuses own 65534
        stop_bus
    else
        fail "dbus-daemon loads the installed policy: $(cat "$work/bus.log")"
    fi
else
    note "D-Bus policy not exercised on a private bus (needs root, dbus-daemon, busctl, setpriv)"
fi

# --- systemd-analyze verify ------------------------------------------------------------------
# verify insists that ExecStart's binary exists, so it reads copies of the installed units that
# point at the DESTDIR binary; MANPATH lets it find Documentation=man:joule(1) in DESTDIR. A
# unit with a bad setting is reported as `FILE:LINE: ...` or `UNIT: ...` while verify may still
# exit 0: any line naming our units fails, except a dependency missing from this host.
if command -v systemd-analyze >/dev/null; then
    mkdir -p "$work/units"
    sed "s|/usr/bin/joule|$bin|g" "$unit" >"$work/units/joule.service"
    sed "s|/usr/bin/joule|$bin|g" "$user_unit" >"$work/units/joule-user.service"
    sed "s|/usr/bin/joule|$bin|g" "$session_unit" >"$work/units/joule-session.service"
    flags=()
    if command -v man >/dev/null; then flags+=(--man=yes); else flags+=(--man=no); fi
    systemd-analyze verify --help 2>&1 | grep -q -- --recursive-errors && flags+=(--recursive-errors=no)
    verify() { # verify NAME [--user]
        local name=$1 out rc
        shift
        mkdir -p "$work/xdg-runtime"
        chmod 0700 "$work/xdg-runtime"
        out=$(cd "$work/units" && XDG_RUNTIME_DIR=$work/xdg-runtime MANPATH=$dest/usr/share/man \
            systemd-analyze "$@" "${flags[@]}" verify "$work/units/$name" 2>&1)
        rc=$?
        local real
        real=$(grep -F "$name" <<<"$out" | grep -vE "Unit [^ ]+ not found" || true)
        if [[ -n $real ]]; then
            fail "systemd-analyze ${*:+$* }verify $name:"$'\n'"$out"
        elif ((rc != 0)) && [[ -z $(grep -E "Unit [^ ]+ not found" <<<"$out") ]]; then
            fail "systemd-analyze ${*:+$* }verify $name exited $rc:"$'\n'"$out"
        else
            pass "systemd-analyze ${*:+$* }verify $name"
            [[ -n $out ]] && note "(environment, not the unit) $out"
        fi
    }
    verify joule.service
    verify joule-user.service --user
    verify joule-session.service --user
    exposure=$(cd "$work/units" && systemd-analyze --offline=true security "$work/units/joule.service" 2>/dev/null | grep -i 'overall exposure' || true)
    [[ -n $exposure ]] && note "systemd-analyze security: ${exposure#→ }"
else
    note "no systemd-analyze: units not verified"
fi

# --- PREFIX=/usr/local: where the system reads each file --------------------------------------
local_dest=$work/local
if $MAKE -s --no-print-directory install DESTDIR="$local_dest" PREFIX=/usr/local >"$work/install-local.log" 2>&1; then
    for file in usr/local/bin/joule usr/local/lib/systemd/system/joule.service usr/local/lib/systemd/user/joule-user.service \
        etc/dbus-1/system.d/org.joule.Energy1.conf usr/local/share/dbus-1/system-services/org.joule.Energy1.service; do
        check "PREFIX=/usr/local installs /$file" test -s "$local_dest/$file"
    done
    check "PREFIX=/usr/local: units run /usr/local/bin/joule" grep -qx 'ExecStart=/usr/local/bin/joule daemon --system' \
        "$local_dest/usr/local/lib/systemd/system/joule.service"
    $MAKE -s --no-print-directory uninstall DESTDIR="$local_dest" PREFIX=/usr/local >/dev/null 2>&1
    left=$(find "$local_dest" ! -type d -printf '/%P\n')
    check "PREFIX=/usr/local: make uninstall leaves no file${left:+ (left: $left)}" test -z "$left"
else
    tail -n 20 "$work/install-local.log"
    fail "make install DESTDIR=… (PREFIX=/usr/local)"
fi

# --- uninstall ---------------------------------------------------------------------------------
if $MAKE -s --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr >"$work/uninstall.log" 2>&1; then
    pass "make uninstall DESTDIR=… PREFIX=/usr"
else
    cat "$work/uninstall.log"
    fail "make uninstall DESTDIR=… PREFIX=/usr"
fi
check "uninstall keeps the administrator's /etc/joule/joule.yaml" test "$(cat "$dest/etc/joule/joule.yaml" 2>/dev/null)" = "# mine"
check "uninstall gives back GeoClue's geoclue.conf as it was" test "$(cat "$dest/etc/geoclue/geoclue.conf" 2>/dev/null)" = "$geoclue_before"
left=$(find "$dest" ! -type d ! -path "$dest/etc/joule/joule.yaml" ! -path "$dest/etc/geoclue/geoclue.conf" -printf '/%P\n')
check "make uninstall leaves no other file${left:+ (left: $left)}" test -z "$left"

echo "install: $passed passed, $failed failed ($((SECONDS - started))s)"
((failed == 0))
