#!/usr/bin/env bash
# Runs the whole test suite, slow tests included, after making sure everything is installed.
# The tests mostly wait on subprocesses (sandboxes, pytest runs, git), so they run in
# BUGBOUT_TEST_WORKERS pytest-xdist workers (4 by default, for two cores; see the README);
# tests that share a costly fixture stay on one worker (--dist loadgroup, tests/support).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
bash scripts/setup.sh --with-test-tools >&2
exec uv run --frozen pytest -n "${BUGBOUT_TEST_WORKERS:-4}" --dist loadgroup "$@"
