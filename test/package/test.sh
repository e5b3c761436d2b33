#!/usr/bin/env bash
# make test-package: the .deb installed on this machine works, and goes away
# cleanly.
#
#   test/package/test.sh DEB TARBALL
#
# 1. The .deb's control fields: its name, architecture, a version made from
#    the binary's own `clawboo version`, Depends naming every runtime package
#    dpkg-shlibdeps finds for the binary and no -dev package.
# 2. Installs it (apt-get, so dependencies resolve), then checks every file,
#    the icons' sizes, the desktop entry (desktop-file-validate), the AppStream
#    metainfo (appstreamcli validate), and `clawboo version` from PATH.
# 3. Launches the app through the installed desktop entry's Exec line under
#    Xvfb and a private D-Bus (test/package/launch.sh) with a throwaway HOME,
#    finds its window, and quits it (SIGTERM, the clean quit path).
# 4. `dpkg -r clawboo`: every file of the package is gone, and the throwaway
#    HOME's ~/.clawboo is byte for byte what the app left there.
# 5. The tarball holds the same tree under bin/, lib/ and share/, plus README and
#    INSTALL, and its binary runs.
#
# Needs root (or passwordless sudo) for dpkg. It refuses to run when clawboo
# is already installed, and its trap removes the package (and any package apt
# pulled in for it), kills what it launched and deletes its temporary files
# on every exit, pass or fail.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
deb=${1:?usage: test/package/test.sh DEB TARBALL}
tarball=${2:?usage: test/package/test.sh DEB TARBALL}
XVFB=${XVFB:-'xvfb-run -a -s "-screen 0 1280x800x24"'} # as the Makefile's
# The PATH a desktop session gives the programs it starts.
clean_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
started=$(date +%s%N)

step() { printf '\n== package test: %s\n' "$*"; }
fail() {
  printf '\nFAIL (package test): %s\n' "$*" >&2
  exit 1
}
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}

for tool in dpkg dpkg-deb dpkg-query dpkg-shlibdeps apt-get desktop-file-validate appstreamcli \
  /usr/bin/identify xdotool xvfb-run dbus-run-session sha256sum; do
  command -v "$tool" >/dev/null || fail "$tool is missing (build/deps.sh test installs it)"
done
[ -f "$deb" ] || fail "no package at $deb (make package builds it)"
[ -f "$tarball" ] || fail "no tarball at $tarball (make package builds it)"
if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
  fail "installing a .deb needs root or passwordless sudo; run as root (CI does)"
fi
if dpkg-query -W -f='${Status}' clawboo 2>/dev/null | grep -q 'ok installed'; then
  fail "clawboo is already installed on this machine ($(dpkg-query -W -f='${Version}' clawboo)); this test installs and removes it, so it will not touch yours: remove it first (dpkg -r clawboo) or run the test on a throwaway machine"
fi
[ -e /usr/bin/clawboo ] && fail "/usr/bin/clawboo exists but no clawboo package owns it; move it away first"

tmp=$(mktemp -d /tmp/clawboo-package-test.XXXXXX)
installed=0
apt_pulled=()
cleanup() {
  rc=$?
  set +e
  # Anything the launch left (launch.sh kills its own; this is the backstop).
  for p in $(grep -lz "^HOME=$tmp/home\$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
    kill -9 "$p" 2>/dev/null
  done
  if [ "$installed" = 1 ] && dpkg-query -W -f='${Status}' clawboo 2>/dev/null | grep -qv 'not-installed'; then
    echo "package test: cleaning up: dpkg --purge clawboo" >&2
    as_root dpkg --purge clawboo >/dev/null
  fi
  if [ ${#apt_pulled[@]} -gt 0 ]; then
    echo "package test: cleaning up: removing what apt installed for it: ${apt_pulled[*]}" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${apt_pulled[@]}" >/dev/null
  fi
  rm -rf "$tmp"
  if [ $rc = 0 ]; then
    echo "package test: all green in $(ms_since "$started") ms"
  else
    echo "package test: FAILED (exit $rc); the machine is cleaned up" >&2
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- 1. the .deb itself ------------------------------------------------------
step "control fields of $(basename "$deb")"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = clawboo ] || fail "Package is '$(field Package)', want clawboo"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] ||
  fail "Architecture is '$(field Architecture)', this machine is $(dpkg --print-architecture)"
version=$(field Version)
depends=$(field Depends)
echo "version $version"
echo "depends $depends"
case "$depends" in *-dev*) fail "Depends names a -dev package: $depends" ;; esac
for want in libwebkit2gtk-4.1-0 libgtk-3-0; do
  grep -Eq "(^|, )$want( |,|$)" <<<"$depends" || fail "Depends lacks $want: $depends"
done
case "$(basename "$deb")" in "clawboo_${version}_$(field Architecture).deb") ;;
  *) fail "file name $(basename "$deb") does not match its control fields (clawboo_${version}_$(field Architecture).deb)" ;;
esac

# Every file of the package, as dpkg will install it.
dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./|/|' | grep -v '/$' | sort >"$tmp/files"
for size in 16 24 32 48 64 128 256 512; do echo "/usr/share/icons/hicolor/${size}x${size}/apps/clawboo.png"; done >"$tmp/want"
printf '%s\n' /usr/bin/clawboo /usr/share/applications/clawboo.desktop /usr/share/doc/clawboo/copyright >>"$tmp/want"
# The headless builds other machines get (backend/hosts), each with its sum.
for arch in amd64 arm64; do
  printf '%s\n' "/usr/lib/clawboo/host/clawboo-linux-$arch" "/usr/lib/clawboo/host/clawboo-linux-$arch.sha256" >>"$tmp/want"
done
grep -q '^/usr/share/metainfo/[^/]*\.metainfo\.xml$' "$tmp/files" || fail "no /usr/share/metainfo/<id>.metainfo.xml in the package"
grep '^/usr/share/metainfo/' "$tmp/files" >>"$tmp/want"
sort -o "$tmp/want" "$tmp/want"
diff -u "$tmp/want" "$tmp/files" >"$tmp/files.diff" || fail "the package's files are not the expected ones (- expected, + in the package):
$(cat "$tmp/files.diff")"
echo "$(wc -l <"$tmp/files") files, $(du -k "$deb" | cut -f1) KiB"

# ---- 2. install --------------------------------------------------------------
step "apt-get install $deb"
dpkg-query -W -f='${Package}\n' | sort >"$tmp/pkgs.before"
t0=$(date +%s%N)
installed=1
case "$deb" in /*) debarg=$deb ;; *) debarg=./$deb ;; esac
if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  -o DPkg::Lock::Timeout=120 "$debarg" >"$tmp/apt.log" 2>&1; then
  cat "$tmp/apt.log" >&2
  fail "apt-get install of the package failed (log above)"
fi
dpkg-query -W -f='${Package}\n' | sort >"$tmp/pkgs.after"
mapfile -t apt_pulled < <(comm -13 "$tmp/pkgs.before" "$tmp/pkgs.after" | grep -vx clawboo || true)
echo "installed in $(ms_since "$t0") ms${apt_pulled:+; apt also installed ${apt_pulled[*]}}"
[ "$(dpkg-query -W -f='${Status} ${Version}' clawboo)" = "install ok installed $version" ] ||
  fail "dpkg says '$(dpkg-query -W -f='${Status} ${Version}' clawboo)', want 'install ok installed $version'"
dpkg-query -L clawboo | while read -r f; do [ -d "$f" ] || echo "$f"; done | sort >"$tmp/listed"
diff -u "$tmp/files" "$tmp/listed" || fail "dpkg -L clawboo differs from the package's contents"
while read -r f; do [ -f "$f" ] || fail "$f is not on disk after the install"; done <"$tmp/files"
[ "$(stat -c %a /usr/bin/clawboo)" = 755 ] || fail "/usr/bin/clawboo has mode $(stat -c %a /usr/bin/clawboo), want 755"
(cd /usr/lib/clawboo/host && sha256sum -c --quiet clawboo-linux-amd64.sha256 clawboo-linux-arm64.sha256) ||
  fail "a host build under /usr/lib/clawboo/host does not match its .sha256"
[ "$(/usr/lib/clawboo/host/clawboo-linux-$(dpkg --print-architecture) version 2>/dev/null)" = "$(/usr/bin/clawboo version)" ] ||
  fail "the host build for this machine does not report the desktop's version"

step "what the binary links against, by dpkg-shlibdeps"
mkdir -p "$tmp/shlibs/debian"
printf 'Source: clawboo\n\nPackage: clawboo\nArchitecture: any\n' >"$tmp/shlibs/debian/control"
shlibs=$(cd "$tmp/shlibs" && dpkg-shlibdeps -O /usr/bin/clawboo 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || fail "dpkg-shlibdeps found nothing for /usr/bin/clawboo"
echo "dpkg-shlibdeps: $shlibs"
dep_floor() { # the version a Depends list asks of package $2, or "" (any)
  tr ',' '\n' <<<"$1" | sed 's/^ *//' | awk -v p="$2" '$1 == p { v = $0; sub(/^[^(]*\(>= */, "", v); sub(/\).*/, "", v); if (v == $0) v = ""; print v; found = 1 } END { exit !found }'
}
names() { tr ',' '\n' <<<"$1" | awk '{print $1}' | sort -u; }
[ "$(names "$shlibs")" = "$(names "$depends")" ] ||
  fail "Depends names other packages than dpkg-shlibdeps: Depends: $(names "$depends" | xargs), shlibdeps: $(names "$shlibs" | xargs) (update runtimeDeps in build/package/main.go)"
for p in $(names "$shlibs"); do
  need=$(dep_floor "$shlibs" "$p" || true)
  have=$(dep_floor "$depends" "$p" || true)
  if [ -n "$need" ] && { [ -z "$have" ] || ! dpkg --compare-versions "$have" ge "$need"; }; then
    fail "Depends asks $p (>= ${have:-any}), dpkg-shlibdeps needs (>= $need) (update runtimeDeps in build/package/main.go)"
  fi
done

step "icons, desktop entry, metainfo"
for size in 16 24 32 48 64 128 256 512; do
  f=/usr/share/icons/hicolor/${size}x${size}/apps/clawboo.png
  got=$(/usr/bin/identify -format '%m %wx%h' "$f") || fail "identify $f failed"
  [ "$got" = "PNG ${size}x${size}" ] || fail "$f is '$got', want 'PNG ${size}x${size}'"
done
desktop-file-validate /usr/share/applications/clawboo.desktop || fail "desktop-file-validate rejects the installed desktop entry"
metainfo=$(grep '^/usr/share/metainfo/' "$tmp/files")
appstreamcli validate --no-net --pedantic "$metainfo" || fail "appstreamcli rejects $metainfo"
grep -q "<release version=\"$version\"" "$metainfo" || fail "$metainfo has no <release version=\"$version\">"
grep -q '<launchable type="desktop-id">clawboo.desktop</launchable>' "$metainfo" || fail "$metainfo does not launch clawboo.desktop"

step "clawboo version"
bin_on_path=$(PATH=$clean_path command -v clawboo) || fail "clawboo is not on PATH ($clean_path) after the install"
[ "$bin_on_path" = /usr/bin/clawboo ] || fail "clawboo on PATH is $bin_on_path, not /usr/bin/clawboo"
out=$(env -i PATH=$clean_path HOME="$tmp/nohome" clawboo version) || fail "clawboo version failed: $out"
echo "$out"
git_version=${out#clawboo }
[ "$out" = "clawboo $git_version" ] && [ -n "$git_version" ] || fail "clawboo version printed '$out', want 'clawboo <version>'"
want=$(cd "$root" && go -C build/package run . -root "$root" -version "$git_version" -print version) ||
  fail "build/package could not map '$git_version' to a Debian version"
[ "$want" = "$version" ] || fail "the binary says '$git_version', which packages as '$want', but the package is '$version'"

# ---- 3. launch through the desktop entry -------------------------------------
step "launch through the desktop entry's Exec under Xvfb + dbus-run-session"
home=$tmp/home
mkdir -m 700 "$home"
# A session's environment, nothing from this shell's (no CLAWBOO_HOME, no
# XDG_* pointing at the real home).
eval "env -i PATH=$clean_path HOME=$home LANG=C.UTF-8 NO_AT_BRIDGE=1 TMPDIR=$tmp $XVFB dbus-run-session -- \
  $here/launch.sh /usr/share/applications/clawboo.desktop $tmp/launch" ||
  fail "the launch through the desktop entry failed (above)"
# The session's own services (gnome-keyring, the accessibility bus) end with
# its bus; give them a moment, then make sure, so nothing writes to the home
# while it is compared.
home_procs() { grep -lz "^HOME=$home\$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }
for _ in $(seq 50); do [ -z "$(home_procs)" ] && break; sleep 0.1; done
if [ -n "$(home_procs)" ]; then
  echo "session processes still running after the launch, killed: $(for p in $(home_procs); do ps -o args= -p "$p"; done | xargs)"
  for p in $(home_procs); do kill -9 "$p" 2>/dev/null || true; done
fi
[ -d "$home/.clawboo" ] && [ -n "$(ls -A "$home/.clawboo")" ] ||
  fail "the app did not create its state in the throwaway HOME ($home/.clawboo is missing or empty)"
# What the app left in the home, to compare after the removal.
snapshot() { (cd "$home" && find . -printf '%y %m %s %T@ %p\n' | sort && find . -type f -exec sha256sum {} + | sort -k2); }
snapshot >"$tmp/home.before"
echo "the app left $(find "$home/.clawboo" -type f | wc -l) files in ~/.clawboo"

# ---- 4. remove ---------------------------------------------------------------
step "dpkg -r clawboo"
as_root dpkg -r clawboo >"$tmp/dpkg-r.log" 2>&1 || { cat "$tmp/dpkg-r.log" >&2; fail "dpkg -r clawboo failed"; }
status=$(dpkg-query -W -f='${Status}' clawboo 2>/dev/null || true)
case "$status" in "" | *not-installed) ;; *) fail "after dpkg -r, dpkg says clawboo is '$status'" ;; esac
while read -r f; do [ ! -e "$f" ] || fail "$f is still there after dpkg -r"; done <"$tmp/files"
for d in /usr/share/doc/clawboo; do [ ! -e "$d" ] || fail "$d is still there after dpkg -r"; done
PATH=$clean_path command -v clawboo >/dev/null && fail "clawboo is still on PATH after dpkg -r"
snapshot >"$tmp/home.after"
diff -u "$tmp/home.before" "$tmp/home.after" || fail "dpkg -r changed the user's home (diff above)"
echo "removed; the package's $(wc -l <"$tmp/files") files are gone, ~/.clawboo untouched"

# ---- 5. the tarball ----------------------------------------------------------
step "the tarball $(basename "$tarball")"
top=$(basename "$tarball" .tar.gz)
case "$top" in "clawboo_${version}_linux_"*) ;; *) fail "tarball name $top does not carry the version $version" ;; esac
mkdir "$tmp/tar"
tar -xzf "$tarball" -C "$tmp/tar"
[ "$(ls "$tmp/tar")" = "$top" ] || fail "the tarball's top level is '$(ls "$tmp/tar" | xargs)', want one folder $top"
(cd "$tmp/tar/$top" && find . -type f | sed 's|^\.|/usr|' | sort) >"$tmp/tar.files"
{ sed 's|^|/usr/|' <<<$'README\nINSTALL'; cat "$tmp/files"; } | sort >"$tmp/tar.want"
diff -u "$tmp/tar.want" "$tmp/tar.files" || fail "the tarball's files differ from the .deb's (under /usr) plus README and INSTALL"
mkdir "$tmp/deb"
dpkg-deb -x "$deb" "$tmp/deb"
while read -r f; do
  cmp -s "$tmp/deb$f" "$tmp/tar/$top/${f#/usr/}" || fail "$f differs between the .deb and the tarball"
done <"$tmp/files"
out=$(env -i PATH=$clean_path HOME="$tmp/nohome" "$tmp/tar/$top/bin/clawboo" version)
[ "$out" = "clawboo $git_version" ] || fail "the tarball's bin/clawboo version printed '$out', want 'clawboo $git_version'"
echo "same tree as the .deb, plus README and INSTALL; bin/clawboo runs"
