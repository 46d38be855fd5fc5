#!/usr/bin/env bash
# Prints the path of a power-profiles-daemon binary for the tests (JOULE_PPD), or nothing.
# An installed one is used as it is. Otherwise Debian's package is unpacked into .vm-cache/ppd
# without installing it: installing would remove tlp from a laptop that has it (they conflict),
# and the tests run ppd under umockdev on a private bus anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
for installed in /usr/libexec/power-profiles-daemon /usr/lib/power-profiles-daemon/power-profiles-daemon; do
  [[ -x $installed ]] && { echo "$installed"; exit 0; }
done
cache=.vm-cache/ppd
binary=$cache/root/usr/libexec/power-profiles-daemon
if [[ ! -x $binary ]]; then
  command -v apt-get >/dev/null || exit 0
  mkdir -p "$cache"
  (cd "$cache" && apt-get download -qq power-profiles-daemon >&2 && dpkg -x power-profiles-daemon_*.deb root) || {
    echo "fetch-ppd: could not unpack power-profiles-daemon; the real-ppd tests will skip" >&2
    exit 0
  }
fi
# Its libraries (glib, gudev, polkit-gobject) must be present for it to start.
if ldd "$binary" | grep -q "not found"; then
  echo "fetch-ppd: $binary lacks libraries: $(ldd "$binary" | grep 'not found' | tr -s ' \t' ' ')" >&2
  exit 0
fi
echo "$PWD/$binary"
