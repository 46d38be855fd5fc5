#!/usr/bin/env bash
# Installs Debian packages only where missing: by default what Joule builds and tests against,
# or the packages named as arguments (scripts/bench.py passes its peers).
set -euo pipefail
if (($# > 0)); then packages=("$@"); else packages=(libudev-dev libbluetooth-dev umockdev pkg-config libsystemd-dev libsqlite3-dev libssl3 dbus-daemon systemd python3-dbusmock gpsd gpsd-clients python3-prometheus-client libgudev-1.0-0 libpolkit-gobject-1-0 librsvg2-bin tzdata libxcb1-dev libxcb-res0-dev xvfb openbox i3-wm xdotool x11-utils python3-xlib sway foot dconf-service dconf-cli libglib2.0-bin gsettings-desktop-schemas dpkg-dev lintian); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; the answer does not matter for reading files.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections 2>/dev/null || true
# Other sessions on a shared machine may hold apt's locks: wait for them rather than fail.
lock=(-o DPkg::Lock::Timeout=600)
$sudo apt-get "${lock[@]}" update -qq
$sudo apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}"
