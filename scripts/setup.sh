#!/usr/bin/env bash
# Installs what crashtrail needs on Debian bookworm (run as root; uses sudo otherwise).
#   scripts/setup.sh demo    build + the demo
#   scripts/setup.sh test    everything the test suite needs (default)
# Already-installed packages are skipped, so a second run is quick.
set -euo pipefail
profile=${1:-test}

pkgs=(build-essential cmake ninja-build python3 file binutils
      clang-14 llvm-14-dev libclang-14-dev llvm-14-tools lld-14
      libdwarf-dev libelf-dev zlib1g-dev libsqlite3-dev sqlite3 libmicrohttpd-dev libcapstone-dev
      valgrind)  # valgrind.h: the runtime's dump turns memcheck's reports off while it copies memory
if [ "$profile" = test ] || [ "$profile" = bench ]; then
  pkgs+=(csmith libcsmith-dev llvm-19-dev libclang-19-dev clang-19 libclang-rt-19-dev chromium
         dpkg-dev gdb tcl strace)
fi
if [ "$profile" = bench ]; then
  pkgs+=(hyperfine libclang-rt-14-dev time)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js (for the browser tests): the machine image may already have it from elsewhere.
if [ "$profile" != demo ] && ! command -v node >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all packages for '$profile' are installed"
