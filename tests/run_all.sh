#!/bin/bash
# Runs every test suite, prints each suite's output with its time, and ends with the summed
# "N passed, M failed, K skipped" line. Exit status is non-zero if any suite failed.
# Usage: tests/run_all.sh SUITE_COMMAND...   (each argument is one shell command)
# Suites run TEST_JOBS at a time (default: the number of cores); their outputs are printed whole,
# in the order given, as soon as a suite and all the ones before it have finished. Suites must
# not write the same files: make generates what several of them read before it calls this.
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
suites=("$@")
total_pass=0; total_fail=0; total_skip=0; status=0; printed=0; running=0

# Prints the finished suites at the front of the list and adds up their summary lines.
flush() {
    while [ "$printed" -lt "${#suites[@]}" ] && [ -f "$dir/$printed.done" ]; do
        local suite=${suites[$printed]} out="$dir/$printed.out"
        echo "== $suite ($(cat "$dir/$printed.done") s)"
        cat "$out"
        local line
        line=$(tail -n 1 "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed')
        if [ -z "$line" ]; then
            echo "suite did not finish: $suite"
            total_fail=$((total_fail + 1)); status=1
        else
            local p f s
            p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
            f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
            s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
            total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
            total_skip=$((total_skip + ${s:-0}))
            [ "$f" -eq 0 ] || status=1
        fi
        printed=$((printed + 1))
    done
}

for i in "${!suites[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n; running=$((running - 1)); flush
    fi
    (
        start=$(date +%s.%N)
        sh -c "${suites[$i]}" > "$dir/$i.out" 2>&1 < /dev/null
        end=$(date +%s.%N)
        echo "$start $end" | awk '{printf "%.1f\n", $2 - $1}' > "$dir/$i.done.tmp"
        mv "$dir/$i.done.tmp" "$dir/$i.done"
    ) &
    running=$((running + 1))
done
wait
flush
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
exit $status
