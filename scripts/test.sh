#!/usr/bin/env bash
# Runs the whole test suite, slow tests included, after making sure everything is installed.
# BUGBOUT_TEST_WORKERS sets how many pytest-xdist workers run the tests (4 by default, 0 for
# one process); tests that share a costly fixture stay on one worker (--dist loadgroup,
# tests/support/groups.py), and the longest work starts first, by the durations of the last
# run kept in .pytest_cache (on a fresh clone, tests/support/durations.json). See the README's
# figures.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
bash scripts/setup.sh --with-test-tools >&2
exec uv run --frozen pytest -n "${BUGBOUT_TEST_WORKERS:-4}" --dist loadgroup "$@"
