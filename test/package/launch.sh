#!/usr/bin/env bash
# Part of test/package/test.sh, run under Xvfb and dbus-run-session:
#
#   launch.sh DESKTOP_FILE WORKDIR
#
# Starts the program the desktop entry's Exec line names, as a desktop's
# launcher would (field codes dropped, the command looked up on PATH), waits
# for its window (its WM_CLASS name must be the entry's StartupWMClass) and
# its page, then quits it with SIGTERM (the app's clean quit) and checks it
# exited 0 and left no process behind. Whatever it started dies with it, on
# every exit.
set -euo pipefail

entry=${1:?usage: launch.sh DESKTOP_FILE WORKDIR}
work=${2:?usage: launch.sh DESKTOP_FILE WORKDIR}
mkdir -p "$work"
log=$work/app.log
ready_marker="clawboo: page ready" # app.ReadyMarker
window_timeout=30
quit_timeout=20

fail() {
  printf 'FAIL (package test, launch): %s\n' "$*" >&2
  if [ -s "$log" ]; then
    echo "--- the app's output (last 40 lines of $log):" >&2
    tail -n 40 "$log" >&2
  fi
  exit 1
}
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# The value of KEY in the [Desktop Entry] group.
key() {
  awk -v k="$1" '
    /^\[/ { group = $0; next }
    group == "[Desktop Entry]" && index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }
  ' "$entry"
}

exec_line=$(key Exec)
wmclass=$(key StartupWMClass)
[ -n "$exec_line" ] || fail "$entry has no Exec= in [Desktop Entry]"
[ -n "$wmclass" ] || fail "$entry has no StartupWMClass= in [Desktop Entry]"
# This small parser takes unquoted words only; say so rather than guess.
case "$exec_line" in *[\"\'\\\`\$]*) fail "Exec=$exec_line uses quoting; teach launch.sh the desktop entry spec's quoting rules" ;; esac
# Drop the field codes (no files or URLs to open); %% is a literal %.
read -ra argv <<<"$(sed -E 's/(^| )%[fFuUdDnNickvm]( |$)/ /g; s/%%/%/g' <<<"$exec_line")"
[ ${#argv[@]} -gt 0 ] || fail "Exec=$exec_line is empty once its field codes are dropped"
prog=$(command -v "${argv[0]}") || fail "Exec's program '${argv[0]}' is not on PATH ($PATH)"
echo "Exec=$exec_line -> $prog ${argv[*]:1}"

# The app and its WebKit processes started with this HOME: what the launch
# may leave behind.
app_procs() {
  local p exe
  for p in $(grep -lz "^HOME=$HOME\$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
    exe=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
    case "$exe" in "$prog" | */webkit2gtk-4.1/*) echo "$p" ;; esac
  done
}

pid=
cleanup() {
  rc=$?
  set +e
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid"
  fi
  for p in $(app_procs); do kill -9 "$p" 2>/dev/null; done
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t0=$(date +%s%N)
# Its own process group, so a failure kills the app and its WebKit children.
setsid "$prog" "${argv[@]:1}" >"$log" 2>&1 </dev/null &
pid=$!

win=$(timeout "$window_timeout" xdotool search --sync --onlyvisible --classname "^${wmclass}\$" 2>/dev/null | head -n1) ||
  fail "no visible window with WM_CLASS name '$wmclass' within ${window_timeout}s of the launch (the app $(kill -0 "$pid" 2>/dev/null && echo 'is still running' || echo 'has exited'))"
[ -n "$win" ] || fail "no visible window with WM_CLASS name '$wmclass'"
window_ms=$(ms_since "$t0")
# The window can be mapped under the program's name a moment before the app
# sets its title: wait for the title (a condition, with the same deadline).
deadline=$(( $(date +%s) + window_timeout ))
name=$(xdotool getwindowname "$win")
while [ "$name" != Clawboo ] && [ "$(date +%s)" -lt "$deadline" ]; do
  sleep 0.1
  name=$(xdotool getwindowname "$win")
done
[ "$name" = Clawboo ] || fail "window $win is named '$name', want 'Clawboo'"
wpid=$(xdotool getwindowpid "$win" 2>/dev/null || true)
[ "$wpid" = "$pid" ] || fail "window $win belongs to pid '${wpid:-?}', not the launched app ($pid)"
echo "window $win '$name' (WM_CLASS $wmclass) after $window_ms ms"

deadline=$(($(date +%s) + window_timeout))
until grep -q "$ready_marker" "$log"; do
  kill -0 "$pid" 2>/dev/null || fail "the app exited before its page loaded"
  [ "$(date +%s)" -lt "$deadline" ] || fail "the page did not load within ${window_timeout}s ('$ready_marker' not printed)"
  sleep 0.1
done
echo "page ready after $(ms_since "$t0") ms"

t1=$(date +%s%N)
kill -TERM "$pid"
deadline=$(($(date +%s) + quit_timeout))
while kill -0 "$pid" 2>/dev/null; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "the app did not quit within ${quit_timeout}s of SIGTERM"
  sleep 0.1
done
set +e
wait "$pid"
rc=$?
set -e
pid=
[ "$rc" = 0 ] || fail "the app exited $rc after SIGTERM, want 0"
echo "quit cleanly (exit 0) $(ms_since "$t1") ms after SIGTERM"

# WebKit's processes go with it; none may outlive the app.
sleep 0.5
left=$(for p in $(app_procs); do ps -o pid=,args= -p "$p" || true; done)
[ -z "$left" ] || fail "processes of the launch outlived the app:
$left"
