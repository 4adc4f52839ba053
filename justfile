# bugbout's recipes. `just` alone runs the tests and the linters.

set shell := ["bash", "-euo", "pipefail", "-c"]

default: test lint

# Install uv (when missing), bubblewrap (where apt-get can) and the whole workspace.
setup:
    bash scripts/setup.sh

# Build the demo repository and run a whole bout on it with the scripted agents.
demo dest="demo":
    bash scripts/demo.sh {{dest}}

# The same with the TypeScript demo, tskit, on vitest (node and npm needed).
demo-ts dest="demo-ts":
    bash scripts/demo.sh --lang ts {{dest}}

# `bugbout run` for a bugbout.toml: the whole bout, resumable; the report on stdout.
bout config="bugbout.toml":
    uv run --frozen bugbout run --config {{config}}

# `bugbout doctor` for a bugbout.toml: is this machine ready for a bout?
doctor config="bugbout.toml":
    uv run --frozen bugbout doctor --config {{config}}

# The whole test suite, slow tests included, in 4 pytest-xdist workers (BUGBOUT_TEST_WORKERS sets another number).
test *opts:
    uv run --frozen pytest -n "${BUGBOUT_TEST_WORKERS:-4}" --dist loadgroup {{opts}}

# Every package's unit tests (no whole bout, Ray cluster or real agent CLI: not marked slow), in 2 workers.
quick *opts:
    uv run --frozen pytest -m "not slow" -n "${BUGBOUT_TEST_WORKERS:-2}" --dist loadgroup {{opts}}

# The whole suite 3 times under 2 CPU burners (scripts/test_under_load.sh): no test may depend on the load.
test-under-load *opts:
    bash scripts/test_under_load.sh {{opts}}

# The end-to-end tests: whole demo bouts through `bugbout run` and through the piped tools.
e2e *opts:
    uv run --frozen pytest tests/e2e tests/bugbout {{opts}}

lint:
    uv run --frozen ruff check .
    uv run --frozen ruff format --check .
    uv run --frozen mypy

fix:
    uv run --frozen ruff check --fix .
    uv run --frozen ruff format .

# The real-CLI tests (tests/race/realcli) with the agent CLIs at the versions they are pinned to.
realcli *opts:
    uv run --frozen pytest tests/race/realcli -n 2 --dist loadgroup {{opts}}

# Installs the newest Codex CLI, Claude Code, Gemini CLI and mini-swe-agent from npm and PyPI into
# ~/.cache/bugbout/realcli-latest and prints, per CLI: pinned and newest version, tests passed and
# failed, flags the adapter passes that the newest --help lost, the checks of its output that failed.
# Exits 1 when anything drifted; `just realcli-latest --no-tests` compares the flags alone.
# The real-CLI tests against the newest agent CLIs, and a table of their drift (docs/agents.md).
realcli-latest *opts:
    uv run --frozen python scripts/realcli_drift.py {{opts}}

# Each tool's --help from an isolated install of its own wheel.
smoke:
    bash scripts/smoke.sh

# Every benchmark; each prints its figures.
bench: bench-records bench-testrun bench-sandbox bench-demo bench-judge bench-race bench-oracle bench-oracle-js bench-strength bench-xexam bench-mine bench-report bench-bout bench-ray

# Reading and validating 100,000 task lines.
bench-records:
    uv run --frozen python benchmarks/bench_records.py

# Fixed cost of a sandboxed test run (run_pytest) next to bare pytest on the same tests.
bench-testrun *opts:
    uv run --frozen python benchmarks/bench_testrun.py {{opts}}

# Starting a command in bubblewrap with the allow-list view next to a plain read-only view of /.
bench-sandbox *opts:
    uv run --frozen python benchmarks/bench_sandbox.py {{opts}}

# Building the demo (target under 3 s) next to copying a built one.
bench-demo:
    uv run --frozen python benchmarks/bench_demo.py

# Milliseconds the judge takes per verdict as the matrix grows to 100,000 cells.
bench-judge *opts:
    uv run --frozen python benchmarks/bench_judge.py {{opts}}

# Taking and applying an agent's patch on a 3,000-file tree; the fixed cost of one attempt.
bench-race:
    uv run --frozen python benchmarks/bench_race.py

# The oracle on the demo's tasks next to the same pytest commands run bare (target < 1.3x).
bench-oracle *opts:
    uv run --frozen python benchmarks/bench_oracle.py {{opts}}

# The oracle on the TypeScript demo's tasks (or --config a node project's bugbout.toml) next to
# the same `npx vitest run` / `npx jest` commands run bare (target < 1.3x).
bench-oracle-js *opts:
    uv run --frozen python benchmarks/bench_oracle_js.py {{opts}}

# Measuring oracle strength (coverage, mutants, reverted hunks) next to the runs it is made of,
# on the demo and on a clone of cachetools named by BENCH_STRENGTH_REPO (skipped, saying how, without).
bench-strength *opts:
    uv run --frozen python benchmarks/bench_strength.py {{opts}}

# A matrix of 7 authors x 7 columns: one pytest run per column next to one per author and column.
bench-xexam *opts:
    uv run --frozen python benchmarks/bench_xexam.py {{opts}}

# bb-mine on 20,000 first-parent commits against git log, first run and re-run.
bench-mine *opts:
    uv run --frozen python benchmarks/bench_mine.py {{opts}}

# Building and rendering reports of 50 to 2,000 judged tasks; the size of each format.
bench-report:
    uv run --frozen python benchmarks/bench_report.py

# A whole demo bout through `bugbout run`: first run, with the environment built, a re-run; the other commands.
bench-bout:
    uv run --frozen python benchmarks/bench_bout.py

# The Ray executor next to the local one: trivial units, and the demo's oracle (target at most 0.5 s added per unit).
bench-ray *opts:
    uv run --frozen python benchmarks/bench_ray.py {{opts}}
