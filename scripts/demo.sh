#!/usr/bin/env bash
# Installs everything, builds the demo repository and runs a whole bout on it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The calling shell's PATH, before this script changes its own: the demo's last words say
# whether bugbout is on it.
export BUGBOUT_CALLER_PATH="${BUGBOUT_CALLER_PATH:-$PATH}"
export PATH="$HOME/.local/bin:$PATH"
bash scripts/setup.sh >&2
exec uv run --frozen python examples/demo/run_demo.py "${1:-demo}"
