#!/usr/bin/env bash
# `make release`, `make install`, `make uninstall`: joule as a system service.
#
#   scripts/install.sh build       release joule (static Swift runtime) in .build-release, and
#                                  its man pages and shell completions in .build-release/generated
#   scripts/install.sh install     copies them and dist/ under $DESTDIR (build first)
#   scripts/install.sh uninstall   removes exactly what install places
#   scripts/install.sh files       prints the installed paths (without DESTDIR), one per line
#
# Directories come from the environment (the Makefile passes them; empty means default):
# PREFIX=/usr/local, BINDIR, DATADIR, MANDIR, SYSCONFDIR=/etc, SYSTEMDSYSTEMUNITDIR,
# SYSTEMDUSERUNITDIR, DBUSPOLICYDIR, DBUSSERVICEDIR, DBUSINTERFACEDIR, POLKITACTIONDIR,
# BASHCOMPLETIONDIR, ZSHCOMPLETIONDIR, FISHCOMPLETIONDIR. STRIP (default strip; empty keeps
# the symbols). SOURCE_DATE_EPOCH dates the man pages (default: the last commit).
# JOULE_BINARY=PATH: `build` takes that joule (CI's ThreadSanitizer build, static runtime)
# instead of compiling a release, and JOULE_CHECKOUTS names the package checkouts it came with
# (for the man page tool); everything else is the same.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
scratch=${JOULE_RELEASE_SCRATCH:-$PWD/.build-release}
generated=$scratch/generated

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
BINDIR=${BINDIR:-$PREFIX/bin}
DATADIR=${DATADIR:-$PREFIX/share}
MANDIR=${MANDIR:-$DATADIR/man}
SYSCONFDIR=${SYSCONFDIR:-/etc}
# systemd reads units below /usr/local/lib/systemd too: ask pkg-config relative to PREFIX.
unitdir() {
    pkg-config --define-variable=prefix="$PREFIX" --define-variable=root_prefix="$PREFIX" \
        --define-variable=rootprefix="$PREFIX" --variable="$1" systemd 2>/dev/null || true
}
SYSTEMDSYSTEMUNITDIR=${SYSTEMDSYSTEMUNITDIR:-$(unitdir systemdsystemunitdir)}
SYSTEMDSYSTEMUNITDIR=${SYSTEMDSYSTEMUNITDIR:-$PREFIX/lib/systemd/system}
SYSTEMDUSERUNITDIR=${SYSTEMDUSERUNITDIR:-$(unitdir systemduserunitdir)}
SYSTEMDUSERUNITDIR=${SYSTEMDUSERUNITDIR:-$PREFIX/lib/systemd/user}
# dbus-daemon reads policies from /usr/share/dbus-1/system.d and /etc/dbus-1/system.d only:
# outside PREFIX=/usr the policy goes to the latter, or the daemon could not own its name.
if [[ $PREFIX == /usr ]]; then
    DBUSPOLICYDIR=${DBUSPOLICYDIR:-$DATADIR/dbus-1/system.d}
else
    DBUSPOLICYDIR=${DBUSPOLICYDIR:-$SYSCONFDIR/dbus-1/system.d}
fi
DBUSSERVICEDIR=${DBUSSERVICEDIR:-$DATADIR/dbus-1/system-services}
DBUSINTERFACEDIR=${DBUSINTERFACEDIR:-$DATADIR/dbus-1/interfaces}
POLKITACTIONDIR=${POLKITACTIONDIR:-$DATADIR/polkit-1/actions}
BASHCOMPLETIONDIR=${BASHCOMPLETIONDIR:-$DATADIR/bash-completion/completions}
ZSHCOMPLETIONDIR=${ZSHCOMPLETIONDIR:-$DATADIR/zsh/site-functions}
FISHCOMPLETIONDIR=${FISHCOMPLETIONDIR:-$DATADIR/fish/vendor_completions.d}
JOULECONFDIR=$SYSCONFDIR/joule
XDGAUTOSTARTDIR=${XDGAUTOSTARTDIR:-$SYSCONFDIR/xdg/autostart}
GEOCLUECONFDIR=$SYSCONFDIR/geoclue
STRIP=${STRIP-strip}

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*" >&2; }

binary=$scratch/release/joule
manual_tool=$scratch/generate-manual/debug/generate-manual

# The man pages are whatever generate-manual wrote (joule.1 plus one per subcommand). Uninstall
# also removes any installed joule.1 and joule.*.1 (all joule's), so pages of subcommands
# that a newer build no longer has go too, and it works without a build.
man_pages() {
    local pages=() dir=$DESTDIR$MANDIR/man1
    shopt -s nullglob
    [[ -d $generated/man ]] && pages+=("$generated"/man/*.1)
    [[ $1 == uninstall && -d $dir ]] && pages+=("$dir"/joule.1 "$dir"/joule.*.1)
    shopt -u nullglob
    ((${#pages[@]} > 0)) && printf '%s\n' "${pages[@]##*/}" | sort -u
    return 0
}

# One line per installed file: DESTINATION SOURCE MODE. SOURCE is a repo file, @binary,
# @bindir:FILE (FILE with @bindir@ replaced) or @generated:FILE (under .build-release/generated).
layout() {
    local purpose=${1:-install}
    echo "$BINDIR/joule @binary 0755"
    echo "$SYSTEMDSYSTEMUNITDIR/joule.service @bindir:dist/systemd/joule.service 0644"
    echo "$SYSTEMDUSERUNITDIR/joule-user.service @bindir:dist/systemd/joule-user.service 0644"
    echo "$SYSTEMDUSERUNITDIR/joule-session.service @bindir:dist/systemd/user/joule-session.service 0644"
    echo "$XDGAUTOSTARTDIR/joule-session.desktop @bindir:dist/xdg/autostart/joule-session.desktop 0644"
    echo "$DBUSPOLICYDIR/org.joule.Energy1.conf dist/dbus/org.joule.Energy1.conf 0644"
    echo "$DBUSSERVICEDIR/org.joule.Energy1.service @bindir:dist/dbus/org.joule.Energy1.service 0644"
    echo "$DBUSINTERFACEDIR/org.joule.Energy1.xml data/org.joule.Energy1.xml 0644"
    echo "$DBUSSERVICEDIR/org.joule.Transfers1.service @bindir:dist/dbus/org.joule.Transfers1.service 0644"
    echo "$DBUSINTERFACEDIR/org.joule.Transfers1.xml data/org.joule.Transfers1.xml 0644"
    echo "$DBUSSERVICEDIR/org.joule.Apps1.service @bindir:dist/dbus/org.joule.Apps1.service 0644"
    echo "$DBUSINTERFACEDIR/org.joule.Apps1.xml data/org.joule.Apps1.xml 0644"
    echo "$DBUSSERVICEDIR/org.joule.Location1.service @bindir:dist/dbus/org.joule.Location1.service 0644"
    echo "$DBUSINTERFACEDIR/org.joule.Location1.xml data/org.joule.Location1.xml 0644"
    echo "$POLKITACTIONDIR/org.joule.Energy1.policy dist/polkit/org.joule.Energy1.policy 0644"
    echo "$JOULECONFDIR/joule.yaml.example dist/joule.yaml.example 0644"
    echo "$GEOCLUECONFDIR/conf.d/90-joule.conf data/geoclue-joule.conf 0644"
    echo "$BASHCOMPLETIONDIR/joule @generated:completions/joule.bash 0644"
    echo "$ZSHCOMPLETIONDIR/_joule @generated:completions/_joule 0644"
    echo "$FISHCOMPLETIONDIR/joule.fish @generated:completions/joule.fish 0644"
    local page
    while read -r page; do
        [[ -n $page ]] && echo "$MANDIR/man1/$page @generated:man/$page 0644"
    done < <(man_pages "$purpose")
}

# The last commit's date, so that a rebuild of the same tree gives the same man pages.
manual_date() {
    local epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
    date -u -d "@$epoch" +%Y-%m-%d
}

# Whether the binary, man pages and completions are newer than every source: then
# `sudo make install` after `make release` needs no swift in root's PATH, and builds nothing
# as root in the tree.
up_to_date() {
    local stamp=$generated/stamp
    [[ -f $stamp && -x $binary && ! $binary -nt $stamp ]] || return 1
    [[ -z $(find Package.swift Sources CModules -newer "$stamp" -print -quit 2>/dev/null) ]]
}

# The static binary carries ~140 000 relative relocations (Swift metadata is full of pointers):
# as classic RELA entries they are 2.9 MB that every start reads and applies. lld's packed
# DT_RELR form is a few KB and applies faster; glibc runs it from 2.36 (Debian 12) on, so
# older libcs keep the default linker. --no-export-dynamic undoes the -export-dynamic of the
# static runtime's link arguments: nothing looks joule's own symbols up, and exporting all
# 36 000 of them made each start's one dladdr(3) walk them (1.1 M of `--version`'s 7.9 M
# instructions, callgrind).
#
# libstdc++ (the static Swift runtime is C++) and SQLite are linked in from their archives: as
# shared libraries they cost every start their symbol lookups, since Debian links its libraries
# with BIND_NOW (libstdc++ 3,300, SQLite 1,600 of the 4,600 left; callgrind: 3.8 M of
# `--version`'s 6.8 M instructions were lookups). The link asks for -lstdc++ and -lsqlite3, so
# a directory holding only the two archives is searched first: for libstdc++ through swiftc's
# -L (it precedes the toolchain's own directories; -Xlinker -L would not), for SQLite through a
# sqlite3.pc of the build's own, since pkg-config's -L/usr/lib/... comes before any flag of
# ours. A SQLite security update then needs a rebuild, as the Swift runtime already does.
# libudev and libsystemd come only as shared libraries.
link_flags() {
    local glibc flags=(-Xlinker --no-export-dynamic)
    glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
    if [[ -n $glibc ]] && printf '2.36\n%s\n' "$glibc" | sort -V -C \
        && [[ -x $(dirname "$(command -v "$SWIFT")")/ld.lld || -n $(command -v ld.lld) ]]; then
        flags+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
    fi
    [[ -d $scratch/static-libs ]] && flags+=(-Xswiftc "-L$scratch/static-libs")
    printf '%s\n' "${flags[@]}"
}

# The archives link_flags' comment explains, in $scratch/static-libs; PKG_CONFIG_PATH exported
# so that the build's sqlite3.pc is found first. Whatever is missing stays a shared library.
prepare_static_libs() {
    local clang archive name dir=$scratch/static-libs
    clang=$(dirname "$(command -v "$SWIFT")")/clang
    rm -rf "$dir"
    for name in libstdc++.a libsqlite3.a; do
        archive=$([[ -x $clang ]] && "$clang" -print-file-name="$name" 2>/dev/null)
        [[ $archive == /* && -f $archive ]] || continue
        mkdir -p "$dir"
        ln -sfn "$archive" "$dir/$name"
    done
    if [[ -e $dir/libsqlite3.a ]]; then
        mkdir -p "$dir/pkgconfig"
        printf 'Name: SQLite\nDescription: SQLite from its archive (joule release)\nVersion: %s\nLibs: -L%s -lsqlite3\nLibs.private: -lm\nCflags:\n' \
            "$(pkg-config --modversion sqlite3 2>/dev/null || echo 3)" "$dir" >"$dir/pkgconfig/sqlite3.pc"
        export PKG_CONFIG_PATH=$dir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    fi
}

# A joule built elsewhere (JOULE_BINARY): copied in when it differs, then the same pages.
take_binary() {
    [[ -x $JOULE_BINARY ]] || die "JOULE_BINARY=$JOULE_BINARY is not an executable"
    if [[ -x $binary ]] && cmp -s "$JOULE_BINARY" "$binary" && [[ -f $generated/stamp ]]; then
        say "$JOULE_BINARY is already in ${scratch#"$PWD"/}"
        return 0
    fi
    mkdir -p "$(dirname "$binary")"
    cp "$JOULE_BINARY" "$binary"
    say "took $JOULE_BINARY instead of a release build"
    generate "${JOULE_CHECKOUTS:?JOULE_CHECKOUTS must name the checkouts JOULE_BINARY was built with}"
}

build() {
    if [[ -n ${JOULE_BINARY:-} ]]; then
        take_binary
        return
    fi
    if up_to_date; then
        say "${scratch#"$PWD"/} is up to date"
        return 0
    fi
    command -v "$SWIFT" >/dev/null || die "$SWIFT not found: run \`make release\` as the user who has swift, then install"
    local t0=$SECONDS
    say "building release joule with --static-swift-stdlib in ${scratch#"$PWD"/} (minutes the first time)"
    local flags
    prepare_static_libs
    mapfile -t flags < <(link_flags)
    $SWIFT build -c release --static-swift-stdlib --product joule --scratch-path "$scratch" -j "${JOBS:-2}" \
        "${flags[@]}" || die "release build failed"
    say "release build: $((SECONDS - t0))s"
    generate "$scratch/checkouts"
}

# The man pages and completions of $binary, from the argument-parser checkout in $1.
generate() {
    # argument-parser's GenerateManual plugin (`swift package generate-manual`) rebuilds every
    # product in release without --static-swift-stdlib, relinking this scratch's joule against
    # the shared runtime (2.5 min here). Its tool, run on the binary just built, writes the same
    # pages: build that tool from the pinned checkout instead (debug, ~40 s once, then a no-op).
    local t0=$SECONDS
    local parser=$1/swift-argument-parser
    [[ -f $parser/Tools/generate-manual/GenerateManual.swift ]] || die "no argument-parser checkout in $parser"
    $SWIFT build --package-path "$parser" --scratch-path "$scratch/generate-manual" --product generate-manual \
        -j "${JOBS:-2}" >"$scratch/generate-manual.log" 2>&1 \
        || { tail -n 20 "$scratch/generate-manual.log" >&2; die "building generate-manual failed"; }
    rm -rf "$generated"
    mkdir -p "$generated/man" "$generated/completions"
    "$manual_tool" "$binary" --multi-page --date "$(manual_date)" --output-directory "$generated/man" \
        || die "generate-manual failed"
    whatis_names "$generated"/man/*.1
    # A clean environment: the scripts must not depend on the builder's shell. bash sources
    # a completion, never runs it: without the #! line argument-parser puts first (lintian's
    # bash-completion-with-hashbang).
    env -i "$binary" --generate-completion-script bash | sed '1{/^#!/d}' >"$generated/completions/joule.bash"
    env -i "$binary" --generate-completion-script zsh >"$generated/completions/_joule"
    env -i "$binary" --generate-completion-script fish >"$generated/completions/joule.fish"
    touch "$generated/stamp"
    say "man pages and completions: $((SECONDS - t0))s"
}

# A subcommand's page names it `.Nm "joule app"`, which mandb's lexgrog cannot parse: the page
# is missing from whatis/apropos (lintian's bad-whatis-entry). Its NAME line becomes the
# page's own name, joule.app, as `man joule.app` opens it (git does the same: git-add(1));
# the bare `.Nm`s below, which repeat the first one's name (the SYNOPSIS), keep "joule app".
whatis_names() {
    local page stem
    for page in "$@"; do
        stem=${page##*/}
        stem=${stem%.1}
        awk -v stem="$stem" '
            !renamed && /^\.Nm ".*"$/ { name = substr($0, 5); print ".Nm " stem; renamed = 1; next }
            renamed && $0 == ".Nm" { print ".Nm " name; next }
            { print }' "$page" >"$page.tmp" && mv -f "$page.tmp" "$page"
    done
}

install_files() {
    [[ -x $binary && -f $generated/man/joule.1 ]] || die "nothing built: run \`make release\` (or scripts/install.sh build) first"
    local dest source mode target
    while read -r dest source mode; do
        target=$DESTDIR$dest
        install -d -m 0755 "$(dirname "$target")"
        case $source in
            @binary)
                install -m "$mode" "$binary" "$target"
                [[ -n $STRIP ]] && "$STRIP" "$target"
                ;;
            @bindir:*)
                sed "s|@bindir@|$BINDIR|g" "${source#@bindir:}" >"$target.tmp"
                chmod "$mode" "$target.tmp"
                mv -f "$target.tmp" "$target"
                ;;
            @generated:*) install -m "$mode" "$generated/${source#@generated:}" "$target" ;;
            *) install -m "$mode" "$source" "$target" ;;
        esac
        echo "  $target"
    done < <(layout)
    geoclue_main_conf add
    # /etc/joule/joule.yaml is the administrator's: never written here.
    if [[ -z $DESTDIR ]]; then
        hints
    fi
}

# What a live install (no DESTDIR) still needs from the administrator.
hints() {
    cat >&2 <<EOF
install.sh: installed. Next:
  systemctl daemon-reload
  cp $JOULECONFDIR/joule.yaml.example $JOULECONFDIR/joule.yaml   # optional: defaults without it
  systemctl enable --now joule
  systemctl try-restart geoclue   # GeoClue reads its whitelist ([joule]) when it starts
EOF
    # polkit reads actions from its own datadir only (/usr/share/polkit-1/actions).
    if [[ $POLKITACTIONDIR != /usr/share/polkit-1/actions ]]; then
        say "note: polkit does not read $POLKITACTIONDIR; until the action is in /usr/share/polkit-1/actions"
        say "      (make install POLKITACTIONDIR=/usr/share/polkit-1/actions), only root may set Low Power Mode"
    fi
    case $DBUSPOLICYDIR in
        /usr/share/dbus-1/system.d | /etc/dbus-1/system.d) ;;
        *) say "note: dbus-daemon does not read $DBUSPOLICYDIR: the daemon cannot own org.joule.Energy1" ;;
    esac
}

# GeoClue before 2.7 (Debian 12 has 2.6) reads only $GEOCLUECONFDIR/geoclue.conf, not conf.d:
# where that file exists, `add` appends joule's section (data/geoclue-joule.conf) between
# markers unless it has a [joule] section already, and `remove` deletes exactly the marked
# lines. A geoclue.conf that is not there (GeoClue not installed) is never created.
geoclue_main_conf() {
    local conf=$DESTDIR$GEOCLUECONFDIR/geoclue.conf begin='# joule: begin (make install; make uninstall removes it)' end='# joule: end'
    [[ -f $conf ]] || return 0
    case $1 in
        add)
            grep -qx '\[joule\]' "$conf" && return 0
            { printf '\n%s\n' "$begin"; grep -v '^#' data/geoclue-joule.conf | sed '/^$/d'; echo "$end"; } >>"$conf"
            echo "  $conf ([joule] appended)"
            ;;
        remove)
            grep -qxF "$begin" "$conf" || return 0
            # The marked block, and the blank line install put before it.
            sed -i -e "/^$begin\$/,/^$end\$/d" "$conf"
            sed -i -e '${/^$/d}' "$conf"
            echo "  $conf ([joule] removed)"
            ;;
    esac
}

uninstall_files() {
    local dest source mode target
    # Removing the units of a running or enabled service would leave systemd pointing at
    # nothing (and ExecStopPost without its binary): the administrator stops it first.
    if [[ -z $DESTDIR && -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
        if systemctl -q is-active joule.service 2>/dev/null || systemctl -q is-enabled joule.service 2>/dev/null; then
            die "joule.service is active or enabled: systemctl disable --now joule, then make uninstall"
        fi
    fi
    while read -r dest source mode; do
        target=$DESTDIR$dest
        if [[ -e $target || -L $target ]]; then
            rm -f -- "$target"
            echo "  removed $target"
        fi
    done < <(layout uninstall)
    geoclue_main_conf remove
    # GeoClue's conf.d only when install made it and nothing else is there.
    rmdir "$DESTDIR$GEOCLUECONFDIR/conf.d" 2>/dev/null || true
    rmdir "$DESTDIR$GEOCLUECONFDIR" 2>/dev/null || true
    # Only directories that are joule's own, and only when empty (joule.yaml stays).
    rmdir --ignore-fail-on-non-empty "$DESTDIR$JOULECONFDIR" 2>/dev/null || true
    if [[ -z $DESTDIR ]]; then say "uninstalled; systemctl daemon-reload to forget the units"; fi
}

case ${1:-} in
    build) build ;;
    install) install_files ;;
    uninstall) uninstall_files ;;
    files) layout "${2:-install}" | cut -d' ' -f1 ;;
    *) die "usage: scripts/install.sh build|install|uninstall|files" ;;
esac
