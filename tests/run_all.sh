#!/bin/sh
# Runs every test suite, prints each suite's output, and ends with the summed
# "N passed, M failed, K skipped" line. Exit status is non-zero if any suite failed.
# Usage: tests/run_all.sh SUITE_COMMAND...   (each argument is one shell command)
total_pass=0; total_fail=0; total_skip=0; status=0
for suite in "$@"; do
    echo "== $suite"
    out=$(mktemp)
    sh -c "$suite" 2>&1 | tee "$out"
    rc=$(tail -n 1 "$out" | grep -cE '^[0-9]+ passed, [0-9]+ failed')
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ -z "$line" ] || [ "$rc" -eq 0 ]; then
        echo "suite did not finish: $suite"
        total_fail=$((total_fail + 1)); status=1
    else
        p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
        f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
        s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
        total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + ${s:-0}))
        [ "$f" -eq 0 ] || status=1
    fi
    rm -f "$out"
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
exit $status
