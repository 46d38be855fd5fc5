# Sourced by scripts/vm/run.sh and scripts/system/run.sh: the verdict of a VM run from its
# serial log. Usage: tally TAG WORD, where TAG prefixes each result line (`TAG <name>
# PASS|FAIL|SKIP …`) and `WORD: N passed, M failed` is the guest's last line. Reads want, log,
# rc and timeout_s; sets passed, failed, skips and problems (empty when the run passed).
tally() {
    local tag=$1 word=$2 n line
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
