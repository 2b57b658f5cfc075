package main

// End-to-end tests of docs/cookbook.md. Every fenced block tagged {#name}
// in the cookbook is read out of the document and run as written, so the
// recipes cannot drift from what retry does. Only the network is replaced:
// a local HTTPS server stands in for download sites (curl is pointed at it
// by a .curlrc, so the recipe's URL stays as written), and fake git,
// docker, apt-get, npm, go, kubectl and terraform programs on PATH print
// the real tools' error messages and fail a given number of times. Every
// wait is cut short through RETRY_OPTS, which beats a policy but not the
// command line: that is why the recipes leave their waits to policies and
// defaults.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// cookbookRecipes are the tagged blocks of docs/cookbook.md, each run by a
// test below. TestCookbookEveryRecipeIsTested keeps this list and the
// document in step.
var cookbookRecipes = []string{
	"curl-download", "curl-pipe", "retry-after-script",
	"git-clone", "git-fetch", "docker-pull", "apt-get-install", "npm-ci",
	"go-mod-download", "kubectl-apply", "kubectl-rollout",
	"terraform-plan", "terraform-apply",
	"retry-toml", "makefile", "crontab", "systemd-unit", "supervise-port-forward",
	"github-actions", "gitlab-ci", "release-script",
}

// fastWaits shortens every wait of the recipes' schedules, and lets the
// failures of one moment open a circuit: the tests' outages last
// milliseconds, where a real one goes on failing for seconds.
const fastWaits = "--fast-delay 1ms --fast-max 1ms --slow-delay 10ms --slow-max 10ms --breaker-min-span 0"

// recipeBlock is a fenced block whose info string is a language and a
// {#name} tag: ```sh {#curl-download}.
var recipeBlock = regexp.MustCompile("(?ms)^```[a-z]+ \\{#([a-z0-9-]+)\\}\\n(.*?)^```[ \t]*$")

var cookbook = sync.OnceValues(func() (map[string]string, error) {
	doc, err := os.ReadFile(filepath.Join("docs", "cookbook.md"))
	if err != nil {
		return nil, err
	}
	blocks := map[string]string{}
	for _, m := range recipeBlock.FindAllStringSubmatch(string(doc), -1) {
		if _, dup := blocks[m[1]]; dup {
			return nil, fmt.Errorf("docs/cookbook.md: two blocks are tagged {#%s}", m[1])
		}
		blocks[m[1]] = m[2]
	}
	return blocks, nil
})

// recipe returns the text of the block tagged {#name}.
func recipe(t *testing.T, name string) string {
	t.Helper()
	blocks, err := cookbook()
	require.NoError(t, err)
	require.Contains(t, cookbookRecipes, name, "list the recipe in cookbookRecipes")
	text, ok := blocks[name]
	require.True(t, ok, "docs/cookbook.md has no block tagged {#%s}", name)
	return text
}

func TestCookbookEveryRecipeIsTested(t *testing.T) {
	t.Parallel()
	blocks, err := cookbook()
	require.NoError(t, err)
	var names []string
	for name := range blocks {
		names = append(names, name)
	}
	assert.ElementsMatch(t, cookbookRecipes, names, "every tagged block of docs/cookbook.md is run by a test, and every tested one is in the document")
}

// kitchen is a scratch project where recipes run: a directory marked as a
// repository root, retry and fake tools on PATH, and state, config and
// HOME of its own.
type kitchen struct {
	t    *testing.T
	root string
	dir  string   // where recipes run
	bin  []string // searched before the system's PATH
	env  []string
}

func newKitchen(t *testing.T) *kitchen {
	t.Helper()
	root := t.TempDir()
	k := &kitchen{t: t, root: root, dir: filepath.Join(root, "work")}
	require.NoError(t, os.MkdirAll(filepath.Join(k.dir, ".git"), 0o755))
	bin := filepath.Join(root, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	require.NoError(t, os.Symlink(retryBin, filepath.Join(bin, "retry")))
	k.bin = []string{bin}
	k.env = append(hermeticEnv(),
		"HOME="+filepath.Join(root, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"RETRY_OPTS="+fastWaits,
	)
	return k
}

// hermeticEnv is our environment without what would change how retry or
// the recipes behave: RETRY_*, CI systems' variables (a test run in GitHub
// Actions must not see annotations), proxies, HOME and XDG directories.
func hermeticEnv() []string {
	var env []string
	for _, kv := range cleanEnv() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		switch {
		case name == "CI", name == "PATH", name == "HOME", name == "CURL_HOME",
			strings.HasPrefix(name, "XDG_"), strings.HasSuffix(upper, "_PROXY"),
			strings.HasPrefix(name, "GITHUB_"), strings.HasPrefix(name, "RUNNER_"),
			strings.HasPrefix(name, "GITLAB_"), strings.HasPrefix(name, "CI_"),
			strings.HasPrefix(name, "BUILDKITE"), strings.HasPrefix(name, "CIRCLE"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (k *kitchen) path() string {
	return strings.Join(k.bin, ":") + ":" + os.Getenv("PATH")
}

// file writes a file below the kitchen's directory.
func (k *kitchen) file(name, content string, mode os.FileMode) string {
	k.t.Helper()
	p := filepath.Join(k.dir, name)
	require.NoError(k.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(k.t, os.WriteFile(p, []byte(content), mode))
	return p
}

// failAlways makes a fake fail every time.
const failAlways = 1 << 20

// fakeSpec is a stand-in for a tool. Run with arguments matching when (a sh
// case pattern for "$*", every call when empty), it fails its first fails
// calls, printing stderr and exiting code, then prints stdout and exits 0.
// Other calls exit 0 silently.
type fakeSpec struct {
	when   string
	fails  int
	code   int
	stderr string
	stdout string
	// onFail is sh run before a failure: to leave behind what the real
	// tool would.
	onFail string
}

// fakeCalls is a fake on the kitchen's PATH; it logs every call.
type fakeCalls struct {
	t          *testing.T
	count, log string
}

// calls is how many times the fake ran with matching arguments.
func (tl fakeCalls) calls() int {
	b, err := os.ReadFile(tl.count)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	require.NoError(tl.t, err)
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(tl.t, err)
	return n
}

// args are the arguments of every call, one line each.
func (tl fakeCalls) args() []string {
	b, err := os.ReadFile(tl.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(tl.t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func (k *kitchen) fake(name string, f fakeSpec) fakeCalls {
	k.t.Helper()
	dir := k.t.TempDir()
	tl := fakeCalls{t: k.t, count: filepath.Join(dir, "count"), log: filepath.Join(dir, "args")}
	errFile, outFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "stdout")
	require.NoError(k.t, os.WriteFile(errFile, []byte(f.stderr), 0o644))
	require.NoError(k.t, os.WriteFile(outFile, []byte(f.stdout), 0o644))
	when, onFail := f.when, f.onFail
	if when == "" {
		when = "*"
	}
	when = strings.ReplaceAll(when, " ", `\ `) // a pattern word for case
	if onFail == "" {
		onFail = ":"
	}
	script := fmt.Sprintf(`echo "$*" >> '%s'
case "$*" in
%s) ;;
*) exit 0 ;;
esac
n=$(( $(cat '%s' 2>/dev/null || echo 0) + 1 ))
echo "$n" > '%s'
if [ "$n" -le %d ]; then
	%s
	cat '%s' >&2
	exit %d
fi
cat '%s'`, tl.log, when, tl.count, tl.count, f.fails, onFail, errFile, f.code, outFile)
	k.bin = append(k.bin, fakeDir(k.t, name, script))
	return tl
}

// fakeDir makes an executable name with fakeTool and returns its directory.
func fakeDir(t *testing.T, name, script string) string {
	t.Helper()
	env := fakeTool(t, name, script)
	dir, _, _ := strings.Cut(strings.TrimPrefix(env[0], "PATH="), ":")
	return dir
}

// sh runs script with sh -c in the kitchen, as a shell, cron or a CI runner
// would, with env added.
func (k *kitchen) sh(script string, env ...string) result {
	k.t.Helper()
	return k.run([]string{"sh", "-c", script}, env...)
}

// run runs argv in the kitchen, finding argv[0] on the kitchen's PATH.
func (k *kitchen) run(argv []string, env ...string) result {
	k.t.Helper()
	return runCmd(k.t, k.command(argv, env...))
}

func (k *kitchen) command(argv []string, env ...string) *exec.Cmd {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(k.t.Context(), 30*time.Second)
	k.t.Cleanup(cancel)
	c := exec.CommandContext(ctx, k.lookPath(argv[0]), argv[1:]...)
	c.Args[0] = argv[0]
	c.Dir = k.dir
	c.Env = append(append(slices.Clone(k.env), "PATH="+k.path()), env...)
	c.WaitDelay = 5 * time.Second
	return c
}

func (k *kitchen) lookPath(name string) string {
	k.t.Helper()
	if strings.Contains(name, "/") {
		return name
	}
	for _, dir := range filepath.SplitList(k.path()) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	k.t.Fatalf("%s is not on the kitchen's PATH", name)
	return ""
}

// argAfter is the value after flag in argv.
func argAfter(t *testing.T, argv []string, flag string) string {
	t.Helper()
	i := slices.Index(argv, flag)
	require.True(t, i >= 0 && i+1 < len(argv), "%s in %q", flag, argv)
	return argv[i+1]
}

func parseSpan(t *testing.T, s string) time.Duration {
	t.Helper()
	// systemd writes minutes as min; Go as m.
	d, err := time.ParseDuration(strings.Replace(s, "min", "m", 1))
	require.NoError(t, err)
	return d
}

// deadlineIn is the --deadline of a command line held in a string.
func deadlineIn(t *testing.T, command string) time.Duration {
	t.Helper()
	return parseSpan(t, argAfter(t, strings.Fields(command), "--deadline"))
}

// Real messages of the tools, as the presets know them.
const (
	msgGitEarlyEOF = `error: RPC failed; curl 92 HTTP/2 stream 5 was not closed cleanly: CANCEL (err 8)
error: 6131 bytes of body are still expected
fetch-pack: unexpected disconnect while reading sideband packet
fatal: early EOF
fatal: fetch-pack: invalid index-pack output
`
	msgDockerTimeout = `Error response from daemon: Get "https://ghcr.io/v2/": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)
`
	msgGoTimeout = `go: github.com/stretchr/testify@v1.9.0: Get "https://proxy.golang.org/github.com/stretchr/testify/@v/v1.9.0.zip": dial tcp 142.250.74.81:443: i/o timeout
`
	msgNpmReset = `npm ERR! code ECONNRESET
npm ERR! syscall read
npm ERR! errno ECONNRESET
npm ERR! network request to https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz failed, reason: read ECONNRESET
npm ERR! network This is a problem related to network connectivity.
`
	msgTerraformLock = `╷
│ Error: Error acquiring the state lock
│ 
│ Error message: ConditionalCheckFailedException: The conditional request failed
│ Lock Info:
│   ID:        2b6a6738-5dd5-8d5a-1b3c-9f1d8c7e6a4f
│   Path:      example-tfstate/app/terraform.tfstate
│   Operation: OperationTypeApply
│   Who:       runner@ci-42
│   Version:   1.9.5
│   Created:   2025-01-14 09:12:44.123456 +0000 UTC
│   Info:      
│ 
│ Terraform acquires a state lock to protect the state from being written
│ by multiple users at the same time. Please resolve the issue above and try
│ again. For most commands, you can disable locking with the "-lock=false"
│ flag, but this is not recommended.
╵
`
)

// TestCookbookToolRecipes runs each single-command recipe twice: through
// two transient failures of its tool to a success, and into a failure that
// must never be retried.
func TestCookbookToolRecipes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		recipe, tool, when string
		args               string // the tool's arguments, as the recipe passes them
		code               int
		transient          string // printed by a failure that passes
		transientRule      string
		terminalCode       int
		terminal           string // printed by a failure that must not be retried
		terminalRule       string
	}{
		{
			recipe: "git-fetch", tool: "git", args: "fetch --prune --tags origin", code: 128,
			transient:     "fatal: unable to access 'https://github.com/example/app.git/': Could not resolve host: github.com\n",
			transientRule: `(transient: git preset, "Could not resolve host")`,
			terminalCode:  128,
			terminal:      "remote: Repository not found.\nfatal: repository 'https://github.com/example/app.git/' not found\n",
			terminalRule:  `(terminal: git preset, "repository 'https://github.com/example/`,
		},
		{
			recipe: "docker-pull", tool: "docker", args: "pull ghcr.io/example/app:1.4.2", code: 1,
			transient:     msgDockerTimeout,
			transientRule: `(transient: docker preset, "net/http: request canceled")`,
			terminalCode:  1,
			terminal:      "Error response from daemon: manifest for ghcr.io/example/app:1.4.2 not found: manifest unknown: manifest unknown\n",
			terminalRule:  `(terminal: docker preset, "not found")`,
		},
		{
			recipe: "apt-get-install", tool: "apt-get", when: "install*",
			args: "install -y --no-install-recommends ca-certificates curl", code: 100,
			transient: `E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 1207 (unattended-upgr)
N: Be aware that removing the lock file is not a solution and may break your system.
E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?
`,
			transientRule: `(transient: apt preset, "Unable to acquire the dpkg frontend lock")`,
			terminalCode:  100,
			terminal:      "Reading package lists...\nBuilding dependency tree...\nReading state information...\nE: Unable to locate package curl\n",
			terminalRule:  `(terminal: apt preset, "Unable to locate package")`,
		},
		{
			recipe: "npm-ci", tool: "npm", args: "ci --no-audit --no-fund", code: 1,
			transient:     msgNpmReset,
			transientRule: `(transient: npm preset, "ECONNRESET")`,
			terminalCode:  1,
			terminal:      "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/left-padd - Not found\nnpm ERR! 404 \n",
			terminalRule:  `(terminal: npm preset, "404 Not Found")`,
		},
		{
			recipe: "go-mod-download", tool: "go", args: "mod download", code: 1,
			transient:     msgGoTimeout,
			transientRule: `(transient: go preset, "i/o timeout")`,
			terminalCode:  1,
			terminal: `verifying github.com/example/lib@v1.2.3: checksum mismatch
	downloaded: h1:5Yn3bDYFUpLlSbmvJ5Wr3zQ0kvUSVEd8fbBJK1WvJpE=
	go.sum:     h1:QxbIh4vYvjMWlQUHK+EcCwNA0xbL5C+WHP8pk6YAFx4=

SECURITY ERROR
This download does NOT match an earlier download recorded in go.sum.
`,
			terminalRule: `(terminal: go preset, "SECURITY ERROR")`,
		},
		{
			recipe: "kubectl-apply", tool: "kubectl", args: "apply -f k8s/", code: 1,
			transient:     `Error from server (InternalError): error when creating "k8s/ingress.yaml": Internal error occurred: failed calling webhook "validate.nginx.ingress.kubernetes.io": failed to call webhook: Post "https://ingress-nginx-controller-admission.ingress-nginx.svc:443/networking/v1/ingresses?timeout=10s": dial tcp 10.96.12.34:443: connect: connection refused` + "\n",
			transientRule: `(transient: kubectl preset, "failed calling webhook")`,
			terminalCode:  1,
			terminal:      `error: error validating "k8s/deploy.yaml": error validating data: ValidationError(Deployment.spec): unknown field "replica" in io.k8s.api.apps.v1.DeploymentSpec; if you choose to ignore these errors, turn validation off with --validate=false` + "\n",
			terminalRule:  `(terminal: kubectl preset, "error validating")`,
		},
		{
			recipe: "kubectl-rollout", tool: "kubectl", args: "rollout status deployment/app -n shop", code: 1,
			transient:     "Unable to connect to the server: net/http: TLS handshake timeout\n",
			transientRule: `(transient: kubectl preset, "Unable to connect to the server")`,
			terminalCode:  1,
			terminal:      `Waiting for deployment "app" rollout to finish: 1 out of 3 new replicas have been updated...` + "\n" + `error: deployment "app" exceeded its progress deadline` + "\n",
			terminalRule:  `(terminal: --stop-if "exceeded its progress deadline")`,
		},
		{
			recipe: "terraform-plan", tool: "terraform", args: "plan -input=false -detailed-exitcode -out=tfplan", code: 1,
			transient:     msgTerraformLock,
			transientRule: `(transient: terraform preset, "Error acquiring the state lock")`,
			// -detailed-exitcode: 2 means changes are present, passed through.
			terminalCode: 2,
			terminal:     "Plan: 2 to add, 0 to change, 0 to destroy.\n",
			terminalRule: `(terminal: terraform preset, exit 2 (plan -detailed-exitcode`,
		},
		{
			recipe: "terraform-apply", tool: "terraform", args: "apply -input=false tfplan", code: 1,
			transient:     msgTerraformLock,
			transientRule: `(transient: --retry-if "Error acquiring the state lock")`,
			// The preset would retry a 503; the recipe's allow-list must not,
			// in the middle of an apply.
			terminalCode: 1,
			terminal:     "aws_instance.web: Creating...\n╷\n│ Error: creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 503, RequestID: 0b7e8f5c-6c1e-4d0c-9d7a-1f3e2a4b5c6d, api error Unavailable: Service Unavailable\n╵\n",
			terminalRule: "(terminal: no --retry-on-exit or --retry-if rule matched)",
		},
	} {
		t.Run(tc.recipe, func(t *testing.T) {
			t.Parallel()
			command := recipe(t, tc.recipe)
			when := tc.when
			if when == "" {
				when = tc.args
			}
			t.Run("blips pass", func(t *testing.T) {
				t.Parallel()
				k := newKitchen(t)
				tl := k.fake(tc.tool, fakeSpec{when: when, fails: 2, code: tc.code, stderr: tc.transient, stdout: "done\n"})
				r := k.sh(command)
				assert.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, 3, tl.calls())
				assert.Contains(t, r.stderr, fmt.Sprintf("attempt 1/5 failed: exit %d %s", tc.code, tc.transientRule))
				assert.Contains(t, r.stderr, "succeeded on attempt 3")
				assert.Contains(t, r.stdout, "done\n")
				assert.Contains(t, tl.args(), tc.args)
			})
			t.Run("never retried", func(t *testing.T) {
				t.Parallel()
				k := newKitchen(t)
				tl := k.fake(tc.tool, fakeSpec{when: when, fails: failAlways, code: tc.terminalCode, stderr: tc.terminal})
				r := k.sh(command)
				assert.Equal(t, tc.terminalCode, r.code, r.stderr)
				assert.Equal(t, 1, tl.calls())
				assert.Contains(t, r.stderr, "after 1 attempt")
				assert.Contains(t, r.stderr, fmt.Sprintf("exit %d %s", tc.terminalCode, tc.terminalRule))
			})
		})
	}
}

func TestCookbookGitClone(t *testing.T) {
	t.Parallel()
	command := recipe(t, "git-clone")
	// The fake leaves a half-done clone behind, as one killed by --timeout
	// would, and refuses to clone into it, as git does.
	clone := fakeSpec{
		when: "clone*", fails: 2, code: 128, stderr: msgGitEarlyEOF,
		onFail: "mkdir -p app/.git && echo partial > app/.git/packed-refs",
	}
	refuse := `if [ -n "$(ls -A app 2>/dev/null)" ]; then echo "fatal: destination path 'app' already exists and is not an empty directory." >&2; exit 128; fi`

	t.Run("the hook clears the half-done clone", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		f := clone
		f.onFail = refuse + "\n\t" + f.onFail
		tl := k.fake("git", f)
		r := k.sh(command)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 3, tl.calls())
		assert.Contains(t, r.stderr, `attempt 1/5 failed: exit 128 (transient: git preset, "early EOF")`)
		assert.Contains(t, tl.args(), "clone --filter=blob:none https://github.com/example/app.git app")
	})

	t.Run("without the hook the next attempt stops", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		f := clone
		f.onFail = refuse + "\n\t" + f.onFail
		tl := k.fake("git", f)
		without := strings.Replace(command, " --on-retry 'rm -rf app'", "", 1)
		require.NotEqual(t, command, without, "the recipe cleans up with --on-retry 'rm -rf app'")
		r := k.sh(without)
		assert.Equal(t, 128, r.code)
		assert.Equal(t, 2, tl.calls())
		assert.Contains(t, r.stderr, `exit 128 (terminal: git preset, "already exists and is not an empty dire`)
	})
}

// downloadServer serves a release the way a busy server does: first a 503
// with Retry-After, then a transfer cut halfway, then the rest on request.
type downloadServer struct {
	*httptest.Server
	content  []byte
	notFound bool
	mu       sync.Mutex
	ranges   []string // the Range header of every request
}

const downloadHost = "downloads.example.com"

func newDownloadServer(t *testing.T, notFound bool) *downloadServer {
	t.Helper()
	s := &downloadServer{content: bytes.Repeat([]byte("0123456789abcdef"), 8<<10), notFound: notFound}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cookbookCert(t, downloadHost)}}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *downloadServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	n := len(s.ranges)
	s.mu.Unlock()
	switch {
	case s.notFound || r.Host != downloadHost || r.URL.Path != "/app/1.4.2/app.tar.gz":
		http.NotFound(w, r)
	case n == 1:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	case n == 2:
		w.Header().Set("Content-Length", strconv.Itoa(len(s.content)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(s.content[:len(s.content)/2])
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // cut the transfer
	default:
		http.ServeContent(w, r, "app.tar.gz", time.Unix(1700000000, 0), bytes.NewReader(s.content))
	}
}

func (s *downloadServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ranges)
}

// cookbookCert is a certificate for host.
func cookbookCert(t *testing.T, host string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: host},
		DNSNames:              []string{host},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// pointCurlAt makes curl in the kitchen connect to s for downloadHost and
// trust its certificate, through a .curlrc: the recipe's URL stays as
// written.
func (k *kitchen) pointCurlAt(s *downloadServer) {
	k.t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		k.t.Skip("curl is not installed: the curl recipes need it")
	}
	home := filepath.Join(k.root, "curl")
	require.NoError(k.t, os.Mkdir(home, 0o755))
	ca := filepath.Join(home, "ca.pem")
	cert := s.TLS.Certificates[0].Certificate[0]
	require.NoError(k.t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert}), 0o644))
	// An IPv6 address comes in brackets, as connect-to wants it.
	rc := fmt.Sprintf("connect-to = \"%s:443:%s\"\ncacert = \"%s\"\nnoproxy = \"*\"\n", downloadHost, s.Listener.Addr(), ca)
	require.NoError(k.t, os.WriteFile(filepath.Join(home, ".curlrc"), []byte(rc), 0o644))
	k.env = append(k.env, "CURL_HOME="+home)
}

func TestCookbookCurlDownload(t *testing.T) {
	t.Parallel()
	command := recipe(t, "curl-download")

	t.Run("waits as asked, resumes the cut transfer", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		s := newDownloadServer(t, false)
		k.pointCurlAt(s)
		r := k.sh(command)
		require.Equal(t, 0, r.code, r.stderr)
		got, err := os.ReadFile(filepath.Join(k.dir, "app.tar.gz"))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(s.content, got), "the file is whole")
		assert.Contains(t, r.stderr, `attempt 1/5 failed: exit 22 (transient: curl preset, "returned error: 503"); retrying in 1s (retry-after phase)`)
		assert.Regexp(t, `attempt 2/5 failed: exit (18|56) \(transient: curl preset`, r.stderr, "the cut transfer")
		assert.GreaterOrEqual(t, r.elapsed, time.Second, "Retry-After: 1 was honoured")
		assert.Equal(t, []string{"", "", fmt.Sprintf("bytes=%d-", len(s.content)/2)}, s.requests(), "the third attempt asks only for the missing half")
	})

	t.Run("a 404 is not retried", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		s := newDownloadServer(t, true)
		k.pointCurlAt(s)
		r := k.sh(command)
		assert.Equal(t, 22, r.code, r.stderr)
		assert.Len(t, s.requests(), 1)
		assert.Contains(t, r.stderr, `after 1 attempt`)
		assert.Contains(t, r.stderr, `exit 22 (terminal: curl preset, "returned error: 404")`)
	})
}

func TestCookbookCurlPipe(t *testing.T) {
	t.Parallel()
	command := recipe(t, "curl-pipe")
	// The server answers 503 with Retry-After: 1, then cuts the transfer
	// halfway, then sends the whole body.
	t.Run("the reader gets the whole body once", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		s := newDownloadServer(t, false)
		k.pointCurlAt(s)
		r := k.sh(command)
		require.Equal(t, 0, r.code, r.stderr)
		sum := sha256.Sum256(s.content)
		assert.Equal(t, hex.EncodeToString(sum[:])+"  -\n", r.stdout)
		assert.NotContains(t, r.stderr, "retry: warning: attempt")
		assert.NotContains(t, r.stderr, "output of failed attempt", "the cut body is dropped")
	})

	t.Run("passed through, the reader gets half and then the whole, and is told", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		s := newDownloadServer(t, false)
		k.pointCurlAt(s)
		r := k.sh(strings.Replace(command, "--stdout buffer --drop-failed-output ", "", 1))
		require.Equal(t, 0, r.code, r.stderr)
		both := sha256.Sum256(append(slices.Clone(s.content[:len(s.content)/2]), s.content...))
		assert.Equal(t, hex.EncodeToString(both[:])+"  -\n", r.stdout)
		assert.Contains(t, r.stderr, "retry: warning: attempt 2 failed after writing 64 KiB to stdout; attempt 3's output will follow them")
	})
}

func TestCookbookRetryAfterScript(t *testing.T) {
	t.Parallel()
	command := recipe(t, "retry-after-script")
	// The script stands in for one that talks to an API and reports the
	// server's answer in its own words, with the exit codes the recipe's
	// notes ask for.
	script := func(k *kitchen, failure string, code int) fakeCalls {
		tl := fakeCalls{t: k.t, count: filepath.Join(k.root, "count"), log: filepath.Join(k.root, "args")}
		k.file("scripts/sync-inventory", fmt.Sprintf(`#!/bin/sh
echo "$*" >> '%s'
n=$(( $(cat '%s' 2>/dev/null || echo 0) + 1 )); echo "$n" > '%s'
if [ "$n" -eq 1 ]; then echo '%s' >&2; exit %d; fi
echo "sync-inventory: 1204 items updated"
`, tl.log, tl.count, tl.count, failure, code), 0o755)
		return tl
	}

	t.Run("the wait the server asked for", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		tl := script(k, "sync-inventory: 429 Too Many Requests, Retry-After: 1", 75)
		r := k.sh(command)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 2, tl.calls())
		assert.Contains(t, r.stderr, "attempt 1/5 failed: exit 75 (transient: sysexits EX_TEMPFAIL); retrying in 1s (retry-after phase)")
		assert.GreaterOrEqual(t, r.elapsed, time.Second)
	})

	t.Run("EX_DATAERR is not retried", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		tl := script(k, "sync-inventory: 404 Not Found: /v2/inventory", 65)
		r := k.sh(command)
		assert.Equal(t, 65, r.code, r.stderr)
		assert.Equal(t, 1, tl.calls())
		assert.Contains(t, r.stderr, "exit 65 (terminal: sysexits EX_DATAERR)")
	})
}

// policyNames are the policies a .retry.toml defines, in order.
func policyNames(toml string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\[policies\.([A-Za-z0-9_-]+)\]`).FindAllStringSubmatch(toml, -1) {
		names = append(names, m[1])
	}
	return names
}

func TestCookbookPolicies(t *testing.T) {
	t.Parallel()
	toml := recipe(t, "retry-toml")
	k := newKitchen(t)
	k.file(".retry.toml", toml, 0o644)
	names := policyNames(toml)
	require.NotEmpty(t, names)
	for _, name := range names {
		r := k.run([]string{"retry", "plan", "-p", name})
		assert.Equal(t, 0, r.code, "policy %s: %s", name, r.stderr)
		assert.Empty(t, r.stderr, name)
	}
	r := k.run([]string{"retry", "plan", "-v", "-p", "registry"})
	assert.Contains(t, r.stdout, "attempts: 6; deadline: 10m0s; per-attempt timeout: 5m0s")
	assert.Regexp(t, `--slow-max\s+10ms\s+from RETRY_OPTS`, r.stdout, "RETRY_OPTS beats the policy, as the cookbook says")
}

func TestCookbookMakefile(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed: the Makefile recipe needs it")
	}
	makefile, toml := recipe(t, "makefile"), recipe(t, "retry-toml")
	setup := func(t *testing.T) *kitchen {
		k := newKitchen(t)
		k.file("Makefile", makefile, 0o644)
		k.file(".retry.toml", toml, 0o644)
		return k
	}

	t.Run("deps rides out a blip", func(t *testing.T) {
		t.Parallel()
		k := setup(t)
		npm := k.fake("npm", fakeSpec{fails: 2, code: 1, stderr: msgNpmReset, stdout: "added 312 packages in 4s\n"})
		r := k.run([]string{"make", "deps"})
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 3, npm.calls())
		assert.Contains(t, r.stderr, "attempt 1/6 failed", "the registry policy's attempts")
	})

	t.Run("a terminal failure fails the target", func(t *testing.T) {
		t.Parallel()
		k := setup(t)
		npm := k.fake("npm", fakeSpec{fails: failAlways, code: 1, stderr: "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/left-padd - Not found\n"})
		r := k.run([]string{"make", "deps"})
		assert.Equal(t, 2, r.code, "make's own code")
		assert.Equal(t, 1, npm.calls())
		assert.Contains(t, r.stderr, "make: *** [Makefile:4: deps] Error 1", "as the cookbook quotes it")
	})

	t.Run("deploy", func(t *testing.T) {
		t.Parallel()
		k := setup(t)
		docker := k.fake("docker", fakeSpec{stdout: "Status: Image is up to date for ghcr.io/example/base:bookworm\n"})
		kubectl := k.fake("kubectl", fakeSpec{fails: 1, code: 1, stderr: "The connection to the server api.prod.example.com:6443 was refused - did you specify the right host or port?\n", stdout: "deployment.apps/app configured\n"})
		r := k.run([]string{"make", "deploy"})
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 1, docker.calls())
		assert.Equal(t, 2, kubectl.calls())
		assert.Contains(t, r.stderr, `attempt 1/8 failed: exit 1 (transient: kubectl preset, "connection to the server`)
	})
}

// parseCrontab splits a crontab into its environment assignments and its jobs'
// commands.
func parseCrontab(t *testing.T, text string) (env map[string]string, commands []string) {
	t.Helper()
	env = map[string]string{}
	assignment := regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$`)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := assignment.FindStringSubmatch(line); m != nil {
			env[m[1]] = m[2]
			continue
		}
		fields := strings.Fields(line)
		require.Greater(t, len(fields), 5, "a job line: %q", line)
		// The command is what follows the five time fields.
		rest := line
		for range 5 {
			rest = strings.TrimLeft(rest, " \t")
			rest = rest[strings.IndexAny(rest, " \t"):]
		}
		commands = append(commands, strings.TrimSpace(rest))
	}
	return env, commands
}

func TestCookbookCron(t *testing.T) {
	t.Parallel()
	cronEnv, commands := parseCrontab(t, recipe(t, "crontab"))
	require.Len(t, commands, 1)
	command := commands[0]
	assert.NotContains(t, command, "%", "cron turns % into a newline")
	k := newKitchen(t)
	backup := k.fake("backup-db", fakeSpec{fails: 2, code: 1, stderr: `pg_dump: error: connection to server at "db.internal" (10.0.0.5), port 5432 failed: Connection refused
	Is the server running on that host and accepting TCP/IP connections?
`})
	// Cron's environment is the crontab's; PATH and the textfile directory
	// are the two stand-ins.
	textfiles := filepath.Join(k.root, "textfile")
	require.NoError(t, os.Mkdir(textfiles, 0o755))
	require.Contains(t, cronEnv, "PATH")
	require.Contains(t, cronEnv, "TEXTFILE_DIR")
	var env []string
	for name, value := range cronEnv {
		env = append(env, name+"="+value)
	}
	env = append(env, "PATH="+k.path(), "TEXTFILE_DIR="+textfiles)

	r := k.sh(command, env...)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "retry:", "-q: no mail from cron for a job that got through")
	r = k.sh(command, env...)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 4, backup.calls(), "3 attempts, then 1")
	assert.Contains(t, backup.args(), "--target s3://backups.example.com/db")

	f, err := os.Open(filepath.Join(textfiles, "retry.prom"))
	require.NoError(t, err)
	defer f.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(f)
	require.NoError(t, err, "node_exporter can read the file")
	value := func(metric string, labels map[string]string) float64 {
		t.Helper()
		fam, ok := families[metric]
		require.True(t, ok, metric)
		for _, m := range fam.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if fmt.Sprint(got) == fmt.Sprint(labels) {
				if m.GetCounter() != nil {
					return m.GetCounter().GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
		t.Fatalf("no %s%v", metric, labels)
		return 0
	}
	name := map[string]string{"name": "nightly-backup"}
	assert.Equal(t, 4.0, value("retry_attempts_total", name))
	assert.Equal(t, 2.0, value("retry_runs_total", map[string]string{"name": "nightly-backup", "outcome": "success"}))
	assert.Equal(t, 0.0, value("retry_runs_total", map[string]string{"name": "nightly-backup", "outcome": "exhausted"}))
	assert.Equal(t, 1.0, value("retry_last_attempts", name))
	assert.InDelta(t, float64(time.Now().Unix()), value("retry_last_run_timestamp_seconds", name), 60)
}

// unitService reads a systemd unit's [Service] settings.
func unitService(text string) map[string]string {
	settings := map[string]string{}
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", strings.HasPrefix(line, "#"), strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			key, value, _ := strings.Cut(line, "=")
			settings[key] = value
		}
	}
	return settings
}

func TestCookbookSystemd(t *testing.T) {
	t.Parallel()
	service := unitService(recipe(t, "systemd-unit"))
	execStart := service["ExecStart"]
	// systemd splits ExecStart itself, with quotes, specifiers and
	// variables; without any of them, splitting at spaces is the same.
	require.NotRegexp(t, `["'\\$%;]`, execStart)
	argv := strings.Fields(execStart)
	require.Equal(t, "retry", argv[0])

	t.Run("retry gives up before systemd kills it", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, "oneshot", service["Type"], "TimeoutStartSec bounds the whole ExecStart")
		assert.NotContains(t, service, "Restart", "one retry layer")
		deadline := parseSpan(t, argAfter(t, argv, "--deadline"))
		killAfter := parseSpan(t, argAfter(t, argv, "--kill-after"))
		assert.Less(t, deadline+killAfter, parseSpan(t, service["TimeoutStartSec"]))
		assert.Equal(t, "mixed", service["KillMode"])
		assert.Less(t, killAfter, parseSpan(t, service["TimeoutStopSec"]))
	})

	t.Run("ExecStart rides out an outage", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		sync := k.fake("sync-catalog", fakeSpec{fails: 2, code: 1, stderr: "sync-catalog: GET https://supplier.example.com/v1/catalogue: 503 Service Unavailable\n"})
		r := k.run(argv)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 3, sync.calls())
		assert.Equal(t, []string{"--since 24h", "--since 24h", "--since 24h"}, sync.args())
	})

	t.Run("systemctl stop", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		pidFile := filepath.Join(k.root, "pid")
		k.bin = append(k.bin, fakeDir(t, "sync-catalog", fmt.Sprintf("echo $$ > '%s'\nexec sleep 60", pidFile)))
		c := k.command(argv)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		require.NoError(t, c.Start())
		var pid int
		require.Eventually(t, func() bool {
			b, err := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil && pid > 0
		}, 10*time.Second, 10*time.Millisecond)
		// KillMode=mixed: SIGTERM goes to retry, the main process, alone.
		// retry ends by it, which systemd counts as a clean stop (exit 143
		// would be a failure).
		start := time.Now()
		require.NoError(t, c.Process.Signal(syscall.SIGTERM))
		_ = c.Wait()
		requireDiedOf(t, c.ProcessState, syscall.SIGTERM, stderr.String())
		assert.Less(t, time.Since(start), 5*time.Second, "well inside TimeoutStopSec")
		assert.Eventually(t, func() bool {
			return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		}, 5*time.Second, 10*time.Millisecond, "the attempt did not outlive retry")
	})
}

func TestCookbookSupervisePortForward(t *testing.T) {
	t.Parallel()
	argv := strings.Fields(strings.TrimSpace(recipe(t, "supervise-port-forward")))
	require.Equal(t, "retry", argv[0])
	require.Contains(t, argv, "--forever")

	t.Run("rides out drops until it is stopped", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		calls, pidFile := filepath.Join(k.root, "calls"), filepath.Join(k.root, "pid")
		// Three dropped connections, then a forward that stays up.
		k.bin = append(k.bin, fakeDir(t, "kubectl", fmt.Sprintf(`echo "$*" >> '%s'
if [ "$(wc -l < '%s')" -le 3 ]; then
	echo 'error: lost connection to pod' >&2
	exit 1
fi
echo $$ > '%s'
echo 'Forwarding from 127.0.0.1:5432 -> 5432'
exec sleep 60`, calls, calls, pidFile)))
		c := k.command(argv)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		require.NoError(t, c.Start())
		var pid int
		require.Eventually(t, func() bool {
			b, err := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil && pid > 0
		}, 20*time.Second, 10*time.Millisecond)
		require.NoError(t, c.Process.Signal(syscall.SIGTERM))
		_ = c.Wait()
		requireDiedOf(t, c.ProcessState, syscall.SIGTERM, stderr.String())
		assert.Contains(t, stderr.String(), "attempt 3 failed: exit 1 (transient", "no attempt limit in the lines")
		assert.Contains(t, stderr.String(), "stopped kubectl after 4 attempts")
		b, err := os.ReadFile(calls)
		require.NoError(t, err)
		assert.Equal(t, strings.Repeat("port-forward svc/db 5432:5432\n", 4), string(b))
		assert.Eventually(t, func() bool {
			return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		}, 10*time.Second, 10*time.Millisecond, "the forward did not outlive retry")
	})

	t.Run("a permanent failure ends it at once", func(t *testing.T) {
		t.Parallel()
		k := newKitchen(t)
		kubectl := k.fake("kubectl", fakeSpec{fails: failAlways, code: 1, stderr: "Error from server (NotFound): services \"db\" not found\n"})
		r := k.run(argv)
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Equal(t, 1, kubectl.calls())
		assert.Contains(t, r.stderr, "giving up on kubectl after 1 attempt")
		assert.Contains(t, r.stderr, "terminal failure")
	})
}

// actionsWorkflow is the part of a GitHub Actions workflow the test runs.
type actionsWorkflow struct {
	Jobs map[string]struct {
		TimeoutMinutes int               `yaml:"timeout-minutes"`
		Env            map[string]string `yaml:"env"`
		Steps          []struct {
			Name string `yaml:"name"`
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// actionsExpressions are the ${{ }} expressions the runner would replace.
func actionsExpressions(t *testing.T, s string, values map[string]string) string {
	t.Helper()
	return regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`).ReplaceAllStringFunc(s, func(e string) string {
		name := strings.TrimSpace(e[3 : len(e)-2])
		v, ok := values[name]
		assert.True(t, ok, "the test knows no value for ${{ %s }}", name)
		return v
	})
}

// actionsJob sets up a kitchen as a runner would for the workflow's job:
// its environment, with GITHUB_ACTIONS=true; it returns the job's run:
// steps by name.
func actionsJob(t *testing.T) (*kitchen, []string, map[string]string) {
	t.Helper()
	var wf actionsWorkflow
	require.NoError(t, yaml.Unmarshal([]byte(recipe(t, "github-actions")), &wf))
	job, ok := wf.Jobs["test"]
	require.True(t, ok)
	k := newKitchen(t)
	temp := filepath.Join(k.root, "runner-temp")
	require.NoError(t, os.Mkdir(temp, 0o755))
	values := map[string]string{
		"runner.temp": temp, "github.run_id": "9876543210", "github.run_attempt": "1",
		"github.job": "test", "strategy.job-index": "1",
	}
	env := []string{
		"CI=true", "GITHUB_ACTIONS=true", "GITHUB_REPOSITORY=example/app", "GITHUB_RUN_ID=9876543210",
		"GITHUB_JOB=test", "GITHUB_RUN_ATTEMPT=1", "RUNNER_TEMP=" + temp,
	}
	for name, value := range job.Env {
		value = actionsExpressions(t, value, values)
		if name == "RETRY_OPTS" {
			value += " " + fastWaits // the job's options, with the test's waits
		}
		env = append(env, name+"="+value)
	}
	k.env = append(k.env, env...)
	steps := map[string]string{}
	var order []string
	for _, s := range job.Steps {
		if s.Run == "" {
			continue
		}
		assert.Less(t, deadlineIn(t, s.Run), time.Duration(job.TimeoutMinutes)*time.Minute, "%s: retry gives up before the job's timeout", s.Name)
		steps[s.Name] = s.Run
		order = append(order, s.Name)
	}
	return k, order, steps
}

// step runs a run: script as the runner does on Linux when the step names
// no shell: bash -e.
func (k *kitchen) step(run string) result {
	k.t.Helper()
	return k.run([]string{"bash", "-e", "-c", run})
}

func TestCookbookGitHubActions(t *testing.T) {
	t.Parallel()

	t.Run("retries are annotated", func(t *testing.T) {
		t.Parallel()
		k, order, steps := actionsJob(t)
		require.Equal(t, []string{"Download modules", "Pull the test database"}, order)
		goTool := k.fake("go", fakeSpec{fails: 2, code: 1, stderr: msgGoTimeout})
		docker := k.fake("docker", fakeSpec{stdout: "16: Pulling from example/postgres\nStatus: Downloaded newer image for ghcr.io/example/postgres:16\n"})

		r := k.step(steps["Download modules"])
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 3, goTool.calls())
		assert.Contains(t, r.stderr, `::warning title=retry::attempt 1/5 failed: exit 1 (transient: go preset, "i/o timeout")`)
		assert.Contains(t, r.stderr, "::group::retry: attempt 2/5\n")
		assert.NotContains(t, r.stderr, "::error")

		r = k.step(steps["Pull the test database"])
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 1, docker.calls())
		assert.NotContains(t, r.stderr, "::", "a first-time success is silent")

		state := filepath.Join(k.root, "runner-temp", "retry-state")
		runs, _ := filepath.Glob(filepath.Join(state, "run-9876543210-1-test-1-*.json"))
		assert.Len(t, runs, 1, "the run budget is kept under RETRY_RUN_ID in RETRY_STATE")
		circuits, _ := filepath.Glob(filepath.Join(state, "cb-proxy.golang.org-*.json"))
		assert.Len(t, circuits, 1, "the breaker state is in RETRY_STATE")
	})

	t.Run("an outage opens the circuit and the next step waits for it", func(t *testing.T) {
		t.Parallel()
		k, _, steps := actionsJob(t)
		withRetryOpts(k, "--breaker-cooldown 1s")
		docker := k.fake("docker", fakeSpec{fails: 5, code: 1, stderr: msgDockerTimeout})
		pull := steps["Pull the test database"]

		r := k.step(pull)
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Equal(t, 5, docker.calls())
		assert.Contains(t, r.stderr, "::error title=retry::giving up on docker after 5 attempts")

		r = k.step(pull)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, 6, docker.calls(), "nothing ran while the circuit was open; then one probe")
		assert.Contains(t, r.stderr, `retry: circuit "ghcr.io" is open`)
		assert.Contains(t, r.stderr, `waiting for its next probe`)
	})
}

// withRetryOpts adds flags to the RETRY_OPTS of k's job.
func withRetryOpts(k *kitchen, flags string) {
	for i := len(k.env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(k.env[i], "RETRY_OPTS="); ok {
			k.env = append(k.env, "RETRY_OPTS="+v+" "+flags)
			return
		}
	}
	k.env = append(k.env, "RETRY_OPTS="+flags)
}

func TestCookbookGitHubActionsAnnotatesAnOpenCircuit(t *testing.T) {
	t.Parallel()
	k, _, steps := actionsJob(t)
	withRetryOpts(k, "--when-open fail")
	k.fake("docker", fakeSpec{fails: failAlways, code: 1, stderr: msgDockerTimeout})
	pull := steps["Pull the test database"]
	_ = k.step(pull)
	r := k.step(pull)
	require.Equal(t, 75, r.code, r.stderr)
	assert.Contains(t, r.stderr, `::error title=retry::circuit "ghcr.io" is open`)
}

// gitlabJob is the part of .gitlab-ci.yml the test runs.
type gitlabJob struct {
	Script []string `yaml:"script"`
	Retry  struct {
		Max  int      `yaml:"max"`
		When []string `yaml:"when"`
	} `yaml:"retry"`
}

func TestCookbookGitLab(t *testing.T) {
	t.Parallel()
	var pipeline struct {
		Variables map[string]string `yaml:"variables"`
		Test      gitlabJob         `yaml:"test"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(recipe(t, "gitlab-ci")), &pipeline))
	job, variables := pipeline.Test, pipeline.Variables
	require.NotEmpty(t, job.Script)
	assert.NotContains(t, job.Retry.When, "script_failure", "GitLab's job retry would repeat every retry inside")

	k := newKitchen(t)
	k.env = append(k.env, "CI=true", "GITLAB_CI=true", "CI_JOB_ID=4711")
	for name, value := range variables {
		if name == "RETRY_OPTS" {
			value += " " + fastWaits // the job's options, with the test's waits
		}
		k.env = append(k.env, name+"="+value)
	}
	goTool := k.fake("go", fakeSpec{when: "mod download", fails: 4, code: 1, stderr: msgGoTimeout})
	npm := k.fake("npm", fakeSpec{fails: failAlways, code: 1, stderr: msgNpmReset})

	// The runner runs the lines in one shell and stops at the first failure.
	r := k.run([]string{"sh", "-e", "-c", strings.Join(job.Script, "\n")})
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, 5, goTool.calls(), "4 of the job's 6 retries")
	assert.Equal(t, 3, npm.calls(), "the last 2")
	assert.Contains(t, r.stderr, "giving up on npm after 3 attempts")
	assert.Contains(t, r.stderr, "run retry budget (6) spent")
	assert.NotContains(t, goTool.args(), "test ./...", "the job stopped at the failed line")
	runs, _ := filepath.Glob(filepath.Join(k.root, "state", "retry", "run-gitlab_4711-*.json"))
	assert.Len(t, runs, 1, "the budget belongs to gitlab:$CI_JOB_ID")
}

func TestCookbookReleaseScript(t *testing.T) {
	t.Parallel()
	script := recipe(t, "release-script")
	k := newKitchen(t)
	k.file(".retry.toml", recipe(t, "retry-toml"), 0o644)
	git := k.fake("git", fakeSpec{fails: 3, code: 128, stderr: msgGitEarlyEOF})
	docker := k.fake("docker", fakeSpec{fails: 1, code: 1, stderr: msgDockerTimeout})
	npm := k.fake("npm", fakeSpec{fails: failAlways, code: 1, stderr: msgNpmReset})

	r := k.sh(script)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, 4, git.calls())
	assert.Equal(t, 2, docker.calls())
	assert.Equal(t, 2, npm.calls(), "one retry left of the run's 5")
	assert.Contains(t, r.stderr, "run retry budget (5) spent")
	assert.NotRegexp(t, `retrying in [1-9][0-9.]*s \(`, r.stderr, "the caller's RETRY_OPTS (the test's short waits) still apply")
	runs, _ := filepath.Glob(filepath.Join(k.root, "state", "retry", "run-release-*.json"))
	assert.Len(t, runs, 1, "the budget belongs to RETRY_RUN_ID")
}
