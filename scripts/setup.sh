#!/usr/bin/env bash
# Installs what bugbout needs on a fresh machine: uv, bubblewrap (where apt-get is
# available and bwrap is missing) and the workspace's environment. Safe to run again.
# With --with-test-tools it also installs Chromium, which renders the HTML report in a test,
# the pinned agent CLIs of the real-CLI tests (scripts/realcli.sh), the smoke test's
# wheelhouse (scripts/wheelhouse.sh) and the extras (ray) the cluster tests need.
set -euo pipefail
cd "$(dirname "$0")/.."
test_tools=false
# The calling shell's PATH, before this script (or demo.sh, test.sh) changes its own.
caller_path="${BUGBOUT_CALLER_PATH:-$PATH}"
[ "${1:-}" = "--with-test-tools" ] && test_tools=true

if ! command -v uv >/dev/null 2>&1; then
    echo "setup: installing uv with pip" >&2
    python3 -m pip install --quiet --user uv || python3 -m pip install --quiet uv \
        || python3 -m pip install --quiet --user --break-system-packages uv
    export PATH="$HOME/.local/bin:$PATH"
fi

if ! command -v bwrap >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "setup: installing bubblewrap with apt-get" >&2
        SUDO=""
        [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq bubblewrap >/dev/null
    else
        echo "setup: bubblewrap is missing and apt-get is not available; install bwrap, or set [run] sandbox = \"none\"" >&2
    fi
fi

# node and npm run JavaScript and TypeScript projects' tests (vitest, jest) and install the
# pinned agent CLIs; most machines have them. Where they are missing and apt-get is there:
if $test_tools && ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing node and npm with apt-get (for node projects and the agent CLIs)" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    { $SUDO apt-get install -y -qq nodejs npm >/dev/null 2>&1 \
        || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq nodejs npm >/dev/null; }; } \
        || echo "setup: node and npm could not be installed; the node runner tests will fail" >&2
fi

# Chromium renders the HTML report in its test; without it that one test is skipped.
if $test_tools && ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing chromium with apt-get (for the HTML report's test)" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    { $SUDO apt-get install -y -qq chromium >/dev/null 2>&1 \
        || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null; }; } \
        || echo "setup: chromium could not be installed; the HTML rendering test will be skipped" >&2
fi

# The real agent CLIs the real-CLI tests run (pinned; cached between runs).
if $test_tools; then
    echo "setup: installing the pinned agent CLIs for the real-CLI tests" >&2
    bash scripts/realcli.sh >/dev/null \
        || echo "setup: the agent CLIs could not be installed; the real-CLI tests will fail" >&2
fi

# The wheelhouse the smoke test installs from with no index (cached; see scripts/wheelhouse.sh).
if $test_tools; then
    echo "setup: filling the smoke test's wheelhouse from uv.lock" >&2
    bash scripts/wheelhouse.sh >/dev/null \
        || echo "setup: the wheelhouse could not be filled; the smoke test will fail" >&2
fi

# just runs the recipes of the justfile (`just demo`, `just bout`, `just quick`, `just bench`);
# PyPI ships it as rust-just. uv puts it in its tool folder (~/.local/bin by default).
if ! command -v just >/dev/null 2>&1; then
    echo "setup: installing just (rust-just) with uv" >&2
    uv tool install --quiet rust-just==1.59.0 >&2 \
        || echo "setup: just could not be installed; the recipes need it (uv tool install rust-just)" >&2
fi

# Compiled bytecode keeps each tool's start-up short, even where PYTHONDONTWRITEBYTECODE is set.
# The tests also need the extras (ray, for the tests of running on a cluster); so does
# BUGBOUT_EXTRAS=1 for a machine that drives or joins one (docs/scale-out.md).
# uv compiles what it installs; the workspace's own packages are installed as links to their
# sources, so those are compiled here.
if $test_tools || [ "${BUGBOUT_EXTRAS:-}" = "1" ]; then
    uv sync --frozen --all-packages --all-extras --compile-bytecode
else
    uv sync --frozen --all-packages --compile-bytecode
fi
.venv/bin/python -m compileall -q packages/*/src >/dev/null

# Put bugbout and the bb-* tools on PATH for "On your own repository": links in
# ~/.local/bin (or $BUGBOUT_BIN) to the workspace's own commands, which keep working from
# any folder. Safe to run again; remove the links to undo.
bindir="${BUGBOUT_BIN:-$HOME/.local/bin}"
mkdir -p "$bindir"
for tool in bugbout bb-mine bb-oracle bb-race bb-xexam bb-judge bb-report; do
    ln -sfn "$PWD/.venv/bin/$tool" "$bindir/$tool"
done
case ":$caller_path:" in
    *":$bindir:"*) echo "setup: bugbout and the bb-* tools are on PATH (linked in $bindir)" >&2 ;;
    *) echo "setup: bugbout, the bb-* tools and uv are in $bindir, which is not on PATH;" \
        "add it: export PATH=\"$bindir:\$PATH\" (e.g. in ~/.bashrc)" >&2 ;;
esac
