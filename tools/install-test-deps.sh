#!/usr/bin/env bash
# Installs what the web tests need beyond the Python packages, quietly and only what is missing:
#   Debian: chromium (the browser tests drive it with Playwright; no browser download),
#           rasqal-utils (roqet, a SPARQL protocol client), fonts-dejavu-core (readable screenshots);
#   npm:    @triply/yasgui (the query editor the server serves itself) and axe-core (the browser
#           tests inject it to check accessibility), from package-lock.json.
# Idempotent: a second run installs nothing. Runs as root in CI; without root it uses sudo when
# it must install a Debian package. `apt-get update` runs only when a package is missing.
#   --editor-only   only the query editor (what `make run` needs), no Debian packages
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(chromium rasqal-utils fonts-dejavu-core)
if [[ ${1:-} == "--editor-only" ]]; then
    DEBIAN_PACKAGES=()
fi

missing=()
for package in ${DEBIAN_PACKAGES[@]+"${DEBIAN_PACKAGES[@]}"}; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if ((${#missing[@]})); then
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        sudo="sudo"
    fi
    echo "install-test-deps: installing ${missing[*]} (apt)"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >/dev/null
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci only when node_modules does not match package-lock.json (npm records what it installed).
if [[ ! -f node_modules/@triply/yasgui/build/yasgui.min.js ]] || [[ ! -f node_modules/axe-core/axe.min.js ]] \
    || ! cmp -s package-lock.json node_modules/.package-lock.json.installed; then
    if ! command -v npm >/dev/null; then
        echo "install-test-deps: npm is needed for the query editor (Debian: apt-get install npm)" >&2
        exit 1
    fi
    echo "install-test-deps: installing the query editor (npm ci)"
    npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
    cp package-lock.json node_modules/.package-lock.json.installed
fi
