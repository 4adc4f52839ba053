#!/usr/bin/env bash
# Installs each tool from its own wheel into a fresh, isolated environment and runs its
# --help and --version: proves every package declares what it needs and carries its data.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
uv build --quiet --all-packages --wheel --out-dir "$work/wheels"
for tool in bb-mine bb-oracle bb-race bb-xexam bb-judge bb-report bugbout; do
    uv venv --quiet "$work/$tool"
    # Workspace siblings are given as the wheels just built (an index may hold unrelated
    # projects of the same names); third-party dependencies come from the index.
    siblings=("$work"/wheels/bb_core-*.whl)
    [ "$tool" = bugbout ] && siblings=("$work"/wheels/*.whl)
    uv pip install --quiet --python "$work/$tool/bin/python" \
        "$work"/wheels/"${tool//-/_}"-*.whl "${siblings[@]}"
    "$work/$tool/bin/$tool" --help >/dev/null
    echo "smoke: $("$work/$tool/bin/$tool" --version)"
done
# The schemas travel inside bb-core's wheel: validating a line needs no source tree.
echo '{"kind": "skip", "v": 1, "stage": "mine", "reason": "not-a-fix", "message": "m"}' \
    | (cd "$work" && "$work/bb-judge/bin/bb-judge") >/dev/null
echo "smoke: ok"
