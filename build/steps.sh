#!/usr/bin/env bash
# Runs `make <step>` for each step in order and prints how long each took at
# the end, pass or fail, so the next slow-down of `make test` (or of CI,
# which runs it) is visible: a fresh 2-core machine's budget is 25 minutes.
# Stops at the first failing step, as make would.
set -uo pipefail
rows=()
status=0
for step in "$@"; do
	start=$(date +%s)
	make --no-print-directory "$step"
	status=$?
	secs=$(( $(date +%s) - start ))
	rows+=("$(printf '%-16s %4dm%02ds %s' "$step" $((secs / 60)) $((secs % 60)) "$([ $status -eq 0 ] && echo ok || echo FAILED)")")
	[ $status -eq 0 ] || break
done
echo "---- make test: time per step ----"
printf '%s\n' "${rows[@]}"
exit $status
