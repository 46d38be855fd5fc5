#!/usr/bin/env bash
# `make deb`: joule_VERSION_ARCH.deb from the static-stdlib release build, with Debian's own
# tools only (dpkg-deb, dpkg-shlibdeps) and no debhelper: what debhelper would do is written
# out here and in dist/debian/.
#
#   scripts/deb.sh [OUTDIR]     builds OUTDIR/joule_VERSION_ARCH.deb (default: the repo root)
#                               and prints its path on stdout
#
# The files are exactly `scripts/install.sh install` with DESTDIR=<staging> PREFIX=/usr (build
# first: `make release`), plus what a Debian package adds:
# - /etc/joule/joule.yaml, the example config as a conffile (its values are the defaults, so
#   installing it changes nothing until the administrator edits it; dpkg keeps an edited file
#   across upgrades and removes it on purge). /etc/joule/joule.yaml.example stays, as
#   `make install` places it: a conffile too, so upgrades bring its new keys alongside;
# - the man pages compressed with gzip -9n (Debian policy 12.1);
# - /usr/share/doc/joule/copyright (DEP-5) and changelog.gz (a native package: the packaging
#   is joule's own, so the changelog is changelog.gz, not changelog.Debian.gz);
# - /usr/share/lintian/overrides/joule (each override explains itself);
# - DEBIAN/: control, conffiles (every file under /etc), md5sums, and the maintainer scripts of
#   dist/debian (dh_installsystemd's behaviour, by hand).
# VERSION is `joule --version`. Maintainer: $DEB_MAINTAINER, else "$DEBFULLNAME <$DEBEMAIL>",
# else git's user, else the last commit's author. SOURCE_DATE_EPOCH (default: the last
# commit) dates the files, so the same tree gives the same package.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
outdir=${1:-$repo}
scratch=${JOULE_RELEASE_SCRATCH:-$repo/.build-release}
binary=$scratch/release/joule

die() { echo "deb.sh: $*" >&2; exit 1; }
say() { echo "deb.sh: $*" >&2; }

for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture; do
    command -v "$tool" >/dev/null || die "$tool not found (apt install dpkg-dev)"
done
[[ -x $binary ]] || die "no release joule in ${scratch#"$repo"/}: run \`make release\` first"

version=$(env -i "$binary" --version) || die "$binary --version failed"
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "joule --version printed '$version', not a Debian native version"
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-}
[[ -z $maintainer && -n ${DEBFULLNAME:-} && -n ${DEBEMAIL:-} ]] && maintainer="$DEBFULLNAME <$DEBEMAIL>"
if [[ -z $maintainer ]] && git config user.name >/dev/null && git config user.email >/dev/null; then
    maintainer="$(git config user.name) <$(git config user.email)>"
fi
[[ -z $maintainer ]] && maintainer=$(git log -1 --format='%an <%ae>')
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}

work=$(mktemp -d "${TMPDIR:-/tmp}/joule-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
# debhelper's layout: debian/control beside debian/joule, the package's root, so that
# dpkg-shlibdeps finds the package it is computing dependencies for.
mkdir -p "$work/debian"
root=$work/debian/joule
install -d -m 0755 "$root"

# --- the files: make install's, then Debian's additions ---------------------------------------
# A caller's directory variables (an exporting make) would override PREFIX=/usr.
env -u BINDIR -u DATADIR -u MANDIR -u SYSCONFDIR -u SYSTEMDSYSTEMUNITDIR -u SYSTEMDUSERUNITDIR \
    -u DBUSPOLICYDIR -u DBUSSERVICEDIR -u DBUSINTERFACEDIR -u POLKITACTIONDIR -u BASHCOMPLETIONDIR \
    -u ZSHCOMPLETIONDIR -u FISHCOMPLETIONDIR -u XDGAUTOSTARTDIR \
    DESTDIR="$root" PREFIX=/usr SYSCONFDIR=/etc JOULE_RELEASE_SCRATCH="$scratch" \
    ./scripts/install.sh install >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; die "install.sh install failed"; }

install -m 0644 dist/joule.yaml.example "$root/etc/joule/joule.yaml"
gzip -9n "$root"/usr/share/man/man1/*.1
doc=$root/usr/share/doc/joule
install -d -m 0755 "$doc" "$root/usr/share/lintian/overrides"
install -m 0644 dist/debian/copyright "$doc/copyright"
# The changelog: one entry for this version, dated by the last commit.
{
    echo "joule ($version) unstable; urgency=medium"
    echo
    echo "  * Built from the joule repository at commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown);"
    echo "    the repository's git log is the full history."
    echo
    echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
install -m 0644 dist/debian/lintian-overrides "$root/usr/share/lintian/overrides/joule"

# --- DEBIAN/ -------------------------------------------------------------------------------------
install -d -m 0755 "$root/DEBIAN"
for script in postinst prerm postrm; do
    install -m 0755 "dist/debian/$script" "$root/DEBIAN/$script"
done
# Every file under /etc is a conffile (policy 10.7.2), as dh_installdeb makes them.
(cd "$root" && find etc -type f -printf '/%p\n' | LC_ALL=C sort) >"$root/DEBIAN/conffiles"
chmod 0644 "$root/DEBIAN/conffiles"
# md5sums of everything but the conffiles (dpkg keeps theirs itself), as dh_md5sums.
(cd "$root" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z \
    | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

# Depends: dpkg-shlibdeps on the binary, as dh_shlibdeps, against a debian/control that names
# the package. It reads each NEEDED library's shlibs/symbols file: the versions are the
# oldest that provide every symbol joule uses.
cat >"$work/debian/control" <<EOF
Source: joule
Maintainer: $maintainer

Package: joule
Architecture: any
EOF
(cd "$work" && dpkg-shlibdeps -O -e"debian/joule/usr/bin/joule" 2>"$work/shlibdeps.log") >"$work/substvars" \
    || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
[[ -s $work/shlibdeps.log ]] && sed 's/^/deb.sh: /' "$work/shlibdeps.log" >&2
depends=$(sed -n 's/^shlibs:Depends=//p' "$work/substvars")
[[ -n $depends ]] || die "dpkg-shlibdeps found no dependency"

# Installed-Size as dpkg-gencontrol computes it: KiB per file rounded up, 1 per other entry.
installed_size=$(cd "$root" && find . -path ./DEBIAN -prune -o ! -path . -printf '%y %s\n' \
    | awk '{ n += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print n }')

# Recommends: dbus (the daemon serves on the system bus; without it `joule status` still
# works) and polkitd (without it only root may set Low Power Mode; no `| policykit-1`: that
# is Debian 12's transitional package, and Depends' libc6 (>= 2.35) rules out older releases). libssl3: libcrypto is dlopen()ed when a
# transfer checks a SHA-256, so dpkg-shlibdeps cannot see it.
# Suggests: the neighbours joule uses when they run.
cat >"$root/DEBIAN/control" <<EOF
Package: joule
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: dbus, polkitd, libssl3
Suggests: power-profiles-daemon, gpsd, geoclue-2.0, bluez
Section: admin
Priority: optional
Description: energy-efficiency daemon for Linux laptops and boards
 Joule brings Apple's energy-efficiency model to Linux laptops and
 single-board computers: Low Power Mode and thermal states derived from
 the batteries and thermal zones, enacted through power-profiles-daemon or
 the CPU's own knobs (platform profile, energy-performance preference,
 turbo) and always restored; a CPU monitor that stops runaway processes and
 leaves a report; Bluetooth LE beacon monitoring that keeps the radio mostly
 off; deferred transfers; and enforcement that pauses deferrable work under
 power and thermal pressure.
 .
 This package runs the daemon as joule.service on the system bus
 (org.joule.Energy1, polkit-authorized), and ships the per-user units, the
 man pages and shell completions.
EOF
chmod 0644 "$root/DEBIAN/control"

# Reproducible: every entry dated SOURCE_DATE_EPOCH.
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$outdir"
deb=$outdir/joule_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >"$work/dpkg-deb.log" 2>&1 \
    || { cat "$work/dpkg-deb.log" >&2; die "dpkg-deb --build failed"; }
say "built ${deb#"$repo"/} (Installed-Size $installed_size KiB)"
echo "$deb"
