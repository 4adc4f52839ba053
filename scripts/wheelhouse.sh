#!/usr/bin/env bash
# Fills a wheelhouse, a folder of wheels from which the smoke test (scripts/smoke.sh)
# installs each tool with no package index: the third-party dependencies at exactly the
# versions and hashes of uv.lock, and the build backend (hatchling) with its own
# dependencies. Cached under a key of uv.lock and the Python version, so a second run
# downloads nothing. Prints the wheelhouse's folder on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
# The smoke test's environments use python3; pip (run by uv, since python3 may be a venv's
# or a distribution's without pip) downloads the wheels for its version.
python=$(command -v python3)
pip=(uv tool run --quiet --from "pip>=24" pip)
version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
key=$( { cat uv.lock; echo "$version"; } | sha256sum | cut -c1-16)
cache="${BUGBOUT_WHEELHOUSE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbout/wheelhouse}"
house="$cache/$key"
if [ ! -f "$house/.complete" ]; then
    echo "wheelhouse: downloading the locked wheels (Python $version) into $house" >&2
    rm -rf "$house.part" && mkdir -p "$house.part"
    uv export --quiet --frozen --all-packages --no-dev --no-emit-workspace --no-header \
        --no-annotate --output-file "$house.part/requirements.txt"
    "${pip[@]}" download --quiet --disable-pip-version-check --no-deps \
        --only-binary=:all: --python-version "$version" --dest "$house.part" \
        --requirement "$house.part/requirements.txt" >&2
    "${pip[@]}" download --quiet --disable-pip-version-check --only-binary=:all: \
        --python-version "$version" --dest "$house.part" "hatchling>=1.25" >&2
    touch "$house.part/.complete"
    rm -rf "$house" && mv "$house.part" "$house"
fi
echo "$house"
