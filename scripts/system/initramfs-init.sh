#!/bin/sh
# /init of the systemd VM's initramfs (busybox): loads virtio and ext4, mounts the image's
# root file system read-write and hands over to its systemd as PID 1.
/bin/busybox mkdir -p /proc /sys /dev /newroot
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r ko; do insmod "$ko" 2>/dev/null; done < /modules.order
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if ! mount -t ext4 -o rw /dev/vda /newroot; then
    echo "SYSTEM-BOOT FAIL cannot mount /dev/vda"
    echo o > /proc/sysrq-trigger
fi
umount /proc /sys
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /lib/systemd/systemd
