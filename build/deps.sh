#!/usr/bin/env bash
# Installs (or names) the system packages a make target needs, so `make run`
# and `make test` work on a fresh Debian or Ubuntu machine.
#
#   build/deps.sh serve    nothing beyond Go (the headless server is pure Go)
#   build/deps.sh desktop  GTK and WebKitGTK 4.1 headers to build the window
#   build/deps.sh test     the above plus Xvfb, D-Bus, xdotool, ImageMagick, a tray host,
#                          gnome-keyring and Chromium for the UI tests, and the AppStream
#                          and desktop-entry validators for the package test, and OpenSSH
#                          (client and server) for the remote-host tests
#
# It installs with apt-get as root, or through passwordless sudo; otherwise
# it prints the exact command and fails. It also checks Go and Node.
set -euo pipefail

what=${1:-desktop}
desktop_pkgs=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
test_pkgs=(xvfb xauth dbus-x11 xdotool imagemagick gnome-keyring libsecret-tools chromium haskell-gtk-sni-tray-utils)
test_pkgs+=(appstream desktop-file-utils)  # make test-package validates the metainfo and the desktop entry
test_pkgs+=(openssh-client openssh-server)  # remote hosts: a real sshd and a second user (backend/hosts)

need_go="1.26"
need_node="20"

fail() { printf 'clawboo setup: %s\n' "$*" >&2; exit 1; }

command -v go >/dev/null 2>&1 || fail "Go $need_go or newer is required: https://go.dev/doc/install (then add /usr/local/go/bin to PATH)"
gov=$(go env GOVERSION | sed 's/^go//')
[ "$(printf '%s\n%s\n' "$need_go" "$gov" | sort -V | head -n1)" = "$need_go" ] || fail "Go $need_go or newer is required (found $gov)"

if [ "$what" != serve ]; then
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
    fail "Node.js $need_node+ with npm is required to build the UI: https://nodejs.org/en/download (or nvm/fnm)"
  nodev=$(node -p 'process.versions.node.split(".")[0]')
  [ "$nodev" -ge "$need_node" ] || fail "Node.js $need_node+ is required (found $(node --version))"
fi

# The desktop smoke test runs under a real window manager (openbox) and
# drives it with xprop, xwininfo (x11-utils) and wmctrl.
test_pkgs+=(openbox wmctrl x11-utils)

pkgs=()
case "$what" in
  serve) ;;
  desktop) pkgs=("${desktop_pkgs[@]}") ;;
  test) pkgs=("${desktop_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) fail "unknown target $what (serve, desktop or test)" ;;
esac
[ ${#pkgs[@]} -gt 0 ] || exit 0

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "clawboo setup: not a Debian/Ubuntu system; make sure these are installed: ${pkgs[*]}" >&2
  exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
echo "clawboo setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq && "${cmd[@]}"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo -E apt-get update -qq && sudo -E "${cmd[@]}"
else
  fail "missing system packages. Install them with:
  sudo apt-get update && sudo ${cmd[*]}"
fi
