#!/usr/bin/env bash
# tests/scripts/no_conflict_markers.sh SOURCE_DIR - fails when a tracked
# file holds a line that a merge left behind ("<<<<<<< " or ">>>>>>> "; a
# lone "=======" is also a Markdown underline, so it is not looked for).
# Outside a git checkout there is nothing to list: exit 77 (skipped).
cd "$1" || exit 2
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 77
found=$(git grep -n -I -E '^(<<<<<<< |>>>>>>> )' -- . ':!tests/browser/node_modules' || true)
if [ -n "$found" ]; then
  echo "merge conflict markers in tracked files:"
  echo "$found"
  exit 1
fi
echo "no merge conflict markers in $(git ls-files | wc -l) tracked files"
