#!/usr/bin/env bash
# Prints the path of a promtool for the metrics tests (JOULE_PROMTOOL), or nothing.
# An installed one is used as it is. Otherwise Debian's prometheus package (19 MB, promtool
# and the server, both static Go binaries) is unpacked into .vm-cache/promtool without
# installing it: installing would create a user and start a Prometheus server.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v promtool >/dev/null && { command -v promtool; exit 0; }
cache=.vm-cache/promtool
binary=$cache/root/usr/bin/promtool
if [[ ! -x $binary ]]; then
  command -v apt-get >/dev/null || exit 0
  mkdir -p "$cache"
  (cd "$cache" && apt-get download -qq prometheus >&2 && dpkg -x prometheus_*.deb root && rm -f prometheus_*.deb) || {
    echo "fetch-promtool: could not unpack prometheus; the promtool checks will skip" >&2
    exit 0
  }
fi
echo "$PWD/$binary"
