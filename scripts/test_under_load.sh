#!/usr/bin/env bash
# Runs the whole test suite (scripts/test.sh, the README's command) while CPU burners keep
# the machine busy, several times in a row: no test may depend on how loaded the machine
# is. BUGBOUT_LOAD_BURNERS sets how many burners (2 by default: as many as the 2-core
# machine the suite is measured on has cores), BUGBOUT_LOAD_RUNS how many runs (3 by
# default). Arguments go to pytest. Prints each run's exit status and time, and exits 1
# when any run failed. The burners end with the script, however it ends.
set -uo pipefail
cd "$(dirname "$0")/.."
burners="${BUGBOUT_LOAD_BURNERS:-2}"
runs="${BUGBOUT_LOAD_RUNS:-3}"
pids=()
stop_burners() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null
    done
    wait "${pids[@]}" 2>/dev/null
}
trap stop_burners EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$burners"); do
    # A busy loop in the shell: one core's worth of load, no output, nothing to install.
    ( while :; do :; done ) &
    pids+=("$!")
done
echo "test-under-load: $burners CPU burners running (pids ${pids[*]})" >&2
failed=0
summary=()
for run in $(seq "$runs"); do
    started=$(date +%s)
    bash scripts/test.sh "$@"
    status=$?
    seconds=$(( $(date +%s) - started ))
    line="run $run of $runs: exit $status in $((seconds / 60)) min $((seconds % 60)) s"
    echo "test-under-load: $line" >&2
    summary+=("$line")
    [ "$status" -ne 0 ] && failed=1
done
printf 'test-under-load: %s\n' "${summary[@]}" >&2
exit "$failed"
