#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer harness (Fuzz/*.swift linked to the modules built below,
# -sanitize=fuzzer,address) and runs every target for FUZZ_SECONDS (default 60) from a corpus
# seeded with the fixtures and Fuzz/seeds/, in fuzz-work/ (gitignored). Crashes land in
# fuzz-work/crashes/; the executions and crashes per target go into BENCHMARKS.md (not with
# FUZZ_REPORT=0). FUZZ_TARGETS limits the run to some targets, FUZZ_JOBS=N runs N at once;
# `--build-only` only builds.
# Replay one input:
#   JOULE_FUZZ_TARGET=sysfs .build-fuzz/joule-fuzz fuzz-work/crashes/sysfs-crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"hci ad btsnoop sysfs thermal procstat cpustat http config lifecycle transferrequest powercap cpufreq throttled history tpv"}
work=fuzz-work
mkdir -p "$work/crashes" "$work/logs" "$work/crashes-previous"
# Crashes count per run: earlier ones (fixed or not) move aside, still there to replay.
find "$work/crashes" -type f -exec mv -t "$work/crashes-previous" {} +

# Each module is a static library built with swiftc (SwiftPM cannot give one product its own
# sanitizer flags): swift-system, Yams and swift-numerics' RealModule as their Package.swift builds them, then
# Joule's modules bottom up with -enable-testing (the harness reaches internal parsers through
# @testable import), JouleHTTP's pure response-head parsers (the rest of that target needs
# AsyncHTTPClient), and Fuzz/FuzzEntry.swift linked with libFuzzer.
# A library is rebuilt when a source of it is newer; everything when the flags change.
# FUZZ_OPT=-Onone builds faster (into .build-fuzz-Onone) and runs slower: for short runs.
opt=${FUZZ_OPT:--O}
out=.build-fuzz
[[ $opt == -O ]] || out=.build-fuzz$opt
bin=$out/joule-fuzz
mkdir -p "$out"
log=$out/build.log
: > "$log"
# -package-name: Joule's modules share `package` declarations, as SwiftPM builds them.
fuzz_flags=("$opt" -sanitize=fuzzer,address -enable-testing -parse-as-library -package-name joule)
if [[ $(cat "$out/flags" 2>/dev/null) != "${fuzz_flags[*]}" ]]; then
  rm -f "$out"/*.a "$out"/*.o "$bin"
  echo "${fuzz_flags[*]}" > "$out/flags"
fi
# FUZZ_CHECKOUTS: another scratch's package checkouts (`make test` passes .build-tsan's).
checkouts=${FUZZ_CHECKOUTS:-.build/checkouts}
system=$checkouts/swift-system
yams=$checkouts/Yams
numerics=$checkouts/swift-numerics
includes=(-I "$out" -I CModules/CUdev -I CModules/CBluetooth -I CModules/CSystemd -I CModules/CCrypto -I CModules/CSQLite -I CModules/CXCB
  -I CModules/CJouleShims/include -I CModules/CSdBusShims/include -I "$system/Sources/CSystem/include"
  -I "$yams/Sources/CYaml/include" -Xcc -DYAML_DECLARE_STATIC -I "$numerics/Sources/_NumericsShims/include")
stale() {  # stale TARGET SOURCE...: whether TARGET is missing or older than a source
  local target=$1; shift
  [[ ! -e $target ]] && return 0
  [[ -n $(find "$@" -newer "$target" -type f 2>/dev/null | head -1) ]]
}
run() { "$@" >> "$log" 2>&1 || { grep -v "Cannot export local symbol" "$log" >&2; exit 1; }; }
library() {  # library MODULE SWIFT_VERSION SOURCE_DIR [INPUT...]: a module from one directory
  local module=$1 version=$2 sources=$3; shift 3
  stale "$out/lib$module.a" "$sources" "$@" || return 0
  echo "building $out/lib$module.a" >&2
  # shellcheck disable=SC2046
  run swiftc "${fuzz_flags[@]}" -module-name "$module" -swift-version "$version" "${includes[@]}" \
    -emit-module -emit-module-path "$out/$module.swiftmodule" -emit-library -static \
    $(find "$sources" -name '*.swift' | sort) -o "$out/lib$module.a"
}

# The checkouts as the package pins them (resolving waits for a running build: skip it then).
[[ -d $system && -d $yams && -d $numerics ]] || swift package resolve --scratch-path "$(dirname "$checkouts")" >/dev/null
if stale "$out/libSystemPackage.a" "$system/Sources"; then
  echo "building $out/libSystemPackage.a" >&2
  macros=()
  while read -r version; do
    macros+=(-enable-experimental-feature "AvailabilityMacro=System $version:macOS 10.10, iOS 8.0, watchOS 2.0, tvOS 9.0, visionOS 1.0")
  done < <(sed -n 's/^ *Available("\([0-9.]*\)".*/\1/p' "$system/Package.swift")
  run clang -O1 -c -fsanitize=address -I "$system/Sources/CSystem/include" "$system/Sources/CSystem/shims.c" -o $out/csystem.o
  run swiftc "$opt" -sanitize=address -parse-as-library -module-name SystemPackage -swift-version 5 \
    -D SYSTEM_PACKAGE -enable-experimental-feature Lifetimes "${macros[@]}" \
    -Xcc -I -Xcc "$system/Sources/CSystem/include" -I "$system/Sources/CSystem/include" \
    -emit-module -emit-module-path $out/SystemPackage.swiftmodule -emit-library -static \
    $(find "$system/Sources/System" -name '*.swift' | sort) -o $out/libSystemPackage.a
fi
if stale "$out/libYams.a" "$yams/Sources"; then
  echo "building $out/libYams.a" >&2
  for c in "$yams"/Sources/CYaml/src/*.c; do
    run clang -O1 -c -fsanitize=fuzzer-no-link,address -DYAML_DECLARE_STATIC -I "$yams/Sources/CYaml/include" "$c" \
      -o "$out/cyaml-$(basename "$c" .c).o"
  done
  run swiftc "$opt" -sanitize=fuzzer,address -parse-as-library -module-name Yams -swift-version 5 -D SWIFT_PACKAGE \
    -Xcc -DYAML_DECLARE_STATIC -I "$yams/Sources/CYaml/include" -emit-module -emit-module-path $out/Yams.swiftmodule \
    -emit-library -static $(find "$yams/Sources/Yams" -name '*.swift' | sort) -o $out/libYams.a
fi
if stale "$out/libRealModule.a" "$numerics/Sources/RealModule" "$numerics/Sources/_NumericsShims"; then
  echo "building $out/libRealModule.a" >&2
  run clang -O1 -c -fsanitize=address -I "$numerics/Sources/_NumericsShims/include" \
    "$numerics/Sources/_NumericsShims/_NumericsShims.c" -o $out/cnumerics.o
  run swiftc "$opt" -sanitize=address -parse-as-library -module-name RealModule -swift-version 5 \
    -I "$numerics/Sources/_NumericsShims/include" -emit-module -emit-module-path $out/RealModule.swiftmodule \
    -emit-library -static $(find "$numerics/Sources/RealModule" -name '*.swift' | sort) -o $out/libRealModule.a
fi
if stale $out/cshims.o CModules; then
  run clang -O1 -c -fsanitize=fuzzer-no-link,address -I CModules/CJouleShims/include CModules/CJouleShims/shims.c -o $out/cjouleshims.o
  run clang -O1 -c -fsanitize=fuzzer-no-link,address -I CModules/CSdBusShims/include CModules/CSdBusShims/shims.c -o $out/cshims.o
fi
library JouleWire 6 Sources/JouleWire
library JouleHardware 6 Sources/JouleHardware CModules $out/libJouleWire.a $out/libSystemPackage.a
library JouleEnergy 6 Sources/JouleEnergy $out/libJouleHardware.a $out/libRealModule.a
library JouleLocation 6 Sources/JouleLocation $out/libJouleEnergy.a $out/libRealModule.a
library JouleWorkloads 6 Sources/JouleWorkloads $out/libJouleEnergy.a $out/libYams.a
library JouleApps 6 Sources/JouleApps $out/libJouleWorkloads.a
library JouleTransferQueue 6 Sources/JouleTransferQueue $out/libJouleEnergy.a
library JouleHistory 6 Sources/JouleHistory $out/libJouleWorkloads.a
library JouleDaemon 6 Sources/JouleDaemon $out/libJouleApps.a $out/libJouleTransferQueue.a $out/libJouleHistory.a
library JouleApplication 6 Sources/JouleApplication $out/libJouleWire.a
# Only the files that import nothing beyond JouleTransferQueue (checked here, so a new import fails loudly).
head_parsers=(Sources/JouleHTTP/ContentRange.swift Sources/JouleHTTP/ResponseHeadCheck.swift Sources/JouleHTTP/RedirectTarget.swift)
if grep -h '^import' "${head_parsers[@]}" | grep -qvE '^import (JouleTransferQueue|Foundation)$'; then
  echo "fuzz.sh: ${head_parsers[*]} must import only JouleTransferQueue and Foundation" >&2; exit 1
fi
if stale "$out/libJouleHTTP.a" "${head_parsers[@]}" $out/libJouleTransferQueue.a; then
  echo "building $out/libJouleHTTP.a" >&2
  run swiftc "${fuzz_flags[@]}" -module-name JouleHTTP -swift-version 6 "${includes[@]}" -emit-module -emit-module-path "$out/JouleHTTP.swiftmodule" \
    -emit-library -static "${head_parsers[@]}" -o "$out/libJouleHTTP.a"
fi
if stale "$bin" Fuzz "$out"/*.a; then
  echo "building $bin" >&2
  # shellcheck disable=SC2086
  run swiftc "${fuzz_flags[@]}" -module-name JouleFuzz -swift-version 6 "${includes[@]}" Fuzz/*.swift $out/libJouleHTTP.a $out/libJouleDaemon.a $out/libJouleHistory.a $out/libJouleTransferQueue.a \
    $out/libJouleApps.a $out/libJouleWorkloads.a $out/libJouleLocation.a $out/libJouleEnergy.a $out/libJouleApplication.a $out/libJouleHardware.a $out/libJouleWire.a \
    $out/libYams.a $out/libRealModule.a $out/libSystemPackage.a $out/cyaml-*.o $out/csystem.o $out/cnumerics.o $out/cjouleshims.o $out/cshims.o \
    -ludev -lbluetooth -lsystemd -lcrypto -lsqlite3 -lxcb -lxcb-res -lm -o "$bin"
fi
# gold warns about every ASan helper symbol; show anything else.
grep -v "Cannot export local symbol" "$log" >&2 || true
[[ ${1:-} == --build-only ]] && exit 0

python3 scripts/fuzz-seeds.py "$work/corpus"
[[ -d Fuzz/seeds ]] && for t in Fuzz/seeds/*/; do cp -n "$t"* "$work/corpus/$(basename "$t")/" 2>/dev/null || true; done

summary="$work/summary.tsv"
: > "$summary"
# FUZZ_RUNS=N (make test): N mutations from a fixed seed instead of a time budget, so a run is
# the same on every machine and CI fails on a regression, never on luck. Its seeds (every
# committed one, crashes found earlier included) always run first.
limit=(-max_total_time="$seconds")
[[ -n ${FUZZ_RUNS:-} ]] && limit=(-runs="$FUZZ_RUNS" -seed=1 -max_total_time=120)
fuzz_one() {  # fuzz_one TARGET: one target's run, its line appended to the summary
  local t=$1 status=0 scratch execs crashes corpus
  mkdir -p "$work/corpus/$t"
  if [[ -n ${FUZZ_RUNS:-} ]]; then echo "fuzzing $t for $FUZZ_RUNS runs" >&2; else echo "fuzzing $t for ${seconds}s" >&2; fi
  # Swift's backtracer and ASan both want the crash: ASan's report is the one to read.
  scratch=$(mktemp -d /dev/shm/joule-fuzz.XXXXXX)  # the file readers' fake trees
  SWIFT_BACKTRACE=enable=no JOULE_FUZZ_SCRATCH=$scratch JOULE_FUZZ_TARGET=$t "$bin" "${limit[@]}" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/crashes/$t-" "$work/corpus/$t" > "$work/logs/$t.log" 2>&1 || status=$?
  rm -rf "$scratch"
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/logs/$t.log" | grep -o '[0-9]*$' | tail -1)
  crashes=$(find "$work/crashes" -name "$t-*" | wc -l)
  corpus=$(find "$work/corpus/$t" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\n' "$t" "${execs:-0}" "$crashes" "$corpus" "$status" >> "$summary"
  echo "  $t: ${execs:-0} executions, $crashes crash files, corpus $corpus, exit $status" >&2
}
# FUZZ_JOBS=N runs N targets at once (one core each); the summary keeps the targets' order.
width=${FUZZ_JOBS:-1}
for t in $targets; do
  while (( $(jobs -rp | wc -l) >= width )); do wait -n || true; done
  fuzz_one "$t" &
done
wait
sorted=$(for t in $targets; do grep -P "^$t\t" "$summary" || true; done)
printf '%s\n' "$sorted" > "$summary"

[[ ${FUZZ_REPORT:-1} == 0 ]] || python3 - "$summary" "$seconds" <<'PY'
import os, sys, time
summary, seconds = sys.argv[1], sys.argv[2]
names = {"hci": "HCI event decoder (typed + allocation-free path + NDJSON writer)",
         "ad": "AD structures, beacon frame classifier, iBeacon/AltBeacon/Eddystone UID/URL/TLM",
         "btsnoop": "btsnoop reader (datalinks 1001/1002/2001) + event decoding",
         "sysfs": "power_supply attributes → PowerSupplyParser, SysfsValue",
         "thermal": "thermal zone/trip/cooling/hwmon attributes → ThermalReader, MillidegreeValue",
         "procstat": "/proc/PID/stat → ProcessStat.parse",
         "cpustat": "/proc/stat → CPUStat.parse",
         "http": "response heads → ContentRange, RetryAfter/HTTPDate (3 forms), strong ETag, RedirectTarget, ResponseHeadCheck",
         "config": "daemon YAML → DaemonConfiguration.parse (Yams + DaemonConfigurationReader)",
         "lifecycle": "lifecycle/control socket JSON → LifecycleMessage (both directions), AppControlMessage, JouleApplication's reading of joule's packets",
         "transferrequest": "Transfers1.Add a{sv} → TransferRequest(busValue:), validated(), round trip",
         "powercap": "powercap RAPL zone files → RAPLReader, RAPLMeter (wraps, host watts)",
         "cpufreq": "cpufreq policy and knob files → PowerKnobInventory, CPUFreqPolicy, KnobText",
         "throttled": "get_throttled → RaspberryPiThrottlingReader",
         "history": "history store rows (any storage class) → HistoryRow, timeline JSON round trip, summary, SVG chart",
         "tpv": "gpsd report lines → GPSDReport (TPV decoder), ReplayTrack, the receiver model, once and watch"}
lines = ["## Fuzzing", "",
         f"Written by `make fuzz` (scripts/fuzz.sh, FUZZ_SECONDS={seconds}) on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
         "libFuzzer with AddressSanitizer; the harness also traps on impossible values (percentages outside 0-100, negative or non-finite energies, estimates beyond 240 h, temperatures outside -273.15...500 °C, CPU usage against the same sample), so a wrong number counts as a crash. Corpora seeded from the fixtures (scripts/fuzz-seeds.py). Crashes are those of this run; earlier ones and their fixes are listed above.", "",
         "| Target | Parsers | Executions | Crashes | Corpus |", "|---|---|---|---|---|"]
for row in open(summary):
    t, execs, crashes, corpus, status = row.split()
    lines.append(f"| {t} | {names.get(t, t)} | {int(execs):,} | {crashes} | {corpus} |")
path = "BENCHMARKS.md"
text = open(path).read() if os.path.exists(path) else "# Benchmarks\n\n(run `make bench` for the benchmark table)\n"
i = text.find("## Fuzzing")
text = (text[:i] if i >= 0 else text.rstrip() + "\n\n") + "\n".join(lines) + "\n"
open(path, "w").write(text)
PY
if find "$work/crashes" -type f | grep -q .; then
  echo "crashes found: $(find "$work/crashes" -type f | tr '\n' ' ')" >&2
  exit 1
fi
