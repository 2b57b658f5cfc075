package exitcodes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDetectPresetLooksThroughWrappers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"plain program", []string{"curl", "-fsS", "https://x"}, "curl"},
		{"absolute path", []string{"/usr/bin/git", "fetch"}, "git"},
		{"relative path", []string{"./bin/kubectl", "get", "pods"}, "kubectl"},
		{"helm is kubectl's preset", []string{"helm", "upgrade", "--install", "x", "."}, "kubectl"},
		{"podman is docker's preset", []string{"podman", "pull", "x"}, "docker"},
		{"yarn is npm's preset", []string{"yarn", "install"}, "npm"},
		{"scp is ssh's preset", []string{"scp", "a", "b:"}, "ssh"},
		{"apt-get", []string{"apt-get", "install", "-y", "jq"}, "apt"},
		{"tofu is terraform's preset", []string{"tofu", "apply"}, "terraform"},
		{"versioned pip", []string{"pip3.12", "install", "x"}, "pip"},
		{"python -m pip", []string{"python3", "-m", "pip", "install", "x"}, "pip"},
		{"python -I -m pip", []string{"python", "-I", "-m", "pip", "install", "x"}, "pip"},
		{"php running composer", []string{"php", "/usr/local/bin/composer", "install"}, "composer"},
		{"php with an ini setting running composer.phar", []string{"php8.2", "-d", "memory_limit=-1", "composer.phar", "update"}, "composer"},
		{"env with assignments and options", []string{"env", "-i", "-u", "HOME", "A=1", "B=2", "wget", "x"}, "wget"},
		{"env with --", []string{"env", "--", "aws", "s3", "ls"}, "aws"},
		{"sudo with options and values", []string{"sudo", "-u", "root", "-E", "--preserve-env=PATH", "apt-get", "update"}, "apt"},
		{"sudo with attached value", []string{"sudo", "-uroot", "apt", "update"}, "apt"},
		{"sudo with assignment", []string{"sudo", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "x"}, "apt"},
		{"nice -n", []string{"nice", "-n", "10", "rsync", "-a", "x", "y"}, "rsync"},
		{"nice -n attached", []string{"nice", "-n10", "rsync", "-a", "x", "y"}, "rsync"},
		{"nice obsolete form", []string{"nice", "-5", "rsync", "-a", "x", "y"}, "rsync"},
		{"nohup", []string{"nohup", "go", "mod", "download"}, "go"},
		{"stdbuf", []string{"stdbuf", "-oL", "-e", "L", "npm", "ci"}, "npm"},
		{"timeout with duration", []string{"timeout", "30s", "curl", "x"}, "curl"},
		{"timeout with options", []string{"timeout", "-k", "5", "--signal=KILL", "1m", "docker", "pull", "x"}, "docker"},
		{"timeout -s with value", []string{"timeout", "-s", "INT", "10", "git", "fetch"}, "git"},
		{"sh -c", []string{"sh", "-c", "curl -fsSL https://x -o install.sh"}, "curl"},
		{"sh -c whose commands share a preset", []string{"sh", "-c", "apt-get update && apt-get install -y --no-install-recommends curl"}, "apt"},
		{"sh -c over two lines of one preset", []string{"sh", "-c", "apt-get update\napt-get install -y jq"}, "apt"},
		{"sh -c whose commands share a preset through wrappers", []string{"bash", "-c", "sudo apt-get update; timeout 60 apt install -y jq"}, "apt"},
		{"sh -c with redirections", []string{"sh", "-c", "curl -fsS https://x >out.json 2>&1 </dev/null"}, "curl"},
		{"sh -c with an operator only inside quotes", []string{"sh", "-c", `curl -fsS 'https://x/?a=1&b=2' -H "X: a;b|c" -d a\&b`}, "curl"},
		{"bash -lc", []string{"bash", "-lc", "git fetch --all"}, "git"},
		{"bash -e -o pipefail -c", []string{"bash", "-e", "-o", "pipefail", "-c", "terraform init"}, "terraform"},
		{"sh -c with assignments and exec", []string{"sh", "-c", "FOO=1 exec kubectl apply -f x"}, "kubectl"},
		{"sh -c with a wrapper inside", []string{"sh", "-c", "sudo apt-get update"}, "apt"},
		{"wrappers nested", []string{"sudo", "nice", "timeout", "30", "env", "A=1", "nohup", "git", "pull"}, "git"},
		{"sh -c whose first word is plain before a quoted arg", []string{"sh", "-c", `curl -fsS "$URL"`}, "curl"},
		{"sha256sum is the checksum preset", []string{"sha256sum", "-c", "SHA256SUMS"}, "checksum"},
		{"shasum is the checksum preset", []string{"shasum", "-a", "256", "-c", "SHA256SUMS"}, "checksum"},
		{"a checker under sh -c is the checksum preset", []string{"sh", "-c", "md5sum -c md5.images.txt"}, "checksum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := DetectPreset(tt.argv)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDetectPresetFindsNothingWhenUnclear(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv []string
	}{
		{"empty argv", nil},
		{"unknown program", []string{"make", "test"}},
		{"a wrapper with no command", []string{"sudo", "-i"}},
		{"timeout with only a duration", []string{"timeout", "5"}},
		{"sh running a script file", []string{"sh", "deploy.sh"}},
		{"sh -c with a quoted first word", []string{"sh", "-c", `"curl" -f x`}},
		{"sh -c with a variable first", []string{"sh", "-c", `$CURL -f x`}},
		{"sh -c with a subshell", []string{"sh", "-c", `(curl x)`}},
		{"sh -c without its script", []string{"sh", "-c"}},
		// A script of several commands ends with the last one's status,
		// which the first one's preset would misread (an installer's exit
		// 1 taken as curl's "unsupported protocol").
		{"sh -c piping curl to a shell", []string{"sh", "-c", "curl -fsSL https://x | sh"}},
		{"sh -c checking what curl fetched", []string{"sh", "-c", "curl -fsSLO https://x/a.tgz && sha256sum -c a.sha256"}},
		{"sh -c with commands of two presets in sequence", []string{"bash", "-c", "git fetch; npm ci"}},
		{"sh -c with a command of no preset after", []string{"bash", "-c", "git fetch && make"}},
		{"sh -c in the background", []string{"sh", "-c", "curl -fsS https://x & wait"}},
		{"sh -c over two lines of two presets", []string{"sh", "-c", "apt-get update\npip install jq"}},
		{"python without -m pip", []string{"python3", "setup.py", "install"}},
		{"php running another script", []string{"php", "artisan", "migrate"}},
		{"program named like a preset prefix", []string{"curly"}},
		{"endless wrappers stop", []string{"nohup", "nohup", "nohup", "nohup", "nohup", "nohup", "nohup", "nohup", "nohup", "curl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := DetectPreset(tt.argv)
			assert.False(t, ok, "got %q", got)
		})
	}
}

func TestSelectPresetsReadsAutoNoneAndNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, list string
		argv       []string
		want       []string
	}{
		{"auto detects", "auto", []string{"git", "pull"}, []string{"git"}},
		{"auto with nothing to detect", "auto", []string{"make"}, nil},
		{"none turns presets off", "none", []string{"git", "pull"}, nil},
		{"explicit names", "curl,git", []string{"make"}, []string{"curl", "git"}},
		{"names in any case with spaces", " Curl , GIT ", nil, []string{"curl", "git"}},
		{"auto plus a name", "auto,ssh", []string{"git", "pull"}, []string{"git", "ssh"}},
		{"duplicates are dropped", "git,auto", []string{"git", "pull"}, []string{"git"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SelectPresets(tt.list, tt.argv)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSelectPresetsRejectsBadListsNamingTheValidOnes(t *testing.T) {
	t.Parallel()
	valid := strings.Join(presetNames(presetTable()), ", ")
	require.True(t, strings.HasPrefix(valid, "curl, wget, git, ssh, rsync, apt, docker, npm, pip, go, kubectl, terraform, aws, gh, "))
	tests := []struct {
		name, list, want string
	}{
		{"unknown name", "kurl", `unknown preset "kurl": want auto, none or one of ` + valid},
		{"empty item", "curl,", `empty preset name in "curl,": want auto, none or one of ` + valid},
		{"empty list", "", `empty preset name in "": want auto, none or one of ` + valid},
		{"none with others", "none,curl", `none must stand alone in "none,curl": want none, or a list of auto and ` + valid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := SelectPresets(tt.list, []string{"curl"})
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// A shell script of any shape is split into commands that are pieces of
// it, in order, none of them empty, and detection through sh -c picks a
// preset only when the script's first command has it.
func FuzzDetectPresetThroughAShell(f *testing.F) {
	for _, s := range []string{
		"curl -fsSL https://x | sh",
		"apt-get update && apt-get install -y jq",
		`curl 'a;b' "c|d" e\&f 2>&1 &>log >|x`,
		"git fetch; npm ci\n",
		`sh -c "apt-get update; apt-get install x"`,
		"'unterminated && x",
		"\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		cmds := splitCommands(script)
		rest := script
		for _, c := range cmds {
			require.NotEmpty(t, strings.TrimSpace(c))
			i := strings.Index(rest, c)
			require.GreaterOrEqual(t, i, 0, "%q is not a piece of %q after the commands before it", c, script)
			rest = rest[i+len(c):]
		}
		got, ok := DetectPreset([]string{"sh", "-c", script})
		if ok {
			require.NotEmpty(t, cmds)
			first, firstOK := DetectPreset(firstWords(cmds[0]))
			require.True(t, firstOK)
			require.Equal(t, first, got)
		}
	})
}
