#!/bin/sh
# The VM itself: cgroup2 with cpu and the freezer, /dev/vhci, and joule running from the initramfs.
# vm-timeout: 20
. /lib.sh
grep -qw cpu /sys/fs/cgroup/cgroup.controllers || fail "cgroup2 has no cpu controller: $(cat /sys/fs/cgroup/cgroup.controllers)"
grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || fail "cpu not delegated by the root cgroup"
d=$(mk_cgroup smoke) || fail "cannot create a cgroup"
[ -f "$d/cgroup.freeze" ] || fail "no cgroup.freeze in $d"
rmdir "$d"
[ -c /dev/vhci ] || fail "/dev/vhci missing"
out=$(joule status --json --root /fixtures/hp-zbook-overheated-fan-active 2>&1) || fail "joule status failed: $out"
echo "$out" | grep -q '"thermalState"' || fail "joule status printed no thermalState: $out"
pass "cgroup2 ($(cat /sys/fs/cgroup/cgroup.controllers | wc -w) controllers), /dev/vhci, joule status"
