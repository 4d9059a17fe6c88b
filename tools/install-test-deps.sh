#!/usr/bin/env bash
# Installs what the web tests need beyond the Python packages, quietly and only what is missing:
#   Debian: chromium (the browser tests drive it with Playwright; no browser download),
#           rasqal-utils (roqet, a SPARQL protocol client), fonts-dejavu-core (readable screenshots),
#           virtuoso-opensource-7 (virtuoso-t and isql-vt: the store tests start their own Virtuoso on
#           127.0.0.1 with a scratch database; the package's system service is never started);
#   npm:    @triply/yasgui (the query editor the server serves itself) and axe-core (the browser
#           tests inject it to check accessibility), from package-lock.json.
# Idempotent: a second run installs nothing. Runs as root in CI; without root it uses sudo when
# it must install a Debian package. `apt-get update` runs only when a package is missing.
#   --editor-only   only the query editor (what `make run` needs), no Debian packages
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(chromium rasqal-utils fonts-dejavu-core virtuoso-opensource-7)
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
    # another install running (a second checkout's `make test`, unattended upgrades) holds dpkg's
    # lock: wait for it, up to ten minutes, instead of failing at once
    wait_lock=(-o DPkg::Lock::Timeout=600)
    $sudo apt-get "${wait_lock[@]}" update -qq >/dev/null
    # virtuoso-opensource-7's postinst starts a system-wide server on ports 1111 and 8890 through
    # invoke-rc.d; a policy-rc.d that denies every start (exit 101) keeps it from running, for the
    # length of the install only (an existing policy-rc.d is left as it is).
    policy=/usr/sbin/policy-rc.d
    own_policy=""
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod 755 "$policy"
        own_policy=1
    fi
    status=0
    $sudo apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
    if [[ -n $own_policy ]]; then
        $sudo rm -f "$policy"
    fi
    if ((status)); then
        exit "$status"
    fi
fi
# Whatever installed it, the packaged Virtuoso service must not squat the ports or start at boot.
if [[ -x /etc/init.d/virtuoso-opensource-7 ]] && pgrep -x virtuoso-t >/dev/null 2>&1; then
    if pgrep -f 'virtuoso-t.*/etc/virtuoso-opensource-7/virtuoso.ini' >/dev/null 2>&1; then
        ${sudo:-} /etc/init.d/virtuoso-opensource-7 stop >/dev/null 2>&1 || true
    fi
fi
if command -v update-rc.d >/dev/null && [[ -e /etc/init.d/virtuoso-opensource-7 ]]; then
    ${sudo:-} update-rc.d virtuoso-opensource-7 disable >/dev/null 2>&1 || true
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
