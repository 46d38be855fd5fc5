# Sourced by scripts/vm/run.sh (busybox VM) and scripts/system/run.sh (systemd VM): Debian's own
# kernel, unpacked once into $cache/kernel. Sets vmlinuz, kver and kroot; calls `skipped` (the
# caller's) when apt offers no kernel.
kroot=$cache/kernel
if ! compgen -G "$kroot/boot/vmlinuz-*" >/dev/null; then
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    [[ -n $pkg ]] || pkg=$(apt-cache search --names-only '^linux-image-6\.[0-9.]+-[0-9]+-amd64$' | sort -V | tail -n 1 | cut -d' ' -f1)
    [[ -n $pkg ]] || skipped "apt offers no linux-image-*-amd64 package to boot"
    step "downloading $pkg"
    rm -rf "$cache/deb" && mkdir -p "$cache/deb"
    (cd "$cache/deb" && apt-get download "$pkg" >/dev/null 2>&1) || skipped "cannot download $pkg"
    rm -rf "$kroot.tmp" && dpkg-deb -x "$cache"/deb/*.deb "$kroot.tmp" && mv "$kroot.tmp" "$kroot"
    rm -rf "$cache/deb"
fi
vmlinuz=$(ls "$kroot"/boot/vmlinuz-* | sort -V | tail -n 1)
kver=${vmlinuz##*/vmlinuz-}
[[ -f $kroot/lib/modules/$kver/modules.dep ]] || depmod -b "$kroot" "$kver"
