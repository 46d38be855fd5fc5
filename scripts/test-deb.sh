#!/usr/bin/env bash
# `make test-deb` (part of `make test`): builds the package from the release build in
# .build-release (`make release` first; this script builds nothing) and checks it:
# - lintian finds no error, and every warning it prints is named in the README's install
#   section (the tag's name), where its reason is;
# - `dpkg-deb -I`: the control fields (Version is `joule --version`, Architecture is dpkg's,
#   Depends from dpkg-shlibdeps with versions, Installed-Size, ...), conffiles = every file
#   under /etc, md5sums, the maintainer scripts parse (sh -n);
# - `dpkg-deb -c` lists exactly `make install DESTDIR=… PREFIX=/usr`'s files plus the
#   Debian additions, all root:root, and `dpkg-deb -x` gives the same contents as the install
#   (the man pages gzip -9n'd);
# - dpkg installs, removes and purges it in a throwaway root (`dpkg --root`, maintainer scripts
#   run chrootless with DPKG_ROOT, where they skip systemd): conffiles registered, remove
#   keeps them, purge leaves no file and removes /var/lib/joule.
# Prints `deb: N passed, M failed (Ts)`; exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$SECONDS
passed=0
failed=0
work=$(mktemp -d "${TMPDIR:-/tmp}/joule-test-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
scratch=${JOULE_RELEASE_SCRATCH:-$repo/.build-release}
export JOULE_RELEASE_SCRATCH=$scratch

pass() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
note() { echo "note  $*"; }
check() { # check DESCRIPTION COMMAND...: pass when the command succeeds
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() {
    echo "deb: $passed passed, $failed failed ($((SECONDS - started))s)"
    ((failed == 0))
    exit
}
unset DESTDIR BINDIR DATADIR MANDIR SYSCONFDIR SYSTEMDSYSTEMUNITDIR SYSTEMDUSERUNITDIR DBUSPOLICYDIR \
    DBUSSERVICEDIR DBUSINTERFACEDIR POLKITACTIONDIR BASHCOMPLETIONDIR ZSHCOMPLETIONDIR FISHCOMPLETIONDIR XDGAUTOSTARTDIR

t0=$SECONDS
if ! deb=$(./scripts/deb.sh "$work/out" 2>"$work/deb.log"); then
    cat "$work/deb.log"
    fail "scripts/deb.sh builds the package"
    finish
fi
pass "scripts/deb.sh builds ${deb##*/} ($((SECONDS - t0))s)"
grep '^deb.sh: ' "$work/deb.log" | grep -v '^deb.sh: built' | sed 's/^deb.sh: /note  /'

version=$(env -i "$scratch/release/joule" --version)
arch=$(dpkg --print-architecture)
check "named joule_\$(joule --version)_\$(dpkg --print-architecture).deb" test "${deb##*/}" = "joule_${version}_${arch}.deb"

# --- lintian -------------------------------------------------------------------------------------
if command -v lintian >/dev/null; then
    t0=$SECONDS
    lintian --fail-on error --display-level '>=warning' --tag-display-limit 0 "$deb" >"$work/lintian.log" 2>&1
    rc=$?
    sed 's/^/      lintian: /' "$work/lintian.log"
    check "lintian --fail-on error: no error ($((SECONDS - t0))s)" test "$rc" = 0
    # Every warning's tag is named in the README's install section, with its reason.
    section=$(awk '/^### Installing it as a service/{on=1; next} on && /^### /{exit} on' README.md)
    unexplained=
    while read -r tag; do
        grep -qF "\`$tag\`" <<<"$section" || unexplained+=" $tag"
    done < <(sed -n 's/^W: joule[^:]*: \([a-z0-9-]*\).*/\1/p' "$work/lintian.log" | sort -u)
    check "every lintian warning is named in README's install section${unexplained:+ (not:$unexplained)}" test -z "$unexplained"
else
    fail "lintian is installed (make deps)"
fi

# --- control ---------------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
check "Package: joule" test "$(field Package)" = joule
check "Version: $version (joule --version)" test "$(field Version)" = "$version"
check "Architecture: $arch" test "$(field Architecture)" = "$arch"
check "Section: admin, Priority: optional" test "$(field Section):$(field Priority)" = admin:optional
check "Maintainer: NAME <ADDRESS>" grep -qE '^[^<>]+ <[^<>@]+@[^<>]+>$' <<<"$(field Maintainer)"
check "Installed-Size is a number of KiB" grep -qE '^[1-9][0-9]*$' <<<"$(field Installed-Size)"
depends=$(field Depends)
note "Depends: $depends"
for lib in libc6 libudev1 libsystemd0 libbluetooth3 libxcb1 libxcb-res0; do
    check "Depends: $lib (>= VERSION)" grep -qE "(^|, )$lib \(>= [^)]+\)" <<<"$depends"
done
check "Depends names no Swift runtime or libstdc++ (linked in)" bash -c '! grep -qE "swift|libstdc" <<<"$1"' _ "$depends"
# install.sh means to link SQLite's archive too, but the link can still pick the shared library.
grep -qE '(^|, )libsqlite3-0 ' <<<"$depends" && note "the binary links SQLite's shared library (Depends: libsqlite3-0), not its archive"
check "Recommends: dbus, polkitd" grep -qE '(^|, )dbus(,|$).*polkitd' <<<"$(field Recommends)"
check "Suggests: power-profiles-daemon, gpsd, geoclue-2.0, bluez" \
    test "$(field Suggests)" = "power-profiles-daemon, gpsd, geoclue-2.0, bluez"
check "Description: a short line and a long description" test "$(field Description | wc -l)" -ge 5

mkdir -p "$work/control"
dpkg-deb -e "$deb" "$work/control"
for script in postinst prerm postrm; do
    check "DEBIAN/$script is executable and parses (sh -n)" bash -c 'test -x "$1" && sh -n "$1"' _ "$work/control/$script"
done

# --- contents ------------------------------------------------------------------------------------
dpkg-deb -c "$deb" >"$work/contents"
owners=$(awk '$2 != "root/root" {print $6}' "$work/contents")
check "every entry is root/root${owners:+ (not: $owners)}" test -z "$owners"
awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}' "$work/contents" | LC_ALL=C sort >"$work/files.deb"
# What make install lays out (man pages gzipped), plus the package's own files.
{
    PREFIX=/usr ./scripts/install.sh files | sed -E 's|^(/usr/share/man/man1/.*\.1)$|\1.gz|'
    printf '%s\n' /etc/joule/joule.yaml /usr/share/doc/joule/copyright /usr/share/doc/joule/changelog.gz \
        /usr/share/lintian/overrides/joule
} | LC_ALL=C sort >"$work/files.expected"
extra=$(comm -23 "$work/files.deb" "$work/files.expected" | tr '\n' ' ')
missing=$(comm -13 "$work/files.deb" "$work/files.expected" | tr '\n' ' ')
check "the package holds make install's files and the Debian ones, no more${extra:+ (extra: $extra)}, no less${missing:+ (missing: $missing)}" \
    test -z "$extra$missing"
check "DEBIAN/conffiles is every file under /etc" \
    test "$(LC_ALL=C sort "$work/control/conffiles")" = "$(grep '^/etc/' "$work/files.deb")"
check "the conffile /etc/joule/joule.yaml is the example config" bash -c \
    'dpkg-deb --fsys-tarfile "$1" | tar -xOf - ./etc/joule/joule.yaml | cmp -s - dist/joule.yaml.example' _ "$deb"

# Contents: dpkg-deb -x against make install's tree (same build, same strip).
mkdir -p "$work/x" "$work/install"
dpkg-deb -x "$deb" "$work/x"
PREFIX=/usr DESTDIR="$work/install" ./scripts/install.sh install >"$work/install.log" 2>&1
check "md5sums covers every file but the conffiles" test "$(cut -c35- "$work/control/md5sums" | sed 's|^|/|' | LC_ALL=C sort)" \
    = "$(grep -v '^/etc/' "$work/files.deb")"
check "md5sums match" bash -c 'cd "$1" && md5sum --quiet -c "$2"' _ "$work/x" "$work/control/md5sums"
gunzip "$work/x"/usr/share/man/man1/*.gz
differs=$(cd "$work/install" && find . -type f -printf '%P\n' | while read -r f; do
    cmp -s "$f" "$work/x/$f" || echo "/$f"
done | tr '\n' ' ')
check "dpkg-deb -x gives make install's bytes${differs:+ (differ: $differs)}" test -z "$differs"
modes=$(cd "$work/install" && find . -type f -printf '%m %P\n' | while read -r mode f; do
    [[ $(stat -c %a "$work/x/$f") == "$mode" ]] || echo "/$f"
done | tr '\n' ' ')
check "and make install's modes${modes:+ (differ: $modes)}" test -z "$modes"

# --- dpkg in a throwaway root --------------------------------------------------------------------
# --force-script-chrootless runs the maintainer scripts here with DPKG_ROOT set (they skip
# systemd and the bus); --force-depends, since the root has no libc6 of its own.
fake=$work/root
mkdir -p "$fake/var/lib/dpkg/info" "$fake/var/lib/dpkg/updates"
: >"$fake/var/lib/dpkg/status"
: >"$fake/var/lib/dpkg/available"
fdpkg() { dpkg --root="$fake" --log=/dev/null --force-not-root --force-script-chrootless --force-depends \
    --force-unsafe-io "$@" >>"$work/dpkg.log" 2>&1; }
if fdpkg -i "$deb"; then
    pass "dpkg --root … -i installs it (maintainer scripts chrootless, DPKG_ROOT)"
    status=$(dpkg-query --admindir="$fake/var/lib/dpkg" -W -f='${Status} ${Version}' joule 2>&1)
    check "dpkg-query: install ok installed $version" test "$status" = "install ok installed $version"
    registered=$(dpkg-query --admindir="$fake/var/lib/dpkg" -W -f='${Conffiles}\n' joule | awk 'NF {print $1}' | LC_ALL=C sort)
    check "dpkg registered the conffiles" test "$registered" = "$(LC_ALL=C sort "$work/control/conffiles")"
    check "/usr/bin/joule runs from the root" bash -c 'env -i "$1/usr/bin/joule" --version >/dev/null' _ "$fake"
    wants=$fake/etc/systemd/system/multi-user.target.wants/joule.service
    mask=$fake/etc/systemd/system/joule.service
    check "postinst enabled joule.service (deb-systemd-helper, in DPKG_ROOT)" \
        test "$(readlink "$wants")" = /usr/lib/systemd/system/joule.service
    # As the daemon would have left it: state, then remove and purge.
    mkdir -p "$fake/var/lib/joule/reports"
    echo x >"$fake/var/lib/joule/history.db"
    echo "# mine" >>"$fake/etc/joule/joule.yaml"
    if fdpkg -r joule; then
        pass "dpkg -r removes it"
        check "remove keeps the edited conffile and /var/lib/joule" \
            bash -c 'grep -q "# mine" "$1/etc/joule/joule.yaml" && test -f "$1/var/lib/joule/history.db"' _ "$fake"
        check "remove takes /usr/bin/joule" test ! -e "$fake/usr/bin/joule"
        check "postrm masked the unit while its enablement outlives it" test "$(readlink "$mask")" = /dev/null
    else
        fail "dpkg -r removes it"
    fi
    if fdpkg -i "$deb"; then
        pass "dpkg -i reinstalls it"
        check "reinstall keeps the edited joule.yaml" grep -q "# mine" "$fake/etc/joule/joule.yaml"
        check "reinstall unmasks the unit and keeps it enabled" \
            bash -c 'test ! -L "$1" && test -L "$2"' _ "$mask" "$wants"
        fdpkg -r joule || fail "dpkg -r removes it again"
    else
        fail "dpkg -i reinstalls it"
    fi
    if fdpkg -P joule; then
        pass "dpkg -P purges it"
        left=$(find "$fake" ! -type d ! -path "$fake/var/lib/dpkg/*" -printf '/%P\n' | tr '\n' ' ')
        check "purge leaves no file${left:+ (left: $left)}" test -z "$left"
        check "purge removes /var/lib/joule" test ! -e "$fake/var/lib/joule"
    else
        fail "dpkg -P purges it"
    fi
else
    fail "dpkg --root … -i installs it"
fi
[[ $failed -gt 0 && -s $work/dpkg.log ]] && sed 's/^/      dpkg: /' "$work/dpkg.log"

finish
