#!/usr/bin/env bash
# Make sure a Chromium exists for the browser tests: Debian's package, installed when
# missing and we are root. Playwright cannot download its own browser on these machines.
set -euo pipefail

# Two of Debian's builds of one Chromium: `chromium` (the release's smoke check, Lighthouse,
# the autofill test: they need the whole browser) and `chromium-headless-shell` (the other
# browser tests: the same engine without the browser's UI layer, about a third less CPU a page).
missing=()
if [ -z "${CHROMIUM_PATH:-}" ] || [ ! -x "${CHROMIUM_PATH}" ]; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
fi
if [ -z "${CHROMIUM_HEADLESS_SHELL_PATH:-}" ] || [ ! -x "${CHROMIUM_HEADLESS_SHELL_PATH}" ]; then
  [ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's ${missing[*]} for the browser tests..."
  apt-get update -qq
  for package in "${missing[@]}"; do
    case "$package" in
      chromium) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null ;;
      chromium-headless-shell) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null ;;
    esac
  done
  exit 0
fi
cat >&2 <<'MSG'
Chromium is needed for the browser tests and is not installed.
  - On Debian/Ubuntu:  sudo apt-get install chromium chromium-headless-shell   (then run `make test` again)
  - Or point CHROMIUM_PATH at any Chromium/Chrome binary: CHROMIUM_PATH=/path/to/chrome make test
  - Or run only the unit tests:  make test-unit
MSG
exit 1
