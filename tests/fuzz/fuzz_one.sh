#!/bin/sh
# tests/fuzz/fuzz_one.sh DIR HARNESS SECONDS [DICT] - one harness's part of `make fuzz`.
# Replays the inputs it once crashed on (tests/fuzz/regress/HARNESS_*), fuzzes DIR/corpus_HARNESS
# with DIR/fuzz_HARNESS for SECONDS (niced: the fuzzers share the machine) and writes its row of
# the table to DIR/HARNESS.row: seconds, executions, coverage (libFuzzer's cov and ft at the end),
# corpus size, regression inputs replayed, and the result: clean, or where the finding's log is.
# A finding leaves its input as DIR/HARNESS-crash-* (or leak-, timeout-, oom-). Exit 1 on any.
# One input taking 30 s counts as a hang: the slowest legitimate ones (a constant Range folded at
# load into the whole 64 MiB heap cap) take 1.5 s of CPU, and took 14 s on a machine loaded tenfold.
set -u
dir=$1 t=$2 secs=$3 dict=${4:+-dict=$4}
regress=$(ls tests/fuzz/regress/"$t"_* 2>/dev/null)
nreg=$(printf '%s' "$regress" | grep -c .)
result=clean
if [ -n "$regress" ] && ! "$dir/fuzz_$t" $regress > "$dir/$t-regress.log" 2>&1; then
    result="a regression input crashes again (log: $dir/$t-regress.log)"
fi
if ! nice -n 10 "$dir/fuzz_$t" $dict -max_total_time="$secs" -rss_limit_mb=2048 -timeout=30 \
        -print_final_stats=1 -artifact_prefix="$dir/$t-" "$dir/corpus_$t" > "$dir/$t.log" 2>&1; then
    result="FINDING (log: $dir/$t.log)"
fi
last=$(grep -E '^#[0-9]+' "$dir/$t.log" | tail -n 1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$t.log")
[ -n "$execs" ] || execs=$(echo "$last" | sed -nE 's/^#([0-9]+).*/\1/p')
cov=$(echo "$last" | sed -nE 's/.* cov: ([0-9]+).*/\1/p')
ft=$(echo "$last" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
corp=$(echo "$last" | sed -nE 's/.* corp: ([0-9]+).*/\1/p')
printf '%-9s %7s %11s %6s %7s %7s %7s  %s\n' "$t" "$secs" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
    "${corp:-?}" "$nreg" "$result" > "$dir/$t.row"
cat "$dir/$t.row"
[ "$result" = clean ]
