#!/bin/bash
# Scenario 10: a reboot with Low Power Mode on comes back with it on and the knob applied, and
# the knob journal in /run/joule is this boot's (a fresh original, no stale entry).
# timeout: 240
. "$SYSTEM_DIR/lib.sh"
journal=/run/joule/lowpower-knobs.json
if [[ $SYSTEM_PHASE == 1 ]]; then
    install_joule
    configure_knob
    # From Low Power Mode off, whatever an earlier scenario left: the kernel's own value.
    joule lowpower off
    sleep 1
    cat "$KNOB" > "$SYSTEM_STATE/reboot-original"
    cat /proc/sys/kernel/random/boot_id > "$SYSTEM_STATE/reboot-boot"
    joule lowpower on
    wait_for 20 knob_is "$KNOB_VALUE" || fail "Low Power Mode did not write $KNOB before the reboot"
    note "rebooting with Low Power Mode on"
    reboot_and_continue
fi
[[ $(cat /proc/sys/kernel/random/boot_id) != "$(cat "$SYSTEM_STATE/reboot-boot")" ]] || fail "the VM did not reboot"
wait_for 60 joule_active || fail "joule.service is not active after the reboot: $(systemctl is-active joule)"
[[ $(energy_get LowPowerMode) == "b true" ]] || fail "Low Power Mode is $(energy_get LowPowerMode) after the reboot"
wait_for 20 knob_is "$KNOB_VALUE" || fail "the knob is $(cat "$KNOB") after the reboot, not $KNOB_VALUE"
boot=$(cat /proc/sys/kernel/random/boot_id)
grep -q "$boot" "$journal" || fail "the knob journal is not this boot's ($boot): $(cat "$journal")"
original=$(cat "$SYSTEM_STATE/reboot-original")
grep -q "\"original\" *: *\"$original\"" "$journal" || fail "the journal's original is not the boot default $original: $(cat "$journal")"
joule lowpower off
wait_for 20 knob_is "$original" || fail "Low Power Mode off after the reboot left $KNOB at $(cat "$KNOB")"
joule lowpower auto
pass "Low Power Mode on across the reboot, knob $KNOB_VALUE, journal of boot ${boot:0:8}, original $original restored"
