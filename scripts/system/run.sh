#!/usr/bin/env bash
# make test-system: Joule's Debian package installed in a real Debian userspace booted with
# systemd as PID 1 in qemu (Debian's kernel, the system bus, polkitd, logind, udev and the
# neighbours: power-profiles-daemon, upower, bluetoothd, gpsd, GeoClue, NetworkManager), and
# driven as an owner would through systemctl, busctl, pkcheck and joule.
#
# - The image: debootstrap (minbase) with scripts/system/packages, set up by
#   scripts/system/setup-image.sh, Debian's kernel modules added, as an ext4 file. Cached in
#   .vm-cache/system-HASH.img, HASH over those two files and the kernel's version; a changed
#   list builds a new image (about 2-4 min with a download), an unchanged one is reused.
# - Each run boots a copy-on-write overlay of it (qcow2), so the image stays clean, with a
#   second disk at /srv/joule-test: the .deb (scripts/deb.sh's, built from .build-release;
#   `make release` first), an upgrade of it (the same files, version +1), Tests/System's runner
#   and scenarios, and hw-fixtures.
# - Tests/System/runner.sh runs the scenarios from a systemd unit and prints one line each on
#   the serial console: `SYSTEM-SCENARIO <name> PASS|FAIL|SKIP <seconds>s <detail>`, then
#   `system: N passed, M failed`, and powers off. A scenario may reboot the VM and go on.
#
# Environment: SYSTEM_SCENARIOS=a,b (names without .sh) runs only those; SYSTEM_TIMEOUT
# (seconds, default 1200) bounds the whole run; VM_ACCEL=kvm|tcg; SYSTEM_MEMORY (MiB, 1536).
# Without qemu or debootstrap (and no way to install them) it prints SKIPPED and exits 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
cache=$repo/.vm-cache
timeout_s=${SYSTEM_TIMEOUT:-1200}
memory=${SYSTEM_MEMORY:-1536}
mkdir -p "$cache"

target=test-system word=system what="systemd VM tests (make test-system)"
. scripts/vm/report.sh

all=()
for f in Tests/System/scenarios/*.sh; do [[ -x $f ]] && all+=("$(basename "$f" .sh)"); done
want=()
if [[ -n ${SYSTEM_SCENARIOS:-} ]]; then
    for n in ${SYSTEM_SCENARIOS//,/ }; do
        n=${n%.sh}
        [[ -x Tests/System/scenarios/$n.sh ]] || { echo "test-system: no executable Tests/System/scenarios/$n.sh (have: ${all[*]})" >&2; exit 2; }
        want+=("$n")
    done
else
    want=("${all[@]}")
fi
((${#want[@]} > 0)) || die "no scenarios in Tests/System/scenarios"

if ! ./scripts/install-deps.sh qemu-system-x86 qemu-utils debootstrap e2fsprogs busybox-static kmod cpio gcc libc6-dev; then
    command -v qemu-system-x86_64 >/dev/null || skipped "qemu-system-x86 is not installed and could not be installed"
    command -v debootstrap >/dev/null || skipped "debootstrap is not installed and could not be installed"
    die "could not install qemu-utils, e2fsprogs, busybox-static, kmod, cpio or gcc"
fi
qemu-system-x86_64 --version >/dev/null 2>&1 || skipped "qemu-system-x86_64 does not run on this machine"

. scripts/vm/kernel.sh

# --- the package -----------------------------------------------------------------------------
work=$cache/system-run
rm -rf "$work" && mkdir -p "$work/disk"
step "packing the .deb (scripts/deb.sh)"
./scripts/deb.sh "$work/disk" >"$work/deb.log" 2>&1 || { tail -n 20 "$work/deb.log" >&2; die "scripts/deb.sh failed (make release first)"; }
deb=$(ls "$work"/disk/joule_*.deb | head -n 1)
[[ -f $deb ]] || die "scripts/deb.sh wrote no joule_*.deb into $work/disk"
# The upgrade: the same package with its version raised (Debian's `+1` suffix sorts after it).
(
    cd "$work" && rm -rf up && dpkg-deb -R "$deb" up
    sed -i 's/^Version: .*/&+1/' up/DEBIAN/control
    dpkg-deb --root-owner-group -Zgzip -z1 -b up "disk/joule-upgrade.deb" >/dev/null
    rm -rf up
) || die "cannot build the upgrade package"

# --- the image -------------------------------------------------------------------------------
hash=$( (cat scripts/system/packages scripts/system/setup-image.sh; echo "$kver") | sha256sum | cut -c1-16)
image=$cache/system-$hash.img
if [[ ! -f $image ]]; then
    rm -f "$cache"/system-*.img
    root=$cache/system-root
    rm -rf "$root"
    packages=$(grep -v '^#' scripts/system/packages | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
    step "building the image with debootstrap (bookworm, minbase + $(echo "$packages" | tr ',' ' ' | wc -w) packages)"
    started=$SECONDS
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
    debootstrap --variant=minbase --include="$packages" bookworm "$root" "${mirror:-http://deb.debian.org/debian}" \
        >"$cache/system-debootstrap.log" 2>&1 \
        || { tail -n 20 "$cache/system-debootstrap.log" >&2; grep -E '^(E|W):' "$root/debootstrap/debootstrap.log" 2>/dev/null | tail -n 5 >&2; die "debootstrap failed (log: $cache/system-debootstrap.log)"; }
    cp scripts/system/setup-image.sh "$root/setup-image.sh"
    chroot "$root" /bin/bash /setup-image.sh || die "setup-image.sh failed in the image"
    rm "$root/setup-image.sh"
    mkdir -p "$root/lib/modules"
    cp -a "$kroot/lib/modules/$kver" "$root/lib/modules/"
    truncate -s 3G "$image.tmp"
    mkfs.ext4 -q -F -L joule-vm -d "$root" "$image.tmp" || die "mkfs.ext4 -d failed"
    mv "$image.tmp" "$image"
    rm -rf "$root"
    step "image built in $((SECONDS - started))s: $(du -h "$image" | cut -f1) used"
fi

# --- the run's disk: the packages, the runner, the scenarios, the fixtures --------------------
mkdir -p "$work/disk/scenarios"
cp Tests/System/runner.sh Tests/System/lib.sh "$work/disk/"
for n in "${want[@]}"; do cp "Tests/System/scenarios/$n.sh" "$work/disk/scenarios/"; done
cp -a hw-fixtures "$work/disk/fixtures"
# The busybox VM's virtual LE controller (Tests/VM/helpers), for the beacon scenario.
mkdir -p "$work/disk/bin"
gcc -static -O2 -Wall -o "$work/disk/bin/vhci-controller" Tests/VM/helpers/vhci-controller.c || die "cannot compile vhci-controller.c"
truncate -s 256M "$work/run.img"
mkfs.ext4 -q -F -L joule-test -d "$work/disk" "$work/run.img" || die "mkfs.ext4 -d failed for the run's disk"
qemu-img create -q -f qcow2 -b "$image" -F raw "$work/overlay.qcow2"

# --- the initramfs: busybox, virtio and ext4 ---------------------------------------------------
stage=$work/initramfs
mkdir -p "$stage/bin"
busybox=$(command -v busybox)
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || busybox=/bin/busybox
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp scripts/system/initramfs-init.sh "$stage/init"
: > "$stage/modules.order"
for m in virtio_pci virtio_blk ext4; do
    while read -r kind ko _; do
        [[ $kind == insmod ]] || continue
        rel=${ko#"$kroot"}
        grep -qxF "$rel" "$stage/modules.order" && continue
        mkdir -p "$stage$(dirname "$rel")"
        cp "$ko" "$stage$rel"
        echo "$rel" >> "$stage/modules.order"
    done < <(modprobe -d "$kroot" -S "$kver" --show-depends "$m")
done
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) > "$work/initramfs.cpio"

# --- boot ------------------------------------------------------------------------------------
accel=${VM_ACCEL:-}
if [[ -z $accel ]]; then
    accel=tcg
    # KVM only when /dev/kvm opens and the kernel starts under it (nested KVM here fails
    # at once on an MSR).
    if (exec 3<>/dev/kvm) 2>/dev/null && timeout 20 qemu-system-x86_64 -accel kvm -cpu max -m 256 -display none \
        -serial stdio -monitor none -nic none -no-reboot -kernel "$vmlinuz" -append "console=ttyS0 panic=-1" </dev/null 2>&1 \
        | tr -d '\r' | grep -q -m1 'Linux version'; then
        accel=kvm
    fi
fi
log=$cache/system-last-run.log
: > "$log"
# No -no-reboot: a scenario may reboot the VM (the runner goes on after it); the runner's
# poweroff ends qemu. The default VGA gives the kernel its VTs, so tty1 (alice's seat0
# session) exists; the serial port carries the results.
qemu_run() {
    qemu-system-x86_64 -accel "$1" -cpu max -smp 2 -m "$memory" -display none -serial stdio -monitor none -nic none \
        -kernel "$vmlinuz" -initrd "$work/initramfs.cpio" \
        -drive "file=$work/overlay.qcow2,if=virtio,format=qcow2" -drive "file=$work/run.img,if=virtio,format=raw" \
        -append "console=ttyS0 panic=-1 quiet loglevel=3 systemd.show_status=false rw system.scenarios=$(IFS=,; echo "${want[*]}")"
}
step "booting ($accel, ${timeout_s}s limit): ${want[*]}"
start=$SECONDS
set +e
timeout -s KILL "$timeout_s" bash -c "$(declare -f qemu_run); $(declare -p vmlinuz work memory want); qemu_run $accel" </dev/null 2>&1 \
    | tr -d '\r' | tee -a "$log" | grep --line-buffered -E '^(SYSTEM-SCENARIO |SYSTEM-BOOT |  \[)'
rc=${PIPESTATUS[0]}
set -e
elapsed=$((SECONDS - start))
tally SYSTEM-SCENARIO
if ((${#problems[@]} > 0)); then
    echo "test-system: FAILED in ${elapsed}s: ${problems[*]}; serial log: $log (last lines below)" >&2
    tail -n 40 "$log" >&2
    echo "system: $passed passed, $failed failed"
    exit 1
fi
echo "test-system: ${elapsed}s in the VM ($accel), $skips skipped" >&2
echo "system: $passed passed, $failed failed"
