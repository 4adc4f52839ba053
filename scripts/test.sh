#!/usr/bin/env bash
# Runs the whole test suite, slow tests included, after making sure everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
bash scripts/setup.sh --with-test-tools >&2
exec uv run --frozen pytest "$@"
