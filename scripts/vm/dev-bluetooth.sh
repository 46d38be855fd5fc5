#!/bin/sh
# Development loop for the Bluetooth VM scenarios, until `make test-vm` lands: boots Debian's
# 6.1 kernel under qemu TCG with a busybox initramfs holding joule, vhci-controller, the
# fixtures and Tests/VM/scenarios/bluetooth-*.sh, and runs them (or those named in $1, comma
# separated, without .sh). Everything it downloads or builds goes to .vm-cache/ (gitignored).
# Needs: qemu-system-x86 busybox-static kmod cpio, and a Tests/VM/lib.sh (the harness's, or
# a stand-in at .vm-cache/lib.sh).
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
cache=$top/.vm-cache
mkdir -p "$cache"
only=${1:-}

if [ ! -d "$cache/kernel/boot" ]; then
    pkg=$(apt-cache search '^linux-image-6\.1\.0-[0-9]+-amd64$' | awk '{print $1}' | sort -V | tail -1)
    (cd "$cache" && apt-get download "$pkg" && dpkg-deb -x "$pkg"_*.deb kernel)
fi
kver=$(ls "$cache/kernel/lib/modules" | head -1)

joule=$top/.build-vm/release/joule
[ -n "${NO_JOULE_BUILD:-}" ] || swift build -c release --static-swift-stdlib --product joule --scratch-path .build-vm >&2

root=$cache/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/lib/modules" "$root/scenarios" "$root/fixtures" "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"; done
for m in lib/crc16 crypto/ecc crypto/ecdh_generic net/rfkill/rfkill net/bluetooth/bluetooth drivers/bluetooth/hci_vhci; do
    cp "$cache/kernel/lib/modules/$kver/kernel/$m.ko" "$root/lib/modules/"
done
for helper in Tests/VM/helpers/*.c; do
    gcc -static -O2 -o "$root/bin/$(basename "$helper" .c)" "$helper"
done
[ -x "$joule" ] && cp "$joule" "$root/bin/joule" && for lib in $(ldd "$joule" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done
cp -r hw-fixtures/. "$root/fixtures/"
if [ -n "${LIB_SH:-}" ]; then cp "$LIB_SH" "$root/lib.sh"; elif [ -f Tests/VM/lib.sh ]; then cp Tests/VM/lib.sh "$root/lib.sh"; else cp "$cache/lib.sh" "$root/lib.sh"; fi
for s in Tests/VM/scenarios/bluetooth-*.sh ${EXTRA_SCENARIOS:-}; do
    name=$(basename "$s" .sh)
    if [ -n "$only" ] && ! echo ",$only," | grep -q ",$name,"; then continue; fi
    cp "$s" "$root/scenarios/"
done
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

cat > "$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
for m in crc16 ecc ecdh_generic rfkill bluetooth hci_vhci; do insmod /lib/modules/$m.ko || echo "vm: insmod $m failed"; done
passed=0; failed=0
for s in /scenarios/*.sh; do
    [ -x "$s" ] || continue
    name=$(basename "$s" .sh)
    limit=$(sed -n 's/^# vm-timeout: *\([0-9]*\).*/\1/p' "$s" | head -1)
    work=/tmp/work-$name; mkdir -p $work/state; chmod 777 $work
    start=$(cut -d' ' -f1 /proc/uptime)
    rm -f /tmp/vm-result
    (cd $work && VM_SCENARIO=$name VM_WORK=$work JOULE_STATE_DIR=$work/state timeout ${limit:-60} sh $s)
    end=$(cut -d' ' -f1 /proc/uptime)
    result=$(cat /tmp/vm-result 2>/dev/null || echo "FAIL no result (timeout or exit)")
    secs=$(awk -v a=$start -v b=$end 'BEGIN{printf "%.1f", b - a}')
    echo "VM-SCENARIO $name ${result%% *} ${secs}s ${result#* }"
    case $result in PASS*|SKIP*) passed=$((passed+1));; *) failed=$((failed+1)); [ -z "$VM_VERBOSE" ] || for f in $work/*; do [ -f $f ] && { echo "--- $f"; tail -n 60 $f; }; done;; esac
done
echo "vm: $passed passed, $failed failed"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$cache/initrd.gz"

timeout 900 qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m 1024 -nographic -no-reboot \
    -kernel "$cache/kernel/boot/vmlinuz-$kver" -initrd "$cache/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 ${VM_VERBOSE:+VM_VERBOSE=1}" | tee "$cache/last-boot.log"
