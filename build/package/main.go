// Command package builds Clawboo's Linux packages from the desktop binary
// that `make build` made: a .deb for Debian and Ubuntu, and a plain tarball
// for other distributions. `make package` runs it:
//
//	go -C build/package run . -root "$PWD" -bin "$PWD/build/bin/clawboo" -out "$PWD/build/bin"
//
// The version is the binary's own (`clawboo version`: the Makefile builds it
// with git describe --tags --always --dirty) made a Debian version; see
// DebVersion. -print deb|tar|version prints a path or that version and
// builds nothing.
//
// Both hold the same tree: the binary, the desktop entry
// (build/linux/clawboo.desktop), hicolor icons at every usual size resized
// from build/appicon.png, the AppStream metainfo (build/linux/*.metainfo.xml,
// with this build's release added) and the licence. The .deb installs it
// under /usr; the tarball's top folder mirrors /usr (bin/, share/) plus
// README and INSTALL.
//
// The .deb's Depends are the runtime packages of the shared libraries the
// binary is linked against (read from its ELF header, as dpkg-shlibdeps
// does), never the -dev packages; a library missing from the table below
// fails the build, so a new link dependency cannot ship undeclared.
//
// This is its own Go module so that nfpm and its dependencies (go-git,
// sprig, newer golang.org/x/sys, /text, ...) stay out of the app's go.mod:
// adding them there would upgrade modules the shipped binary is built from.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	"golang.org/x/image/draw"
)

const (
	name        = "clawboo"
	summary     = "Run AI coding agents as one team"
	description = summary + "\n" +
		"Clawboo Desktop runs many AI coding agents as one team, on your machine. It\n" +
		"drives Claude Code, Codex, Hermes, an OpenClaw Gateway and its own native agent\n" +
		"loop behind one runtime contract; each board task runs in its own git worktree\n" +
		"with live streaming, cost tracking and budgets. The same binary also runs\n" +
		"headless (clawboo serve) and serves the same UI to a browser."
	homepage = "https://github.com/clawboo/desktop"
)

// IconSizes are the hicolor sizes installed (the source icon is 512x512).
var IconSizes = []int{16, 24, 32, 48, 64, 128, 256, 512}

// runtimeDeps maps each shared library the desktop binary may link against
// to the Debian runtime package that ships it, with the lowest version
// dpkg-shlibdeps asks for on Debian 12 (libc6's comes from the binary's own
// GLIBC_* symbol versions instead). `make test-package` checks this table
// against dpkg-shlibdeps on the installed binary.
var runtimeDeps = map[string]string{
	"libgtk-3.so.0":                 "libgtk-3-0 (>= 3.21.4)",
	"libgdk-3.so.0":                 "libgtk-3-0 (>= 3.21.4)",
	"libgdk_pixbuf-2.0.so.0":        "libgdk-pixbuf-2.0-0 (>= 2.22.0)",
	"libgio-2.0.so.0":               "libglib2.0-0 (>= 2.16.0)",
	"libgobject-2.0.so.0":           "libglib2.0-0 (>= 2.16.0)",
	"libglib-2.0.so.0":              "libglib2.0-0 (>= 2.16.0)",
	"libwebkit2gtk-4.1.so.0":        "libwebkit2gtk-4.1-0 (>= 2.39.91)",
	"libjavascriptcoregtk-4.1.so.0": "libjavascriptcoregtk-4.1-0",
	"libsoup-3.0.so.0":              "libsoup-3.0-0 (>= 2.4.0)",
	"libc.so.6":                     "libc6",
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "package:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("package", flag.ContinueOnError)
	root := fl.String("root", "../..", "the repository (build/appicon.png, build/linux/, LICENSE)")
	bin := fl.String("bin", "", "the desktop binary (make build's build/bin/clawboo)")
	gitVersion := fl.String("version", "", "the version the binary was built with, git describe --tags --always --dirty (default: ask the binary, `clawboo version`)")
	out := fl.String("out", "", "output folder (default <root>/build/bin)")
	date := fl.String("date", "", "YYYYMMDD for untagged versions (default: HEAD's commit date)")
	hostBuilds := fl.String("hostbuilds", "", "the headless builds other machines get (clawboo-linux-<arch> and .sha256; make host-builds), shipped under /usr/lib/clawboo/host")
	what := fl.String("print", "", "print one of deb, tar, version (the .deb's version) and exit without building")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *gitVersion == "" {
		if *bin == "" {
			return errors.New("-bin or -version is required")
		}
		v, err := binaryVersion(*bin)
		if err != nil {
			return err
		}
		*gitVersion = v
	}
	if *out == "" {
		*out = filepath.Join(*root, "build", "bin")
	}
	mtime, err := buildTime(*root)
	if err != nil {
		return err
	}
	if *date == "" {
		*date = mtime.Format("20060102")
	}
	version, err := DebVersion(*gitVersion, *date)
	if err != nil {
		return err
	}

	var arch string
	var depends []string
	if *bin != "" {
		if arch, depends, err = inspect(*bin); err != nil {
			return err
		}
	} else if *what == "" || *what == "deb" || *what == "tar" {
		return errors.New("-bin is required")
	}
	debPath := filepath.Join(*out, fmt.Sprintf("%s_%s_%s.deb", name, version, arch))
	tarPath := filepath.Join(*out, fmt.Sprintf("%s_%s_linux_%s.tar.gz", name, version, arch))
	switch *what {
	case "":
	case "deb":
		fmt.Fprintln(stdout, debPath)
		return nil
	case "tar":
		fmt.Fprintln(stdout, tarPath)
		return nil
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	default:
		return fmt.Errorf("-print %q: want deb, tar or version", *what)
	}

	stage, err := os.MkdirTemp("", "clawboo-package-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	tree, err := stageTree(*root, *bin, stage, version, mtime)
	if err != nil {
		return err
	}
	if *hostBuilds != "" {
		hb, err := hostBuildEntries(*hostBuilds)
		if err != nil {
			return err
		}
		tree = append(tree, hb...)
		sort.Slice(tree, func(i, j int) bool { return tree[i].rel < tree[j].rel })
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := writeDeb(debPath, tree, version, arch, depends, mtime); err != nil {
		return fmt.Errorf("%s: %w", debPath, err)
	}
	if err := writeTarball(tarPath, *root, tree, version, arch, mtime); err != nil {
		return fmt.Errorf("%s: %w", tarPath, err)
	}
	for _, p := range []string{debPath, tarPath} {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s (%.1f MB)\n", p, float64(st.Size())/1e6)
	}
	return nil
}

var (
	// v1.2.3, v1.2.3-rc.1, 1.2.3-5-gabc1234, v1.2.3-rc1-5-gabc1234-dirty, ...
	// (after a -dirty suffix is cut off)
	taggedRe = regexp.MustCompile(`^v?([0-9]+(?:\.[0-9]+)*)(?:-([0-9A-Za-z.]*[A-Za-z][0-9A-Za-z.]*))?(?:-([0-9]+)-g([0-9a-f]+))?$`)
	// abc1234: no tag yet
	untaggedRe = regexp.MustCompile(`^[0-9a-f]{4,40}$`)
)

// entry is one file of the installed tree: its path under /usr, where the
// staged copy is, and its mode.
type entry struct {
	rel  string // bin/clawboo, share/applications/clawboo.desktop, ...
	src  string
	mode os.FileMode
}

// stageTree writes the generated files (icons, the metainfo with this
// release) to stage and returns the whole tree, sorted by path.
func stageTree(root, bin, stage, version string, mtime time.Time) ([]entry, error) {
	linux := filepath.Join(root, "build", "linux")
	tree := []entry{
		{"bin/" + name, bin, 0o755},
		{"share/applications/" + name + ".desktop", filepath.Join(linux, name+".desktop"), 0o644},
		{"share/doc/" + name + "/copyright", filepath.Join(root, "LICENSE"), 0o644},
	}

	icon, err := os.Open(filepath.Join(root, "build", "appicon.png"))
	if err != nil {
		return nil, err
	}
	src, err := png.Decode(icon)
	icon.Close()
	if err != nil {
		return nil, fmt.Errorf("build/appicon.png: %w", err)
	}
	if b := src.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		return nil, fmt.Errorf("build/appicon.png is %dx%d, want 512x512", b.Dx(), b.Dy())
	}
	for _, n := range IconSizes {
		dst := image.NewNRGBA(image.Rect(0, 0, n, n))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		p := filepath.Join(stage, fmt.Sprintf("clawboo-%d.png", n))
		var buf bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, dst); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
		tree = append(tree, entry{fmt.Sprintf("share/icons/hicolor/%dx%d/apps/%s.png", n, n, name), p, 0o644})
	}

	metas, err := filepath.Glob(filepath.Join(linux, "*.metainfo.xml"))
	if err != nil || len(metas) != 1 {
		return nil, fmt.Errorf("want exactly one build/linux/*.metainfo.xml, found %v (%v)", metas, err)
	}
	meta, err := os.ReadFile(metas[0])
	if err != nil {
		return nil, err
	}
	id := regexp.MustCompile(`<id>([^<]+)</id>`).FindSubmatch(meta)
	if id == nil || filepath.Base(metas[0]) != string(id[1])+".metainfo.xml" {
		return nil, fmt.Errorf("%s: its <id> must match the file name", metas[0])
	}
	if !bytes.Contains(meta, []byte("<releases")) {
		release := fmt.Sprintf("  <releases>\n    <release version=%q date=%q/>\n  </releases>\n</component>", version, mtime.Format("2006-01-02"))
		meta = bytes.Replace(meta, []byte("</component>"), []byte(release), 1)
	}
	p := filepath.Join(stage, filepath.Base(metas[0]))
	if err := os.WriteFile(p, meta, 0o644); err != nil {
		return nil, err
	}
	tree = append(tree, entry{"share/metainfo/" + filepath.Base(metas[0]), p, 0o644})

	sort.Slice(tree, func(i, j int) bool { return tree[i].rel < tree[j].rel })
	return tree, nil
}

func writeDeb(out string, tree []entry, version, arch string, depends []string, mtime time.Time) error {
	var contents files.Contents
	for _, e := range tree {
		contents = append(contents, &files.Content{
			Source:      e.src,
			Destination: "/usr/" + e.rel,
			FileInfo:    &files.ContentFileInfo{Mode: e.mode, MTime: mtime},
		})
	}
	maintainer := "The Clawboo Desktop authors <" + homepage + ">"
	if n, m := os.Getenv("DEBFULLNAME"), os.Getenv("DEBEMAIL"); n != "" && m != "" {
		maintainer = n + " <" + m + ">"
	}
	info := nfpm.WithDefaults(&nfpm.Info{
		Name:          name,
		Arch:          arch,
		Platform:      "linux",
		Version:       version,
		VersionSchema: "none", // DebVersion already made it a Debian version
		Section:       "devel",
		Priority:      "optional",
		Maintainer:    maintainer,
		Description:   description,
		Homepage:      homepage,
		License:       "MIT",
		MTime:         mtime,
		Overridables: nfpm.Overridables{
			Depends: depends,
			// Board tasks run in git worktrees.
			Recommends: []string{"git"},
			Contents:   contents,
			// zstd: as small as xz within 5%, ten times faster; every
			// dpkg that can install WebKitGTK 4.1 reads it (Debian 12,
			// Ubuntu 21.10 and later).
			Deb: nfpm.Deb{Compression: "zstd"},
		},
	})
	if err := nfpm.PrepareForPackager(info, "deb"); err != nil {
		return err
	}
	return writeAtomically(out, func(w io.Writer) error { return deb.Default.Package(info, w) })
}

// writeTarball writes clawboo_<version>_linux_<arch>/ with the /usr tree
// (bin/, share/) and README and INSTALL.
func writeTarball(out, root string, tree []entry, version, arch string, mtime time.Time) error {
	top := fmt.Sprintf("%s_%s_linux_%s", name, version, arch)
	readme := fmt.Sprintf(tarReadme, version, arch)
	return writeAtomically(out, func(w io.Writer) error {
		gz, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
		if err != nil {
			return err
		}
		tw := tar.NewWriter(gz)
		hdr := func(name string, mode os.FileMode, size int64, typ byte) *tar.Header {
			return &tar.Header{
				Name: name, Mode: int64(mode), Size: size, Typeflag: typ, ModTime: mtime,
				Uname: "root", Gname: "root", Format: tar.FormatPAX,
			}
		}
		dirs := map[string]bool{}
		var mkdir func(string) error
		mkdir = func(d string) error {
			if d == "." || dirs[d] {
				return nil
			}
			if err := mkdir(path.Dir(d)); err != nil {
				return err
			}
			dirs[d] = true
			return tw.WriteHeader(hdr(d+"/", 0o755, 0, tar.TypeDir))
		}
		add := func(name string, mode os.FileMode, body io.Reader, size int64) error {
			if err := mkdir(path.Dir(name)); err != nil {
				return err
			}
			if err := tw.WriteHeader(hdr(name, mode, size, tar.TypeReg)); err != nil {
				return err
			}
			_, err := io.Copy(tw, body)
			return err
		}
		for _, doc := range []struct{ name, body string }{{"README", readme}, {"INSTALL", tarInstall}} {
			if err := add(top+"/"+doc.name, 0o644, strings.NewReader(doc.body), int64(len(doc.body))); err != nil {
				return err
			}
		}
		for _, e := range tree {
			f, err := os.Open(e.src)
			if err != nil {
				return err
			}
			st, err := f.Stat()
			if err == nil {
				err = add(top+"/"+e.rel, e.mode, f, st.Size())
			}
			f.Close()
			if err != nil {
				return err
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		return gz.Close()
	})
}

// writeAtomically writes out through a temporary file in the same folder,
// so an interrupted build never leaves a truncated package behind.
func writeAtomically(out string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

const tarReadme = `Clawboo Desktop %s (Linux, %s)

Clawboo Desktop runs many AI coding agents as one team, on your machine.
Run bin/clawboo to open the desktop app, or bin/clawboo serve to run it
headless and open the printed URL in a browser. bin/clawboo version prints
the version. Your data lives in ~/.clawboo (or $CLAWBOO_HOME).

The desktop app needs GTK 3 and WebKitGTK 4.1 (the libwebkit2gtk-4.1 API)
from your distribution; see INSTALL. On Debian and Ubuntu, prefer the .deb,
which pulls them in. https://github.com/clawboo/desktop
`

const tarInstall = `Installing Clawboo from this tarball

1. The runtime libraries (not the -dev packages):
     Debian, Ubuntu:  sudo apt install libgtk-3-0 libwebkit2gtk-4.1-0
                      (Ubuntu 24.04 and later: libgtk-3-0t64)
     Fedora:          sudo dnf install gtk3 webkit2gtk4.1
     Arch Linux:      sudo pacman -S gtk3 webkit2gtk-4.1
     openSUSE:        sudo zypper install libgtk-3-0 libwebkit2gtk-4_1-0
   git too, for the board's per-task worktrees.

2. The files. bin/, lib/ and share/ mirror /usr, so either, for every user:
     sudo cp -r bin lib share /usr/local/
   or, for you only (~/.local/bin must be on your PATH):
     mkdir -p ~/.local/bin ~/.local/lib ~/.local/share
     cp bin/clawboo ~/.local/bin/ && cp -r lib/. ~/.local/lib/ && cp -r share/. ~/.local/share/
   (lib/clawboo/host holds the builds other machines you add as hosts get.)

   The desktop entry runs "clawboo" from your PATH; your desktop's menu shows
   Clawboo after the next login, or at once after
     update-desktop-database ~/.local/share/applications   (or /usr/local/share/applications)
     gtk-update-icon-cache ~/.local/share/icons/hicolor    (if your icon theme keeps a cache)

3. Check:  clawboo version

To uninstall, delete the same files (bin/clawboo, lib/clawboo,
share/applications/clawboo.desktop, share/icons/hicolor/*/apps/clawboo.png,
share/metainfo/io.github.clawboo.clawboo.metainfo.xml, share/doc/clawboo).
Your data in ~/.clawboo is yours: delete it only if you want it gone.
`

// HostArchs are the platforms whose headless build ships for other machines.
var HostArchs = []string{"amd64", "arm64"}

// hostBuildEntries are the headless builds under lib/clawboo/host, each
// checked against its .sha256 before it is packed.
func hostBuildEntries(dir string) ([]entry, error) {
	var out []entry
	for _, arch := range HostArchs {
		n := "clawboo-linux-" + arch
		p := filepath.Join(dir, n)
		want, err := os.ReadFile(p + ".sha256")
		if err != nil {
			return nil, fmt.Errorf("host build %s: %w", n, err)
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("host build %s: %w", n, err)
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		if fields := strings.Fields(string(want)); len(fields) == 0 || fields[0] != hex.EncodeToString(h.Sum(nil)) {
			return nil, fmt.Errorf("host build %s does not match %s.sha256", n, n)
		}
		out = append(out, entry{"lib/" + name + "/host/" + n, p, 0o755}, entry{"lib/" + name + "/host/" + n + ".sha256", p + ".sha256", 0o644})
	}
	return out, nil
}
