package main

// Tests of the release configuration, .goreleaser.yaml, for the promises
// goreleaser's own check cannot know about: the platforms, a static binary,
// linker flags that name real variables, Linux packages that install
// beside Debian's unrelated retry, and files that exist when goreleaser
// looks for them. scripts/release/check.sh runs goreleaser itself.

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// releaseConfig is the part of .goreleaser.yaml the tests read.
type releaseConfig struct {
	Before struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		GOOS    []string `yaml:"goos"`
		GOARCH  []string `yaml:"goarch"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		IDs     []string      `yaml:"ids"`
		Formats []string      `yaml:"formats"`
		Files   []archiveFile `yaml:"files"`
	} `yaml:"archives"`
	NFPMs []struct {
		IDs         []string `yaml:"ids"`
		PackageName string   `yaml:"package_name"`
		Formats     []string `yaml:"formats"`
		Bindir      string   `yaml:"bindir"`
		Contents    []struct {
			Src  string `yaml:"src"`
			Dst  string `yaml:"dst"`
			Type string `yaml:"type"`
		} `yaml:"contents"`
	} `yaml:"nfpms"`
}

// archiveFile is an entry of an archive's files: a glob, or a mapping
// with the glob in src.
type archiveFile struct {
	Src string `yaml:"src"`
}

func (f *archiveFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&f.Src)
	}
	type plain archiveFile
	return n.Decode((*plain)(f))
}

// hookOutputs maps each before hook to the directory, relative to the
// module root, that it writes when given no argument. A new hook must be
// added here, so that the files it makes are checked too.
var hookOutputs = map[string]string{
	"scripts/release/completions.sh": "completions",
}

// debianRetry lists the paths of Debian's package named retry, a different
// tool, which the Linux packages must not claim.
var debianRetry = []string{
	"/usr/bin/retry",
	"/usr/share/man/man1/retry.1",
	"/usr/share/man/man1/retry.1.gz",
}

func loadReleaseConfig(t *testing.T) releaseConfig {
	t.Helper()
	b, err := os.ReadFile(".goreleaser.yaml")
	require.NoError(t, err)
	var c releaseConfig
	require.NoError(t, yaml.Unmarshal(b, &c))
	require.Len(t, c.Builds, 2, "retry, and retry-redis to which it hands Redis state")
	return c
}

func TestReleaseShipsRetryRedisBesideRetryEverywhere(t *testing.T) {
	t.Parallel()
	c := loadReleaseConfig(t)
	var ids []string
	for _, b := range c.Builds {
		ids = append(ids, b.ID)
		if b.ID == "retry-redis" {
			assert.Equal(t, "./cmd/retry-redis", b.Main)
			assert.Equal(t, "retry-redis", b.Binary, "retry looks for it by this name (cmd.RedisBuild)")
		}
	}
	require.ElementsMatch(t, []string{"retry", "retry-redis"}, ids)
	for _, a := range c.Archives {
		assert.ElementsMatch(t, ids, a.IDs, "an archive holds both, side by side")
	}
	for _, p := range c.NFPMs {
		assert.ElementsMatch(t, ids, p.IDs, "a package installs both in its bindir")
	}
}

func TestReleaseBuildsStaticBinariesForPOSIXPlatforms(t *testing.T) {
	t.Parallel()
	for _, b := range loadReleaseConfig(t).Builds {
		assert.ElementsMatch(t, []string{"linux", "darwin", "freebsd"}, b.GOOS, "%s: windows lacks process groups, POSIX signals and ptys; see docs/install.md", b.ID)
		assert.ElementsMatch(t, []string{"amd64", "arm64"}, b.GOARCH, b.ID)
		assert.Contains(t, b.Env, "CGO_ENABLED=0", b.ID)
		assert.Contains(t, b.Flags, "-trimpath", b.ID)
	}
}

func TestReleaseLdflagsSetDeclaredStringVariables(t *testing.T) {
	t.Parallel()
	for _, b := range loadReleaseConfig(t).Builds {
		t.Run(b.ID, func(t *testing.T) { checkLdflags(t, b.Ldflags) })
	}
}

// checkLdflags checks one build's ldflags: stripped, and every -X names a
// declared string variable, version, commit and date among them.
func checkLdflags(t *testing.T, ldflags []string) {
	t.Helper()
	b := struct{ Ldflags []string }{ldflags}
	var words []string
	for _, l := range b.Ldflags {
		words = append(words, strings.Fields(l)...)
	}
	assert.Contains(t, words, "-s", "strip the symbol table")
	assert.Contains(t, words, "-w", "strip DWARF")

	module := modulePath(t)
	set := map[string]bool{}
	for i, w := range words {
		if w != "-X" {
			continue
		}
		require.Less(t, i+1, len(words), "-X without a value")
		name, value, ok := strings.Cut(words[i+1], "=")
		require.True(t, ok, "-X %s: want importpath.name=value", words[i+1])
		dot := strings.LastIndex(name, ".")
		require.Positive(t, dot, "-X %s: want importpath.name", name)
		pkg, v := name[:dot], name[dot+1:]
		rel, ok := strings.CutPrefix(pkg, module+"/")
		require.True(t, ok, "-X %s: %s is not a package of module %s", name, pkg, module)
		file := declaringFile(t, filepath.FromSlash(rel), v)
		assert.NotEmpty(t, file, "-X %s: no package-level string var %s (uninitialized or set to a constant string) in %s", name, v, rel)
		assert.NotEmpty(t, value, "-X %s: empty value", name)
		set[name] = true
	}
	for _, v := range []string{"version", "commit", "date"} {
		assert.True(t, set[module+"/cmd."+v], "ldflags do not set %s/cmd.%s, which retry --version prints", module, v)
	}
}

// modulePath reads the module path from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	f, err := os.Open("go.mod")
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	require.NoError(t, s.Err())
	t.Fatal("go.mod has no module line")
	return ""
}

// declaringFile returns the file of the package in dir that declares name
// as a package-level variable the linker's -X can set: of type string,
// with no initial value or a string literal. It returns "" if none does.
func declaringFile(t *testing.T, dir, name string) string {
	t.Helper()
	pkgFiles, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, file := range pkgFiles {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name == name && settable(vs, i) {
						return file
					}
				}
			}
		}
	}
	return ""
}

// settable reports whether the i-th variable of vs is a string the linker
// can set: typed string, or untyped and initialized to a string literal.
func settable(vs *ast.ValueSpec, i int) bool {
	if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "string" {
		if len(vs.Values) == 0 {
			return true
		}
	} else if vs.Type != nil {
		return false
	}
	if i >= len(vs.Values) {
		return false
	}
	lit, ok := vs.Values[i].(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

func TestReleasePackagesInstallBesideDebianRetry(t *testing.T) {
	t.Parallel()
	c := loadReleaseConfig(t)
	require.NotEmpty(t, c.NFPMs)
	binary := c.Builds[0].Binary
	for _, p := range c.NFPMs {
		t.Run(p.PackageName, func(t *testing.T) {
			assert.NotEmpty(t, p.PackageName, "the default package name is the project name, retry")
			assert.NotEqual(t, "retry", p.PackageName, "Debian already has a package named retry")
			assert.Subset(t, p.Formats, []string{"deb", "rpm"})

			bindir := p.Bindir
			if bindir == "" {
				bindir = "/usr/bin" // goreleaser's default
			}
			installed := []string{path.Join(bindir, binary)}
			var onPath []string
			for _, f := range p.Contents {
				installed = append(installed, f.Dst)
				if f.Type == "symlink" && path.Dir(f.Dst) == "/usr/bin" {
					assert.Equal(t, path.Join(bindir, binary), f.Src, "%s links to a file the package does not install", f.Dst)
					onPath = append(onPath, f.Dst)
				}
			}
			if bindir == "/usr/bin" {
				onPath = append(onPath, path.Join(bindir, binary))
			}
			assert.NotEmpty(t, onPath, "nothing of the package is on PATH")
			for _, owned := range debianRetry {
				assert.NotContains(t, installed, owned, "Debian's retry package owns %s", owned)
			}
		})
	}
}

func TestReleaseFilesExistOrAreMadeByHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the before hooks, which build retry")
	}
	t.Parallel()
	c := loadReleaseConfig(t)

	// Run each hook into a directory of its own, and look there for the
	// files under the directory it writes by default.
	made := map[string]string{}
	for _, h := range c.Before.Hooks {
		out, ok := hookOutputs[h]
		require.True(t, ok, "before hook %q: add it to hookOutputs", h)
		dir := t.TempDir()
		cmd := exec.Command(h, dir)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "before hook %s: %s", h, b)
		made[out] = dir
	}
	resolve := func(glob string) string {
		for out, dir := range made {
			if rest, ok := strings.CutPrefix(glob, out+"/"); ok {
				return filepath.Join(dir, filepath.FromSlash(rest))
			}
		}
		return filepath.FromSlash(glob)
	}

	var srcs []string
	for _, a := range c.Archives {
		assert.Equal(t, []string{"tar.gz"}, a.Formats)
		for _, f := range a.Files {
			srcs = append(srcs, f.Src)
		}
	}
	for _, p := range c.NFPMs {
		for _, f := range p.Contents {
			if f.Type != "symlink" { // a symlink's src is its target on the installed system
				srcs = append(srcs, f.Src)
			}
		}
	}
	require.NotEmpty(t, srcs)
	for _, src := range srcs {
		matches, err := filepath.Glob(resolve(src))
		require.NoError(t, err, src)
		assert.NotEmpty(t, matches, "%s is neither in the repository nor made by a before hook", src)
	}
}

func TestReleaseArchivesShipTheManPageAndReadme(t *testing.T) {
	t.Parallel()
	c := loadReleaseConfig(t)
	require.NotEmpty(t, c.Archives)
	for _, a := range c.Archives {
		for _, want := range []string{"README.md", "docs/man/retry.1"} {
			assert.True(t, slices.ContainsFunc(a.Files, func(f archiveFile) bool {
				m, err := filepath.Match(f.Src, want)
				return err == nil && m
			}), "no archive file entry matches %s", want)
		}
	}
}
