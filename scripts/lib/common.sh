# Shared by scripts/demo, scripts/test, scripts/bench: installs what is
# missing (Debian packages only) and configures a build directory.

rs_log() { printf '\n== %s\n' "$*"; }

# Packages every build needs, and the ones only some steps need.
RS_BUILD_PACKAGES=(cmake ninja-build g++ libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev)
RS_TEST_PACKAGES=(clang libclang-rt-14-dev valgrind python3-matplotlib chromium)

rs_missing_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]:-}"
}

rs_ensure_packages() {
  local missing
  missing=$(rs_missing_packages "$@")
  if [ -n "${missing// /}" ]; then
    rs_log "installing: $missing"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
}

# rs_configure DIR [cmake args...]
rs_configure() {
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja "$@" >"$dir.configure.log" 2>&1 || {
    cat "$dir.configure.log"; return 1; }
}

RS_JOBS=${RS_JOBS:-$(nproc)}
