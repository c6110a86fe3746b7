#!/usr/bin/env bash
# Make sure a Chromium exists for the browser tests: Debian's package, installed when
# missing and we are root. Playwright cannot download its own browser on these machines.
set -euo pipefail

if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; then
  exit 0
fi
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi
cat >&2 <<'MSG'
Chromium is needed for the browser tests and is not installed.
  - On Debian/Ubuntu:  sudo apt-get install chromium   (then run `make test` again)
  - Or point CHROMIUM_PATH at any Chromium/Chrome binary: CHROMIUM_PATH=/path/to/chrome make test
  - Or run only the unit tests:  make test-unit
MSG
exit 1
