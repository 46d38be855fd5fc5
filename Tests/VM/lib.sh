# Tests/VM/lib.sh: the shared library of VM scenarios, copied to /lib.sh in the VM.
#
# The interface (kept stable; scripts/vm/run.sh and scripts/vm/init.sh implement it):
# - A scenario is Tests/VM/scenarios/NAME.sh: POSIX sh for busybox, executable, copied to
#   /scenarios/NAME.sh. /init runs every executable /scenarios/*.sh in name order, each in its
#   own scratch directory ($VM_WORK, also the cwd) with its own state directory
#   ($JOULE_STATE_DIR), leading its own process group, with a timeout: 60 s, or N from a line
#   `# vm-timeout: N` (then SIGTERM to the group, SIGKILL 2 s later, and a FAIL).
# - A scenario starts with `. /lib.sh` and ends by calling exactly one of
#     pass [DETAIL]     skip MESSAGE     fail MESSAGE
#   each of which exits the script. Exiting without one, or timing out, is a FAIL.
#   /init then prints one line per scenario on the serial console:
#     VM-SCENARIO <name> PASS|FAIL|SKIP <seconds>s <detail>
#   and at the end `vm: N passed, M failed` alone on a line.
# - C helpers Tests/VM/helpers/NAME.c are compiled `gcc -static -O2` by the host to /bin/NAME.
# - hw-fixtures/ is at /fixtures; joule (release, static Swift stdlib, or VM_JOULE with its
#   libraries) is /bin/joule; busybox provides the rest of /bin. VM_SANITIZER=thread when
#   that joule is a ThreadSanitizer build.
# - cgroup2 is mounted at /sys/fs/cgroup with every controller enabled in the root's
#   cgroup.subtree_control. The Bluetooth modules (bluetooth, hci_vhci and their dependencies)
#   are loaded before any scenario runs, so /dev/vhci exists.
# - Run one or some: VM_SCENARIOS=cgroup-freeze,bluetooth-scan make test-vm (names without .sh).

VM_RESULT=${VM_RESULT:-/tmp/vm-result}
_vm_pids=""

# Writes the result for /init and exits. Usage: _vm_result STATUS DETAIL
_vm_result() {
    printf '%s %s\n' "$1" "$2" > "$VM_RESULT"
    if [ "$1" = FAIL ]; then exit 1; fi
    exit 0
}
pass() { _vm_result PASS "${*:-ok}"; }
fail() { _vm_result FAIL "${*:-failed}"; }
skip() { _vm_result SKIP "${*:-skipped}"; }
# For a scenario whose pass is joule's own speed: skips when joule is a sanitizer build
# (VM_SANITIZER, from run.sh), which measures the sanitizer, not joule.
skip_under_sanitizer() { [ -z "${VM_SANITIZER:-}" ] || skip "under the ${VM_SANITIZER} sanitizer: $*"; }
# How many seconds to wait for a reaction that takes joule SECONDS: three times as long under
# a sanitizer build, which is that much slower in TCG. Usage: wait_for "$(patience 10)" COMMAND
patience() { if [ -n "${VM_SANITIZER:-}" ]; then echo $(($1 * 3)); else echo "$1"; fi; }

# Prints a progress note into the scenario's output, which /init shows (prefixed with the
# scenario's name) above the result line when the scenario fails.
note() { echo "$*"; }

# Background processes started with `track PID` are killed (and continued first, in case they
# are stopped or frozen) when the scenario exits for any reason.
track() { _vm_pids="$_vm_pids $*"; }
_vm_cleanup() {
    for p in $_vm_pids; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
    wait 2>/dev/null
}
trap _vm_cleanup EXIT
trap 'fail "terminated (timeout?)"' TERM INT

# Seconds since boot with two decimals, from /proc/uptime.
now() { cut -d' ' -f1 /proc/uptime; }

# utime+stime of PID in clock ticks (fields 14 and 15 of /proc/PID/stat, after the comm).
cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'
}

# Waits up to SECONDS (decimals allowed) for COMMAND to succeed, polling every 0.1 s.
# Usage: wait_for SECONDS COMMAND...
wait_for() {
    _limit=$1; shift
    _end=$(awk -v n="$(now)" -v l="$_limit" 'BEGIN{print n + l}')
    while :; do
        "$@" && return 0
        if awk -v n="$(now)" -v e="$_end" 'BEGIN{exit !(n >= e)}'; then return 1; fi
        sleep 0.1
    done
}

# Creates a cgroup under /sys/fs/cgroup and prints its directory. Usage: mk_cgroup REL
mk_cgroup() {
    mkdir -p "/sys/fs/cgroup/$1" && echo "/sys/fs/cgroup/$1"
}

# Starts a busy loop (/bin/spin) inside cgroup directory DIR and sets SPIN_PID to its pid (not
# through $(...): a subshell's exit would kill what it tracked). Usage: spin_in DIR
spin_in() {
    sh -c 'echo $$ > "$1/cgroup.procs" && exec /bin/spin' spin "$1" >/dev/null 2>&1 &
    SPIN_PID=$!
    track "$SPIN_PID"
    wait_for 2 grep -qx "$SPIN_PID" "$1/cgroup.procs" || fail "spinner $SPIN_PID did not join $1"
}

# --- BlueZ ------------------------------------------------------------------------------------
# bluetoothd (Debian's), bluetoothctl, btmgmt, dbus-daemon and dbus-send are in the VM, with
# Debian's system bus policy and /etc/bluetooth/main.conf (Experimental off).

# Starts the system bus and bluetoothd (logs: dbus.log, bluetoothd.log in the scratch directory),
# and waits until org.bluez has ADAPTER (default hci0) powered. The controller must exist first.
# Sets DBUS_PID and BLUETOOTHD_PID. Usage: start_bluez [--experimental] [ADAPTER]
start_bluez() {
    _bz_flags=""
    if [ "$1" = --experimental ]; then _bz_flags=--experimental; shift; fi
    _bz_adapter=${1:-hci0}
    mkdir -p /run/dbus /var/lib/bluetooth
    rm -rf /var/lib/bluetooth/*
    if [ -z "$DBUS_PID" ] || ! kill -0 "$DBUS_PID" 2>/dev/null; then
        # An earlier scenario's bus was killed: its socket file would pass the wait below.
        rm -f /run/dbus/system_bus_socket
        dbus-daemon --system --nofork --nopidfile --nosyslog > dbus.log 2>&1 &
        DBUS_PID=$!
        track "$DBUS_PID"
        wait_for 10 test -S /run/dbus/system_bus_socket || fail "system bus did not start: $(cat dbus.log)"
    fi
    /usr/libexec/bluetooth/bluetoothd --nodetach --debug $_bz_flags >> bluetoothd.log 2>&1 &
    BLUETOOTHD_PID=$!
    track "$BLUETOOTHD_PID"
    wait_for 20 bluez_owns "$_bz_adapter" ||
        fail "bluetoothd did not take $_bz_adapter: $(tail -n 5 bluetoothd.log | tr '\n' ' ')"
}

# Stops bluetoothd (SIGTERM, as systemd does) and waits until org.bluez is gone from the bus;
# the bus keeps running. Usage: stop_bluez
stop_bluez() {
    [ -n "$BLUETOOTHD_PID" ] || return 0
    kill -TERM "$BLUETOOTHD_PID" 2>/dev/null
    wait "$BLUETOOTHD_PID" 2>/dev/null
    BLUETOOTHD_PID=""
    wait_for 10 sh -c '! dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetNameOwner string:org.bluez >/dev/null 2>&1' ||
        fail "org.bluez still on the bus after bluetoothd stopped"
}

# Prints a property of org.bluez.Adapter1 on ADAPTER as dbus-send shows its value (true,
# false, a number or a quoted string). Usage: adapter_prop ADAPTER PROPERTY
adapter_prop() {
    dbus-send --system --print-reply=literal --dest=org.bluez "/org/bluez/$1" \
        org.freedesktop.DBus.Properties.Get string:org.bluez.Adapter1 "string:$2" 2>/dev/null |
        awk '{print $NF}'
}

# Whether org.bluez has ADAPTER, powered. Usage: bluez_owns ADAPTER
bluez_owns() { [ "$(adapter_prop "$1" Powered)" = true ]; }

# Whether ADAPTER is discovering (Adapter1.Discovering). Usage: discovering ADAPTER
discovering() { [ "$(adapter_prop "$1" Discovering)" = true ]; }
# Whether ADAPTER is known to org.bluez and not discovering. Usage: not_discovering ADAPTER
not_discovering() { [ "$(adapter_prop "$1" Discovering)" = false ]; }

# Context switches (voluntary and not) of every thread of PID: how often it was woken or
# preempted. Usage: ctx_switches PID
ctx_switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null |
        awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ {n += $2} END {print n + 0}'
}

# Starts vhci-controller with ARGS plus `-l cmd.log -r ready` (stderr: controller.err), waits
# until its adapter is up, and sets ADAPTER (hciN) and CONTROLLER_PID.
# Usage: start_controller ARGS...
start_controller() {
    rm -f ready
    vhci-controller "$@" -l cmd.log -r ready 2> controller.err &
    CONTROLLER_PID=$!
    track "$CONTROLLER_PID"
    wait_for 30 test -s ready || fail "controller not up: $(cat controller.err)"
    ADAPTER=$(cat ready)
}

# Whether FILE's first line names WORD (a whole word, any case): what joule said on stderr
# about its transport or mechanism. Usage: first_line_says FILE WORD
first_line_says() { head -n 1 "$1" | grep -qiw -- "$2"; }

# Whether FILE says WORD (a whole word, any case) on any line. Usage: says FILE WORD
says() { grep -qiw -- "$2" "$1"; }

# The lines of an NDJSON file without their timestamps, for comparing a live run with a
# replay. Usage: untimed FILE
untimed() { sed 's/"timestamp":[^,]*,//' "$1"; }

# INSIDE_CHECK for a monitor through AdvertisementMonitorManager1: bluetoothd gave the kernel a
# pattern monitor (mgmt Add Adv Patterns Monitor, 0x0052 or 0x0056 with RSSI, status 0 in its
# debug log), and joule started no discovery.
manager_monitor_inside() {
    grep -qE 'command 0x005[26] complete: 0x00' bluetoothd.log ||
        fail "bluetoothd gave the kernel no pattern monitor: $(grep -i 'monitor' bluetoothd.log | tail -n 5 | tr '\n' ' ')"
    not_discovering "$ADAPTER" || fail "joule started discovery although the monitor manager is there"
}

# Runs `joule beacons monitor --json --region office=E2C56DB5-... --exit-timeout 2 ARGS` (MONITOR_REGION
# replaces the region; name it office)
# (events.ndjson, err.txt) against a controller whose office beacon is on the air for ON_AIR
# seconds after scanning starts (region-h4 -R 10 -L -D ON_AIR), until it has entered and
# exited, then SIGINT. Fails unless joule exits 0, its first stderr line names MECHANISM, the
# events are one enter then one exit of office, and the exit comes after the beacon went
# silent. Runs the command in INSIDE_CHECK, if set, once entered. Sets ENTER_S and EXIT_S
# (seconds after the controller's first scan enable). Usage: monitor_in_out MECHANISM ON_AIR ARGS...
monitor_in_out() {
    _mech=$1 _on_air=$2; shift 2
    joule beacons monitor --json --region "${MONITOR_REGION:-office=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0}" --exit-timeout 2 "$@" \
        > events.ndjson 2> err.txt &
    _jp=$!
    track $_jp
    wait_for 30 grep -q '"event":"enter"' events.ndjson || fail "no enter event: $(cat events.ndjson err.txt | tr '\n' ' ')"
    [ -z "$INSIDE_CHECK" ] || $INSIDE_CHECK
    wait_for 60 grep -q '"event":"exit"' events.ndjson || fail "no exit event: $(cat events.ndjson err.txt | tr '\n' ' ')"
    kill -INT $_jp
    wait $_jp || fail "exit $? after SIGINT: $(tr '\n' ' ' < err.txt)"
    first_line_says err.txt "$_mech" || fail "first stderr line does not name the $_mech mechanism: $(head -n 1 err.txt)"
    [ "$(grep -c '"event"' events.ndjson)" = 2 ] || fail "expected one enter and one exit: $(tr '\n' ' ' < events.ndjson)"
    _enter=$(sed -n '1s/.*"timestamp":\([0-9.]*\),"event":"enter","region":"office".*/\1/p' events.ndjson)
    _exit=$(sed -n '2s/.*"timestamp":\([0-9.]*\),"event":"exit","region":"office".*/\1/p' events.ndjson)
    [ -n "$_enter" ] && [ -n "$_exit" ] || fail "not enter then exit of office: $(tr '\n' ' ' < events.ndjson)"
    _on=$(grep -E ' (200c|2042) 01' cmd.log | head -1 | cut -d' ' -f1)
    ENTER_S=$(awk -v s="$_on" -v e="$_enter" 'BEGIN{printf "%.1f", e - s}')
    EXIT_S=$(awk -v s="$_on" -v x="$_exit" 'BEGIN{printf "%.1f", x - s}')
    awk -v x="$EXIT_S" -v d="$_on_air" 'BEGIN{exit !(x >= d)}' ||
        fail "exited at +${EXIT_S}s, before the beacon went silent (+${_on_air}s)"
}
