# Shared by scripts/check-instructions, scripts/check-history-cost and
# scripts/check-replay-cost: the budget file, the program they count, and
# the totals callgrind writes.
# Each function exits 2 (cannot measure) with a line naming the script.

rs_callgrind_me=$(basename "$0")

# The bound named $1 in bench/instruction_budget.txt ($2: that file).
rs_budget() {
  local bound
  bound=$(awk -v k="$1" '$1 == k {print $2}' "$2")
  if [[ -z "$bound" ]]; then
    echo "$rs_callgrind_me: no $1 in $2" >&2
    exit 2
  fi
  echo "$bound"
}

# Checks that the program $1 (BUILD_DIR/bin/TARGET: realm_shadow_event_cost,
# realm_shadow_bench) is built and that valgrind is installed; $2 is the
# build directory, for the hint.
rs_need_program() {
  if [[ ! -x "$1" ]]; then
    echo "$rs_callgrind_me: $1 not built (cmake --build $2 --target $(basename "$1"))" >&2
    exit 2
  fi
  if ! command -v valgrind >/dev/null; then
    echo "$rs_callgrind_me: valgrind not installed" >&2
    exit 2
  fi
}

# The instructions callgrind counted into output file $1 (empty if none).
# A count of 0 is empty too: it means the collection's toggle named no
# function that ran (a function renamed or moved to another namespace), and
# a check that divided it would pass with "0.0 instructions per event".
rs_callgrind_total() {
  local total
  total=$(awk '$1 == "totals:" {print $2}' "$1")
  [[ -n "$total" ]] || total=$(awk '$1 == "summary:" {print $2}' "$1")
  [[ "$total" == "0" ]] && total=""
  echo "$total"
}
