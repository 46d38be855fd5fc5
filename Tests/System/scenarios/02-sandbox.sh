#!/bin/bash
# Scenario 2: the unit's sandbox (ProtectSystem=strict, SystemCallFilter=@system-service,
# RestrictAddressFamilies, ...) holds every feature: Low Power Mode writes a knob (a real
# kernel tunable, /proc/sys/vm/dirty_writeback_centisecs, as an `extra` knob) and restores it;
# an enforce policy freezes a cgroup in Low Power Mode; a deferred transfer writes into alice's
# home as alice; an app of alice's is suspended (its cgroup frozen); a location request goes
# through gpsd. Then the journal holds no EPERM from the syscall filter and no write refused by
# ProtectSystem.
# timeout: 300
. "$SYSTEM_DIR/lib.sh"
install_joule
knob=/proc/sys/vm/dirty_writeback_centisecs
original=$(cat $knob)
systemctl start joule-batch-job.service 2>/dev/null || systemd-run --unit=joule-batch-job --quiet sleep infinity
cg=/sys/fs/cgroup/system.slice/joule-batch-job.service
[[ -d $cg ]] || fail "no cgroup $cg for the batch job"
cat > /etc/joule/joule.yaml <<YAML
lowPowerMode:
  actuators: [knobs]
  knobs:
    extra:
      $knob: "1500"
enforce:
  version: 1
  classes:
    batch:
      level: deferrable
      match:
        - unit: joule-batch-job.service
YAML
reload_joule
joule lowpower on || fail "joule lowpower on failed"
wait_for 20 test "$(cat $knob)" = 1500 || fail "Low Power Mode did not write $knob: $(cat $knob) (original $original)"
note "knob $knob: $original -> $(cat $knob)"
wait_for 30 grep -qx 'frozen 1' "$cg/cgroup.events" || fail "the enforce policy did not freeze $cg in Low Power Mode: $(cat $cg/cgroup.events | tr '\n' ' ')"
joule lowpower off || fail "joule lowpower off failed"
wait_for 20 test "$(cat $knob)" = "$original" || fail "Low Power Mode off left $knob at $(cat $knob), not $original"
wait_for 30 grep -qx 'frozen 0' "$cg/cgroup.events" || fail "$cg stayed frozen after Low Power Mode ended"
systemctl stop joule-batch-job.service

# A deferred transfer into alice's home, as alice (busybox httpd serves it on loopback).
mkdir -p /srv/www && head -c 200000 /dev/urandom > /srv/www/blob && chmod -R a+rX /srv/www
busybox httpd -p 127.0.0.1:8088 -h /srv/www || fail "busybox httpd did not start"
as_alice_in_session joule transfer add http://127.0.0.1:8088/blob --to /home/alice/blob >/dev/null \
    || fail "alice cannot queue a transfer: $(as_alice_in_session joule transfer add http://127.0.0.1:8088/blob --to /home/alice/blob2 2>&1)"
wait_for 60 test -s /home/alice/blob || fail "the transfer never wrote /home/alice/blob: $(as_alice_in_session joule transfer list 2>&1 | tail -n 3)"
wait_for 20 cmp -s /srv/www/blob /home/alice/blob || fail "/home/alice/blob differs from what was served"
owner=$(stat -c %U:%G /home/alice/blob)
[[ $owner == alice:alice ]] || fail "/home/alice/blob is owned by $owner, not alice:alice"
pkill -f 'busybox httpd -p 127.0.0.1:8088'

# An app of alice's, in a delegated scope of her user manager, suspended by the daemon.
export -f as_alice_in_session alice_session
as_alice_in_session env DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus \
    systemd-run --user --scope --quiet -p Delegate=yes --unit=joule-demo \
    joule run --name demo --grace 1 -- sleep 600 >/tmp/demo.out 2>&1 &
wait_for 30 sh -c 'joule app list --json | grep -q "\"demo\""' || fail "joule run's app never registered with the daemon: $(cat /tmp/demo.out)"
as_alice_in_session joule app background demo || fail "alice cannot move her app to the background"
wait_for 30 sh -c 'joule app list --json | grep -q "\"suspended\""' || fail "the app was not suspended after its grace: $(joule app list 2>&1)"
appcg=$(find /sys/fs/cgroup/user.slice/user-1000.slice -type d -name 'joule-app-demo' | head -n 1)
[[ -n $appcg ]] || fail "no joule-app-demo cgroup under alice's slice ($(cat /tmp/demo.out))"
grep -qx 'frozen 1' "$appcg/cgroup.events" || fail "the suspended app's cgroup $appcg is not frozen"
as_alice_in_session joule app foreground demo
wait_for 20 grep -qx 'frozen 0' "$appcg/cgroup.events" || fail "the app's cgroup stayed frozen in the foreground"
as_alice_in_session joule app terminate demo >/dev/null 2>&1 || true

# Location through gpsd, configured as an owner would (/etc/default/gpsd): NMEA from a
# receiver on UDP (gpsd's udp:// source), sent each second to loopback.
nmea() {
    local body=$1 sum=0 i c
    for ((i = 0; i < ${#body}; i++)); do printf -v c '%d' "'${body:i:1}"; sum=$((sum ^ c)); done
    printf '$%s*%02X\r\n' "$body" "$sum"
}
(while true; do
    t=$(date -u +%H%M%S).00 d=$(date -u +%d%m%y)
    { nmea "GPRMC,$t,A,5230.0000,N,01323.0000,E,0.0,0.0,$d,,,A"; nmea "GPGGA,$t,5230.0000,N,01323.0000,E,1,08,0.9,35.0,M,40.0,M,,"; } > /dev/udp/127.0.0.1/10110
    sleep 1
done) &
feed=$!
trap 'kill $feed 2>/dev/null' EXIT
printf 'DEVICES="udp://127.0.0.1:10110"\nGPSD_OPTIONS="-n"\nUSBAUTO="false"\n' > /etc/default/gpsd
systemctl restart gpsd.socket gpsd.service || fail "gpsd does not start: $(systemctl status --no-pager gpsd | tail -n 5)"
# The daemon's Location1 (its own sandbox), asked by alice in her session.
fix=$(as_alice_in_session busctl --timeout=90 call org.joule.Location1 /org/joule/Location1 org.joule.Location1 RequestLocation dd 100 60 2>&1) \
    || fail "RequestLocation through the daemon and gpsd failed: $fix"
note "fix: $fix"
[[ $fix == *'"latitude" d 52.5'* ]] || fail "the fix through gpsd is not 52.5 N: $fix"

denials=$(journalctl -b -u joule -o cat --no-pager | grep -E 'Operation not permitted|EPERM|Read-only file system|EROFS|Permission denied' || true)
[[ -z $denials ]] || fail "the sandbox refused something: $denials"
pass "knob $original -> 1500 -> $original, cgroup frozen and thawed, transfer as alice:alice, app suspended in its scope, gpsd fix"
