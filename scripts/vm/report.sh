# Sourced by scripts/vm/run.sh and scripts/system/run.sh, which set first:
#   target   the make target (test-vm), naming the script's lines on stderr;
#   word     the summary's word (vm): `WORD: N passed, M failed` is the last line on stdout;
#   what     what a skip did not run ("VM tests (make test-vm)").
# step, die and skipped say so; tally judges the run from its serial log.

step() { printf '%s: %s\n' "$target" "$*" >&2; }
die() { echo "$target: $*" >&2; echo "$word: 0 passed, 1 failed"; exit 1; }
# Without qemu (or what the VM needs) the tests are skipped, loudly, and the run passes.
skipped() {
    echo "############################################################" >&2
    echo "SKIPPED: $what did not run: $*" >&2
    echo "############################################################" >&2
    echo "$word: SKIPPED: $*"
    exit 0
}

# Usage: tally TAG, where TAG prefixes each result line (`TAG <name> PASS|FAIL|SKIP …`). Reads
# want, log, rc and timeout_s; sets passed, failed, skips and problems (empty: it passed).
tally() {
    local tag=$1 n line
    passed=0; failed=0; skips=0; problems=()
    for n in "${want[@]}"; do
        line=$(grep -E "^$tag $n (PASS|FAIL|SKIP) " "$log" | tail -n 1 || true)
        case $line in
        *" PASS "*) passed=$((passed + 1)) ;;
        *" SKIP "*) skips=$((skips + 1)) ;;
        *" FAIL "*) failed=$((failed + 1)); problems+=("$n failed") ;;
        *) failed=$((failed + 1)); problems+=("$n reported no result") ;;
        esac
    done
    if ((rc == 124 || rc == 137)); then
        problems+=("timed out after ${timeout_s}s: qemu killed")
    elif ! grep -qE "^$word: [0-9]+ passed, [0-9]+ failed\$" "$log"; then
        problems+=("the VM did not finish (qemu exit $rc)")
    fi
}
