#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer harness (Fuzz/FuzzEntry.swift compiled with the
# JouleHardware sources, -sanitize=fuzzer,address) and runs every target for FUZZ_SECONDS
# (default 60) from a corpus seeded with the fixtures, in fuzz-work/ (gitignored). Crashes
# land in fuzz-work/crashes/; the executions and crashes per target go into BENCHMARKS.md.
# FUZZ_TARGETS limits the run to some targets. Replay one input:
#   JOULE_FUZZ_TARGET=sysfs .build-fuzz/joule-fuzz fuzz-work/crashes/sysfs-crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"hci ad btsnoop sysfs thermal procstat cpustat"}
work=fuzz-work
bin=.build-fuzz/joule-fuzz
mkdir -p .build-fuzz "$work/crashes" "$work/logs" "$work/crashes-previous"
# Crashes count per run: earlier ones (fixed or not) move aside, still there to replay.
find "$work/crashes" -type f -exec mv -t "$work/crashes-previous" {} +

newest_source=$(find Sources/JouleHardware Fuzz CModules -newer "$bin" -type f 2>/dev/null | head -1 || true)
if [[ ! -x $bin || -n $newest_source ]]; then
  echo "building $bin" >&2
  # JouleHardware uses apple/swift-system: resolve it as the package pins it, and build its
  # module here with the settings its Package.swift gives (availability macros, defines).
  swift package resolve >/dev/null
  system=.build/checkouts/swift-system
  macros=()
  while read -r version; do
    macros+=(-enable-experimental-feature "AvailabilityMacro=System $version:macOS 10.10, iOS 8.0, watchOS 2.0, tvOS 9.0, visionOS 1.0")
  done < <(sed -n 's/^ *Available("\([0-9.]*\)".*/\1/p' "$system/Package.swift")
  clang -O1 -c -fsanitize=address -I "$system/Sources/CSystem/include" "$system/Sources/CSystem/shims.c" -o .build-fuzz/csystem.o
  clang -O1 -c -fsanitize=fuzzer-no-link,address -I CModules/CJouleShims/include CModules/CJouleShims/shims.c -o .build-fuzz/cjouleshims.o
  swiftc -O -sanitize=address -parse-as-library -module-name SystemPackage -swift-version 5 \
    -D SYSTEM_PACKAGE -enable-experimental-feature Lifetimes "${macros[@]}" \
    -Xcc -I -Xcc "$system/Sources/CSystem/include" -I "$system/Sources/CSystem/include" \
    -emit-module -emit-module-path .build-fuzz/SystemPackage.swiftmodule -emit-library -static \
    $(find "$system/Sources/System" -name '*.swift' | sort) -o .build-fuzz/libSystemPackage.a 2> .build-fuzz/build.log \
    || { cat .build-fuzz/build.log >&2; exit 1; }
  # One module: the harness reaches internal parsers (SysfsValue, MillidegreeValue).
  swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name JouleHardware \
    -swift-version 6 -I CModules/CUdev -I CModules/CBluetooth -I CModules/CJouleShims/include \
    -I .build-fuzz -I "$system/Sources/CSystem/include" \
    $(find Sources/JouleHardware -name '*.swift' | sort) Fuzz/FuzzEntry.swift \
    .build-fuzz/libSystemPackage.a .build-fuzz/csystem.o .build-fuzz/cjouleshims.o \
    -ludev -lbluetooth -o "$bin" 2>> .build-fuzz/build.log || { cat .build-fuzz/build.log >&2; exit 1; }
  # gold warns about every ASan helper symbol; show anything else.
  grep -v "Cannot export local symbol" .build-fuzz/build.log >&2 || true
fi

python3 scripts/fuzz-seeds.py "$work/corpus"
[[ -d Fuzz/seeds ]] && for t in Fuzz/seeds/*/; do cp -n "$t"* "$work/corpus/$(basename "$t")/" 2>/dev/null || true; done

summary="$work/summary.tsv"
: > "$summary"
for t in $targets; do
  mkdir -p "$work/corpus/$t"
  echo "fuzzing $t for ${seconds}s" >&2
  status=0
  JOULE_FUZZ_TARGET=$t "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/crashes/$t-" "$work/corpus/$t" > "$work/logs/$t.log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/logs/$t.log" | grep -o '[0-9]*$' | tail -1)
  crashes=$(find "$work/crashes" -name "$t-*" | wc -l)
  corpus=$(find "$work/corpus/$t" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\n' "$t" "${execs:-0}" "$crashes" "$corpus" "$status" >> "$summary"
  echo "  $t: ${execs:-0} executions, $crashes crash files, corpus $corpus, exit $status" >&2
done

python3 - "$summary" "$seconds" <<'PY'
import os, sys, time
summary, seconds = sys.argv[1], sys.argv[2]
names = {"hci": "HCI event decoder (typed + allocation-free path + NDJSON writer)",
         "ad": "AD structures, beacon frame classifier, iBeacon/AltBeacon/Eddystone UID/URL/TLM",
         "btsnoop": "btsnoop reader (datalinks 1001/1002/2001) + event decoding",
         "sysfs": "power_supply attributes → PowerSupplyParser, SysfsValue",
         "thermal": "thermal zone/trip/cooling/hwmon attributes → ThermalReader, MillidegreeValue",
         "procstat": "/proc/PID/stat → ProcessStat.parse",
         "cpustat": "/proc/stat → CPUStat.parse"}
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
