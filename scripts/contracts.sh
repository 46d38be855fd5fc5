#!/usr/bin/env bash
# Prints every CLI contract the fixtures pin (status text and JSON on every fixture tree,
# each beacon subcommand on every capture, history on every recorded day, argument errors, exit statuses), one section per
# run, so two builds can be compared byte for byte:
#   scripts/contracts.sh OLD_JOULE > old.txt; scripts/contracts.sh .build/debug/joule > new.txt
#   diff old.txt new.txt
set -uo pipefail
joule=${1:?usage: scripts/contracts.sh PATH_TO_JOULE}
cd "$(dirname "$0")/.."
run() {
  echo "### joule $*"
  "$joule" "$@" 2>&1
  echo "### exit $?"
}
export JOULE_STATE_DIR=/tmp/joule-contracts/state HOME=/tmp/joule-contracts/home TZ=UTC
rm -rf /tmp/joule-contracts && mkdir -p "$JOULE_STATE_DIR" "$HOME"
for tree in hw-fixtures/*/; do
  tree=${tree%/}
  [[ -d $tree/sys ]] || continue
  run status --json --root "$tree"
  run status --root "$tree"
  run battery --json --root "$tree"
  run battery --root "$tree"
done
for capture in hw-fixtures/bluetooth/*.btsnoop; do
  run beacons scan --json --replay "$capture"
  run beacons scan --replay "$capture"
  run beacons range --json --replay "$capture" --region "door=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
  run beacons range --once --json --replay "$capture"
  run beacons monitor --json --replay "$capture" --region "door=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
  out=$JOULE_STATE_DIR/recorded.btsnoop
  run beacons record --replay "$capture" --out "$out"
  cmp -s "$out" "$capture" && echo "record: identical bytes" || { echo "record: $(od -An -tx1 "$out" | md5sum)"; }
  rm -f "$out"
done
for walk in hw-fixtures/location/*.ndjson; do
  case $walk in *.expected.ndjson) continue ;; esac
  run location once --json --replay "$walk" --accuracy 10 --ttff 3
  run location once --replay "$walk" --accuracy 10 --ttff 3
  run location watch --json --replay "$walk" --accuracy 20 --distance 62
  run location watch --replay "$walk" --accuracy 20 --defer-time 30
  run location monitor --json --replay "$walk" --region "tower=48.8584,2.2945,100" --region "far=48.9,2.3,500"
  run location visits --json --replay "$walk" --min-dwell 30 --radius 50
  run location significant --json --replay "$walk"
  run location watch --json --replay "$walk" --accuracy 20 --root hw-fixtures/dell-xps-13-low-battery-discharging
done
run location monitor --region "bad=1,2,0" --source fixed:1,2
run location once --source fixed:91,0
run location once
for day in hw-fixtures/history/*/; do
  day=${day%/}
  run history --json --state-dir "$day" --since 2026-03-10T00:00Z --until 2026-03-11T00:00Z
  run history --state-dir "$day" --since 2026-03-10T00:00Z --until 2026-03-11T00:00Z
done
run history --state-dir /nonexistent
run status --root /nonexistent
run status --bogus
run beacons range --region "bad"
run beacons scan --duty 3
run cpu-monitor --limit=-1
run enforce
run reports list --json
run lowpower
run battery limit 80-75
run battery full-once
for command in "" status watch lowpower "beacons scan" "beacons range" "beacons monitor" "beacons record" cpu-monitor \
  "reports list" "reports show" enforce devices history location "location once" "location watch" "location monitor" \
  "location visits" "location significant"; do
  run $command --help
done
for command in daemon transfer "transfer add" "transfer list" "transfer show" "transfer cancel" "transfer wait" run app \
  "app foreground" "app inactive" "app background" "app suspend" "app terminate" "app list" "app events" top export \
  "reports" beacons battery "battery show" "battery limit" "battery full-once"; do
  run $command --help
done
# The four D-Bus interfaces as the daemon introspects them (from its sd-bus vtables), on a
# private session bus, against the laptop fixture.
if command -v dbus-run-session >/dev/null && command -v busctl >/dev/null; then
  work=/tmp/joule-contracts/daemon
  mkdir -p "$work/state" "$work/runtime"; echo "{}" > "$work/joule.yaml"
  cp -a hw-fixtures/thinkpad-t480-two-batteries-discharging "$work/root"
  JOULE_JOULE=$joule JOULE_WORK=$work dbus-run-session -- bash -c '
    JOULE_STATE_DIR=$JOULE_WORK/state JOULE_RUNTIME_DIR=$JOULE_WORK/runtime \
      "$JOULE_JOULE" daemon --session --root "$JOULE_WORK/root" --config "$JOULE_WORK/joule.yaml" 2>"$JOULE_WORK/log" &
    pid=$!
    for _ in $(seq 100); do grep -q "ready: " "$JOULE_WORK/log" && break; sleep 0.1; done
    for name in Energy1 Transfers1 Apps1 Location1; do
      echo "### introspect org.joule.$name"
      busctl --user introspect --xml-interface org.joule.$name /org/joule/$name 2>&1
    done
    kill $pid; wait $pid'
fi
