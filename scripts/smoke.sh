#!/usr/bin/env bash
# Installs each tool from its own wheel into a fresh, isolated environment and runs its
# --help and --version: proves every package declares what it needs and carries its data.
# Offline: the build backend and the third-party dependencies come from the wheelhouse of
# scripts/wheelhouse.sh (the versions of uv.lock, downloaded once and cached), never from
# an index.
set -euo pipefail
cd "$(dirname "$0")/.."
house=$(bash scripts/wheelhouse.sh)
offline=(--offline --no-index --find-links "$house")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
uv build --quiet "${offline[@]}" --all-packages --wheel --out-dir "$work/wheels"
# Each tool alone, all at once (the work is mostly waiting on the disk); reported in order.
smoke_one() {
    local tool=$1 siblings
    uv venv --quiet --python "$(command -v python3)" "$work/$tool"
    # Workspace siblings are given as the wheels just built; third-party dependencies
    # come from the wheelhouse.
    siblings=("$work"/wheels/bb_core-*.whl)
    [ "$tool" = bugbout ] && siblings=("$work"/wheels/*.whl)
    uv pip install --quiet "${offline[@]}" --python "$work/$tool/bin/python" \
        "$work"/wheels/"${tool//-/_}"-*.whl "${siblings[@]}"
    "$work/$tool/bin/$tool" --help >/dev/null
    echo "smoke: $("$work/$tool/bin/$tool" --version)"
}
tools=(bb-mine bb-oracle bb-race bb-xexam bb-judge bb-report bugbout)
pids=()
for tool in "${tools[@]}"; do
    smoke_one "$tool" >"$work/$tool.out" 2>&1 &
    pids+=("$!")
done
failed=0
for i in "${!tools[@]}"; do
    wait "${pids[$i]}" || { echo "smoke: ${tools[$i]} failed" >&2; failed=1; }
    cat "$work/${tools[$i]}.out"
done
[ "$failed" -eq 0 ] || exit 1
# The schemas travel inside bb-core's wheel: validating a line needs no source tree.
echo '{"kind": "skip", "v": 1, "stage": "mine", "reason": "not-a-fix", "message": "m"}' \
    | (cd "$work" && "$work/bb-judge/bin/bb-judge") >/dev/null
echo "smoke: ok"
