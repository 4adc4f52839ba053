#!/usr/bin/env bash
# Installs everything, builds the demo repository and runs a whole bout on it.
#   bash scripts/demo.sh [DEST]              textkit, the Python demo (pytest)
#   bash scripts/demo.sh --lang ts [DEST]    tskit, the TypeScript demo (vitest; needs node and npm)
set -euo pipefail
cd "$(dirname "$0")/.."
# The calling shell's PATH, before this script changes its own: the demo's last words say
# whether bugbout is on it.
export BUGBOUT_CALLER_PATH="${BUGBOUT_CALLER_PATH:-$PATH}"
export PATH="$HOME/.local/bin:$PATH"
bash scripts/setup.sh >&2
lang=py
if [[ "${1:-}" == "--lang" ]]; then
    lang="${2:?--lang needs py or ts}"
    shift 2
elif [[ "${1:-}" == --lang=* ]]; then
    lang="${1#--lang=}"
    shift
fi
default_dest=demo
[[ "$lang" == "ts" ]] && default_dest=demo-ts
exec uv run --frozen python examples/demo/run_demo.py "${1:-$default_dest}" --lang "$lang"
