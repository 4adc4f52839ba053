#!/usr/bin/env bash
# Installs everything, builds the demo repository and runs a whole bout on it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
bash scripts/setup.sh >&2
exec uv run --frozen python examples/demo/run_demo.py "${1:-demo}"
