#!/bin/bash
# Run by scripts/system/run.sh inside the freshly debootstrapped image (chroot), once per
# image: the users, the console, the test runner's unit, and what a VM without a network or a
# real disk has no use for. Part of the image's hash.
set -euo pipefail
echo joule-vm > /etc/hostname
printf '127.0.0.1 localhost\n127.0.1.1 joule-vm\n' > /etc/hosts
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n/dev/vdb /srv/joule-test ext4 rw,nofail 0 2\n' > /etc/fstab
mkdir -p /srv/joule-test
passwd -d root >/dev/null
# alice logs in on tty1 (an active local session on seat0, as a person at the machine);
# bob never has a session; bob is in `energy`, the group a polkit rule may grant.
groupadd --system energy
useradd --create-home --shell /bin/bash --uid 1000 alice
useradd --create-home --shell /bin/bash --uid 1001 --groups energy bob
mkdir -p /etc/systemd/system/getty@tty1.service.d
cat > /etc/systemd/system/getty@tty1.service.d/autologin.conf <<'UNIT'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin alice --noclear %I $TERM
UNIT
# The serial console carries the results only.
systemctl mask serial-getty@ttyS0.service >/dev/null 2>&1
# Nothing to wait for or to fetch in a VM without a network.
systemctl mask NetworkManager-wait-online.service apt-daily.timer apt-daily-upgrade.timer \
    e2scrub_all.timer e2scrub_reap.service fstrim.timer man-db.timer dpkg-db-backup.timer \
    systemd-timesyncd.service >/dev/null 2>&1 || true
cat > /etc/systemd/system/joule-system-test.service <<'UNIT'
[Unit]
Description=Joule's system test scenarios (make test-system)
After=multi-user.target getty@tty1.service
RequiresMountsFor=/srv/joule-test

[Service]
Type=simple
ExecStart=/bin/bash /srv/joule-test/runner.sh
StandardOutput=tty
StandardError=journal
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no

[Install]
WantedBy=multi-user.target
UNIT
systemctl enable joule-system-test.service >/dev/null 2>&1
# A fixed machine id: the image is a cache, each boot of it the same machine.
printf '%s\n' 4a6f756c65535953000000000000000a > /etc/machine-id
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* /usr/share/locale/*
