package exitcodes

import (
	"fmt"
	"slices"
	"strings"
)

// PresetInfo names a preset and says what it covers.
type PresetInfo struct {
	// Name is what --preset takes.
	Name string
	// Description is one line for people.
	Description string
	// Programs are the program names that --preset auto picks it for.
	Programs []string
}

// RuleRow is one rule of a preset, for a table: Class is "transient",
// "terminal" or "hint" (a pattern whose first group is a wait); Exit is the
// exit statuses it applies to ("any" for any failure); Match is its
// pattern, or "" when the exit status alone decides.
type RuleRow struct {
	Class       string
	Exit        string
	Match       string
	Description string
}

// presetDef is a preset as data: its patterns are compiled only when a
// Classifier uses it.
type presetDef struct {
	name     string
	desc     string
	programs []string
	// rules lays out the preset's rules; a function, so that the table
	// costs nothing until a preset is used.
	rules func() []ruleDef
	// boxed is set for programs that draw a box around their
	// diagnostics and wrap them (terraform, OpenTofu): the preset's
	// rules are also sought across two box lines (Scan.joinBox).
	boxed bool
}

// ruleDef is one preset rule: class applies when the exit status is in exit
// ("" for any failure) and match ("" for none) matched an output line.
type ruleDef struct {
	class Class
	exit  string
	match string
	desc  string
}

// hintDef is a pattern whose first group is a wait, in milliseconds when
// millis is set, else in a form ParseRetryAfter reads.
type hintDef struct {
	match  string
	millis bool
	desc   string
}

// retryOn and stopOn write rules compactly.
func retryOn(exit, match, desc string) ruleDef { return ruleDef{Transient, exit, match, desc} }
func stopOn(exit, match, desc string) ruleDef  { return ruleDef{Terminal, exit, match, desc} }

// HTTP status fragments shared by the presets. Transient statuses are 408
// Request Timeout, 429 Too Many Requests and 5xx; permanent ones are every
// other 4xx, and 501 Not Implemented and 505 HTTP Version Not Supported,
// which no server recovers from by itself.
const (
	httpRetry = `(?:408|429|5[0-9][0-9])`
	httpStop  = `(?:4(?:0[0-79]|1[0-9]|2[0-8]|[3-9][0-9])|501|505)`
	// httpRetryText and httpStopText are status lines' reason phrases.
	httpRetryText = `(?:500 Internal Server Error|502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out|429 Too Many Requests|408 Request Time-?out)`
	// rateLimited is a server saying that the client is rate limited,
	// which a 403 may mean as well as a 429: in its body, as GitHub's API
	// words it ("API rate limit exceeded for …", "You have exceeded a
	// secondary rate limit"), in its reason phrase ("403 rate limit
	// exceeded"), or in the header that counts what is left, as curl -i,
	// -v or -D - and wget -S print it ("x-ratelimit-remaining: 0", the
	// IETF draft's "RateLimit-Remaining: 0").
	rateLimited = `(?i)\brate limit\b|^\s*(?:< )?(?:x-)?ratelimit-remaining: 0\s*$`
)

// commonHints are the built-in wait patterns every preset carries: an HTTP
// Retry-After header as printed by curl -i, -D - or -v (`< Retry-After:
// 30`) and wget -S, Amazon's x-amz-retry-after header and gRPC's
// grpc-retry-pushback-ms trailer, both in milliseconds.
func commonHints() []hintDef {
	return []hintDef{
		{`(?i)^\s*<?\s*retry-after:\s*(\S(?:.*\S)?)\s*$`, false, "Retry-After header: seconds or an HTTP-date"},
		{`(?i)x-amz-retry-after['"]?\s*[:=]\s*['"]?(\d+)`, true, "x-amz-retry-after header, milliseconds"},
		{`(?i)grpc-retry-pushback-ms['"]?\s*[:=]?\s*['"]?(\d+)`, true, "gRPC retry pushback, milliseconds"},
	}
}

// presetTable returns every preset. It builds the table afresh on each
// call: there is no package-level state.
func presetTable() []presetDef {
	return append([]presetDef{
		{name: "curl", desc: "curl: exit codes from curl(1) EXIT CODES, HTTP status from --fail", programs: []string{"curl"}, rules: curlRules},
		{name: "wget", desc: "GNU Wget: its exit statuses 1-8, server errors by status; BusyBox wget by its messages", programs: []string{"wget"}, rules: wgetRules},
		{name: "git", desc: "git: network, remote and lock failures vs auth, missing repos and usage", programs: []string{"git"}, rules: gitRules},
		{name: "ssh", desc: "OpenSSH ssh, scp and sftp: connection failures vs auth and host keys", programs: []string{"ssh", "scp", "sftp"}, rules: func() []ruleDef { ssh := sshRules(); return append(ssh.stop, ssh.retry...) }},
		{name: "rsync", desc: "rsync: exit values from rsync(1), and its ssh transport", programs: []string{"rsync"}, rules: func() []ruleDef { return rsyncRules(sshRules()) }},
		{name: "apt", desc: "apt, apt-get and dpkg: locks, mirrors and the network vs missing packages", programs: []string{"apt", "apt-get", "aptitude", "dpkg"}, rules: aptRules},
		{name: "docker", desc: "docker and podman: registry and daemon failures vs auth and bad references", programs: []string{"docker", "docker-compose", "podman", "nerdctl"}, rules: dockerRules},
		{name: "npm", desc: "npm, yarn and pnpm: registry and network failures vs missing packages", programs: []string{"npm", "yarn", "pnpm"}, rules: npmRules},
		{name: "pip", desc: "pip: index and network failures vs missing versions and conflicts", programs: []string{"pip", "pip3"}, rules: pipRules},
		{name: "go", desc: "the go command: module downloads vs unknown versions and checksums", programs: []string{"go"}, rules: goRules},
		{name: "kubectl", desc: "kubectl and helm: API server availability vs auth, missing objects and invalid input", programs: []string{"kubectl", "helm", "oc"}, rules: kubectlRules},
		{name: "terraform", desc: "terraform and OpenTofu: state locks and API throttling vs configuration errors", programs: []string{"terraform", "tofu", "terragrunt"}, rules: terraformRules, boxed: true},
		{name: "aws", desc: "AWS CLI: return codes and service error codes", programs: []string{"aws"}, rules: awsRules},
	}, moreTools()...)
}

// findPreset looks a preset up by name.
func findPreset(table []presetDef, name string) (presetDef, bool) {
	for _, p := range table {
		if p.name == name {
			return p, true
		}
	}
	return presetDef{}, false
}

// presetNames returns the names of the presets in table.
func presetNames(table []presetDef) []string {
	names := make([]string, len(table))
	for i, p := range table {
		names[i] = p.name
	}
	return names
}

// unknownPreset is the error for a preset name that does not exist.
func unknownPreset(table []presetDef, name string) error {
	return fmt.Errorf("unknown preset %q: want auto, none or one of %s", shorten(name, 40), strings.Join(presetNames(table), ", "))
}

// Presets returns every preset's name, description and programs, in the
// order --preset auto considers them.
func Presets() []PresetInfo {
	table := presetTable()
	out := make([]PresetInfo, len(table))
	for i, p := range table {
		out[i] = PresetInfo{Name: p.name, Description: p.desc, Programs: slices.Clone(p.programs)}
	}
	return out
}

// SignaturesName is the name `retry presets` lists the cross-tool
// signatures under.
const SignaturesName = "signatures"

// SignatureInfo describes the cross-tool signatures as PresetRules and
// Presets describe a preset; they apply to every program.
func SignatureInfo() PresetInfo {
	return PresetInfo{
		Name:        SignaturesName,
		Description: "every program, after its preset: HTTP 4xx/5xx wording, refused or missing credentials, untrusted certificates, missing packages and named things, usage, configuration, parse and compile errors, billing stops vs connection failures, cut transfers, timeouts, rate limits, held locks; tracebacks judged from their last error",
		Programs:    []string{"*"},
	}
}

// PresetRules returns the rules of the named preset in the order they are
// tried, then its wait patterns, as rows for `retry presets NAME`. NAME
// may also be a program a preset covers ("helm" gives the kubectl
// preset), or "signatures" for the cross-tool signatures.
func PresetRules(name string) ([]RuleRow, error) {
	if name == SignaturesName {
		return signatureRows(), nil
	}
	table := presetTable()
	p, ok := findPreset(table, name)
	if !ok {
		if byProgram, found := DetectPreset([]string{name}); found {
			p, ok = findPreset(table, byProgram)
		}
	}
	if !ok {
		return nil, fmt.Errorf("unknown preset %q: want one of %s, a program a preset covers such as helm, or %s", shorten(name, 40), strings.Join(presetNames(table), ", "), SignaturesName)
	}
	var rows []RuleRow
	for _, r := range p.rules() {
		exit := r.exit
		if exit == "" {
			exit = "any"
		}
		rows = append(rows, RuleRow{Class: r.class.String(), Exit: exit, Match: r.match, Description: r.desc})
	}
	for _, h := range commonHints() {
		rows = append(rows, RuleRow{Class: "hint", Exit: "any", Match: h.match, Description: h.desc})
	}
	return rows, nil
}

// signatureRows lists the signatures: Class is "terminal" or "transient",
// "terminal" with a description starting "sure:" for those that beat a
// transient signature, "transient" with a description starting "sure:"
// for those that beat a sure terminal one, "info" for the lines on which
// the other terminal signatures are not sought, "last-error" for the lines a runtime reports
// the error that ended the program with, "error-line" for the static
// problems judged last, on an error line, and "unsure" for the words that
// keep an error line from deciding.
func signatureRows() []RuleRow {
	var rows []RuleRow
	for _, d := range signatureTable() {
		row := RuleRow{Exit: "any", Match: d.match, Description: d.desc}
		switch d.tier {
		case sigStopSure:
			row.Class, row.Description = "terminal", "sure: "+d.desc
		case sigRetryLater:
			row.Class, row.Description = "transient", "sure: "+d.desc
		case sigRetry:
			row.Class = "transient"
		case sigGoesOn:
			row.Class = "info"
		case sigStop:
			row.Class = "terminal"
		case sigDeath:
			row.Class = "last-error"
		case sigErrorLine:
			row.Class = "error-line"
		case sigUnsure:
			row.Class = "unsure"
		}
		rows = append(rows, row)
	}
	return rows
}

// SelectPresets reads a --preset value for the command argv: "auto" picks
// the preset of the program that argv runs, looking through wrappers (see
// DetectPreset); "none" turns presets off; other names, comma-separated,
// are taken as they are and must exist. "auto" may be combined with names
// ("auto,git"); "none" must stand alone. Duplicates are dropped.
func SelectPresets(list string, argv []string) ([]string, error) {
	table := presetTable()
	var out []string
	items := strings.Split(list, ",")
	for _, raw := range items {
		name := strings.ToLower(strings.TrimSpace(raw))
		switch name {
		case "":
			return nil, fmt.Errorf("empty preset name in %q: want auto, none or one of %s", shorten(list, 60), strings.Join(presetNames(table), ", "))
		case "none":
			if len(items) > 1 {
				return nil, fmt.Errorf("none must stand alone in %q: want none, or a list of auto and %s", shorten(list, 60), strings.Join(presetNames(table), ", "))
			}
			return nil, nil
		case "auto":
			if p, ok := DetectPreset(argv); ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
		default:
			if _, ok := findPreset(table, name); !ok {
				return nil, unknownPreset(table, name)
			}
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out, nil
}

// SignaturesFor reads a --preset value and reports whether the cross-tool
// signatures apply with it: always, except with "none", which turns every
// built-in rule off.
func SignaturesFor(list string) bool {
	return strings.ToLower(strings.TrimSpace(list)) != "none"
}

// curlRules are from curl(1), EXIT CODES, and the messages curl prints as
// "curl: (N) message".
func curlRules() []ruleDef {
	return []ruleDef{
		retryOn("22", rateLimited, "a 403 or 429 whose body or headers say the client is rate limited"),
		stopOn("22", `returned error: `+httpStop+`\b`, "HTTP 4xx other than 408 and 429, or 501, 505: the request is wrong"),
		retryOn("22", `returned error: `+httpRetry+`\b`, "HTTP 408, 429 or 5xx: the server may recover"),
		stopOn("22", `^(?:< )?HTTP/[0-9.]+ `+httpStop+`\b`, "status line (-i, -v) with a permanent status"),
		retryOn("22", `^(?:< )?HTTP/[0-9.]+ `+httpRetry+`\b`, "status line (-i, -v) with a transient status"),
		stopOn("22", "", "HTTP error whose status was not printed (-s without -S): taken as permanent"),
		stopOn("35", `(?i)wrong version number|unsupported protocol|no protocols available|alert protocol version|no cipher match`, "TLS versions or ciphers that do not match never will"),
		retryOn("5,6", "", "could not resolve the proxy or host"),
		retryOn("7", "", "could not connect"),
		retryOn("16,92,95,96", "", "HTTP/2, HTTP/3 or QUIC error"),
		retryOn("18", "", "partial file: the transfer was cut"),
		retryOn("28", "", "operation timed out"),
		retryOn("35", "", "TLS handshake failed"),
		retryOn("52", "", "the server sent an empty reply"),
		retryOn("55,56", "", "failed sending or receiving network data"),
		retryOn("97", "", "proxy handshake failed"),
		stopOn("1,3", "", "unsupported protocol or malformed URL"),
		stopOn("2,4,27,43,48,53,54,66", "", "curl cannot run this request: init, build, memory, option or engine error"),
		stopOn("9,67,94", "", "access or login denied"),
		stopOn("19,37,68,78", "", "the remote or local file does not exist"),
		stopOn("21,33,36,61,73,74", "", "the server refused a command, a resume, an encoding, an existing file or a user (64, a TLS level refused, is sysexits EX_USAGE and terminal already)"),
		stopOn("23,26,63,70", "", "local read or write error, maximum file size exceeded, or the TFTP server's disk full"),
		stopOn("47", "", "too many redirects"),
		stopOn("58,59,60,77,80,82,83,90,91,98", "", "certificate, pinned key or TLS configuration problem"),
	}
}

// wgetStatusLine is the line GNU Wget prints for a server's error
// response, "%s ERROR %d: %s.", in any language: its translations change
// the word ("FEHLER 503: Service Unavailable.", "ОШИБКА 404: Not Found.",
// "错误 502：Bad Gateway。"; Bulgarian adds a colon after it, Romanian puts
// it before the time), never the place of the status, a number right
// after that one word and before a colon and the reason. The status
// fragment goes between the two halves; the pattern is anchored at the
// start of the line, so a line that is not a status line fails at once,
// and it is a rule of its own, apart from the English "ERROR 503", which
// may stand anywhere in a line.
const (
	wgetStatusBefore = `^\s*(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d )?[^\s\d:\x{FF1A}]+:? (?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d )?`
	wgetStatusAfter  = `(?:: |\x{FF1A})`
)

// wgetRules are from wget(1), EXIT STATUS, and the "ERROR 503: ..." lines it
// prints, in English and in its translations.
func wgetRules() []ruleDef {
	return []ruleDef{
		stopOn("", `server returned error: HTTP/[0-9.]+ `+httpStop+`\b`, "BusyBox wget (exit 1): permanent HTTP status"),
		retryOn("", `server returned error: HTTP/[0-9.]+ `+httpRetry+`\b`, "BusyBox wget (exit 1): transient HTTP status"),
		stopOn("", `wget: not an http or ftp url|wget: can't open '|wget: missing URL`, "BusyBox wget (exit 1): a URL it cannot fetch or a file it cannot write"),
		retryOn("", `wget: bad address|wget: error getting response|wget: can't connect to remote host|wget: download timed out`, "BusyBox wget (exit 1): name resolution or connection failed"),
		retryOn("8", rateLimited, "a 403 or 429 whose reason, body (--content-on-error) or headers (-S) say the client is rate limited"),
		stopOn("8", `ERROR `+httpStop+`\b`, "server answered 4xx other than 408 and 429, or 501, 505"),
		retryOn("8", `ERROR `+httpRetry+`\b`, "server answered 408, 429 or 5xx"),
		stopOn("8", wgetStatusBefore+httpStop+wgetStatusAfter, "server answered 4xx other than 408 and 429, or 501, 505, in a translation (FEHLER, ERREUR, ОШИБКА, ...)"),
		retryOn("8", wgetStatusBefore+httpRetry+wgetStatusAfter, "server answered 408, 429 or 5xx, in a translation (FEHLER, ERREUR, ОШИБКА, ...)"),
		stopOn("8", `awaiting response\.\.\. `+httpStop+`\b`, "status shown while awaiting the response: permanent"),
		retryOn("8", `awaiting response\.\.\. `+httpRetry+`\b`, "status shown while awaiting the response: transient"),
		stopOn("8", "", "server error response whose status was not printed (-q): taken as permanent"),
		retryOn("4", "", "network failure"),
		stopOn("2", "", "parse error in options, .wgetrc or .netrc"),
		stopOn("3", "", "file I/O error"),
		stopOn("5", "", "SSL verification failure"),
		stopOn("6", "", "username/password authentication failure"),
	}
}

// gitRules are from the messages git prints on fatal errors (exit 128) and
// on failed pushes (exit 1).
func gitRules() []ruleDef {
	return []ruleDef{
		stopOn("", `SSL certificate problem|server certificate verification failed|certificate verify failed`, "the server's certificate is not trusted"),
		stopOn("", `Authentication failed for|Invalid username or (?:password|token)|Support for password authentication was removed|could not read (?:Username|Password) for`, "credentials missing or refused"),
		stopOn("", `Permission denied \(publickey|Host key verification failed|Permission to \S+ denied`, "ssh key or host key refused"),
		stopOn("", `Repository not found|repository '.*' (?:not found|does not exist)|does not appear to be a git repository|not a git repository|cannot change to '|No such remote '`, "no such repository, remote or -C directory"),
		stopOn("", `returned error: `+httpStop+`\b|RPC failed; HTTP `+httpStop+`\b`, "HTTP 4xx other than 408 and 429, or 501, 505"),
		stopOn("", `pathspec '.*' did not match|couldn't find remote ref|Remote branch .* not found in upstream|Needed a single revision|Not a valid object name|src refspec .* does not match any|unknown revision or path|ambiguous argument|invalid reference: `, "no such revision, ref or path"),
		stopOn("", `! \[rejected\]|\[remote rejected\] .*(?:hook declined|protected branch|denied)`, "push rejected: fetch first, or a hook refused it"),
		stopOn("", `CONFLICT \(|Merge conflict in|would be overwritten by|refusing to merge unrelated histories|Not possible to fast-forward`, "the work tree needs a person"),
		stopOn("", `already exists and is not an empty directory|No space left on device`, "the destination is not usable"),
		stopOn("", `not our ref|is corrupt|object file .* is empty|bad object`, "the ref was never advertised, or the repository is corrupt"),
		stopOn("", `is not a git command|unknown option|unknown switch|usage: git `, "usage error"),
		stopOn("", `detected dubious ownership|Need to specify how to reconcile divergent branches|has no upstream branch|You are not currently on a branch|You have unstaged changes|refusing to fetch into branch|a branch named '.*' already exists|tag '.*' already exists`, "the work tree or the branch needs a person first"),
		stopOn("", `Please tell me who you are|empty ident name|unable to auto-detect email address|gpg failed to sign|Unable to find remote helper for`, "git itself is not set up for this: no identity, no signing key, no transport"),
		stopOn("", `reference is not a tree|does not allow request for unadvertised object|over its data quota`, "the commit was never pushed, or the LFS quota is spent"),
		stopOn("", `Unable to create '.*': Permission denied|insufficient permission for adding an object|could not lock config file .*: Permission denied|could not create work tree dir`, "local files git cannot write"),
		retryOn("", `remote end hung up|early EOF|index-pack failed|unexpected disconnect while reading sideband|protocol error: bad pack header|transfer closed with outstanding read data`, "the transfer was cut"),
		retryOn("", `RPC failed|returned error: `+httpRetry+`\b|Internal Server Error|Service Unavailable|Bad Gateway|Gateway Time-?out|Too Many Requests`, "the server failed or asked to slow down"),
		retryOn("", `Could not resolve host|Could not resolve hostname|Temporary failure in name resolution`, "name resolution failed"),
		retryOn("", `(?i)connection reset|connection refused|connection timed out|operation timed out|timed out after|Failed to connect to|Couldn't connect to server|Connection closed by|kex_exchange_identification`, "connection failed"),
		retryOn("", `gnutls_handshake\(\) failed|GnuTLS recv error|SSL_ERROR_SYSCALL|OpenSSL SSL_(?:read|connect)|TLS connection was non-properly terminated|HTTP/2 stream \d+ was not closed cleanly`, "TLS or HTTP/2 stream cut"),
		retryOn("", `Unable to create '.*\.lock': File exists|cannot lock ref`, "another git process holds a lock"),
	}
}

// sshRuleSet are OpenSSH's messages, split so that rsync can put its own
// rules between them.
type sshRuleSet struct{ stop, retry []ruleDef }

// sshRules are from the messages OpenSSH's ssh, scp and sftp print; ssh
// exits 255 on its own errors, scp and sftp 1 or 255.
func sshRules() sshRuleSet {
	return sshRuleSet{
		stop: []ruleDef{
			stopOn("", `Permission denied|Too many authentication failures`, "authentication refused"),
			stopOn("", `Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED`, "host key unknown or changed"),
			stopOn("", `Unable to negotiate with|no matching (?:host key type|key exchange method|cipher|MAC) found`, "no common algorithm"),
			stopOn("", `Bad configuration option|Bad owner or permissions on|UNPROTECTED PRIVATE KEY FILE|Bad port|usage: (?:ssh|scp|sftp) |subsystem request failed|This account is currently not available`, "configuration or usage error"),
			stopOn("", `No such file or directory|Is a directory|Not a directory`, "no such path"),
		},
		retry: []ruleDef{
			retryOn("", `Could not resolve hostname .*: Temporary failure`, "name resolution failed for now"),
			retryOn("", `(?i)connection refused|connection reset|connection timed out|operation timed out|no route to host|network is unreachable`, "connection failed"),
			retryOn("", `Connection closed by|closed by remote host|kex_exchange_identification|ssh_exchange_identification|Broken pipe|Timeout, server .* not responding|lost connection`, "connection dropped"),
		},
	}
}

// rsyncRules are from rsync(1), EXIT VALUES, the "@ERROR:" lines of
// rsync daemons, and ssh's messages for rsync over ssh.
func rsyncRules(ssh sshRuleSet) []ruleDef {
	rules := []ruleDef{
		stopOn("", `rsync: (?:command )?not found|rsync: No such file or directory`, "rsync is missing on the remote side"),
		stopOn("", `@ERROR: (?:auth failed|Unknown module|access denied|chroot failed|chdir failed)`, "the daemon refused the module or the login"),
		stopOn("", `protocol version mismatch`, "protocol incompatibility, such as a shell printing at login"),
		retryOn("", `@ERROR: max connections \(\d+\) reached`, "the daemon is busy"),
	}
	rules = append(rules, ssh.stop...)
	rules = append(rules, ssh.retry...)
	return append(rules,
		retryOn("", `connection unexpectedly closed`, "the connection dropped"),
		retryOn("10", "", "error in socket I/O"),
		retryOn("12", "", "error in the rsync protocol data stream"),
		retryOn("30", "", "timeout in data send/receive"),
		retryOn("35", "", "timeout waiting for daemon connection"),
		retryOn("24", "", "source files vanished during the transfer: a new run takes a new file list"),
		stopOn("1,2,3,4", "", "usage, protocol incompatibility, bad paths or unsupported action"),
		stopOn("6,11,20,25", "", "log file, file I/O, interrupt or --max-delete"),
		stopOn("23", "", "partial transfer: some files could not be read or written (permissions, missing paths)"),
	)
}

// aptRules are from the "E:" and "Err:" lines of apt, apt-get and dpkg
// (exit 100, dpkg 2).
func aptRules() []ruleDef {
	return []ruleDef{
		stopOn("", `are you root\?|Permission denied`, "not run as root"),
		stopOn("", `Unable to locate package|has no installation candidate|Version '.*' for '.*' was not found|Couldn't find any package by`, "no such package or version"),
		stopOn("", `[Uu]nmet dependencies|held broken packages`, "dependencies cannot be met"),
		stopOn("", `NO_PUBKEY|public key is not available|does not have a Release file|is not signed|no longer has a Release file|Certificate verification failed`, "repository not trusted or not there"),
		stopOn("", `is not valid yet|Release file for .* is expired`, "the Release file's dates do not fit the clock"),
		stopOn("", `\b404\s+Not Found|\b403\s+Forbidden|\b401\s+Unauthorized`, "the mirror does not have the file: run apt-get update"),
		stopOn("", `You don't have enough free space|No space left on device`, "disk full"),
		stopOn("", `Invalid operation|Command line option .* is not understood|Malformed entry|Type '.*' is not known on line|Conflicting values set for option|list of sources could not be read|The method driver .* could not be found|changed its '\w+' value from|is invalid for APT::Default-Release`, "usage or sources.list error"),
		stopOn("", `dpkg was interrupted|dpkg: error processing|Sub-process /usr/bin/dpkg returned an error code`, "a package failed to install: dpkg needs a person"),
		retryOn("", `Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock (?:the administration )?directory|frontend lock was locked by another process|status database is locked|Waiting for cache lock`, "another package manager holds the lock"),
		retryOn("", `Temporary failure resolving|Could not resolve '|Something wicked happened resolving`, "name resolution failed"),
		retryOn("", `Hash Sum mismatch|Hashes of expected file|File has unexpected size|Mirror sync in progress`, "the mirror is being synced"),
		retryOn("", `Failed to fetch .*\s`+httpRetry+`\s|`+httpRetryText, "the mirror failed or asked to slow down"),
		retryOn("", `(?i)connection timed out|Could not connect to|Unable to connect to|Connection failed|connection reset by peer|Undetermined Error|Could not receive data|Network is unreachable|Cannot initiate the connection`, "connection failed"),
	}
}

// dockerRules are from the messages of docker and podman (both exit 125
// when the engine fails, 1 for CLI errors).
func dockerRules() []ruleDef {
	return []ruleDef{
		stopOn("", `(?i)unauthorized|authentication required|requested access to the resource is denied|pull access denied|access forbidden|insufficient_scope|incorrect username or password`, "registry credentials missing or refused"),
		stopOn("", `permission denied while trying to connect to the Docker daemon`, "not allowed to use the daemon"),
		stopOn("", `x509: |certificate signed by unknown authority|tls: failed to verify certificate|server gave HTTP response to HTTPS client`, "the registry's certificate is not trusted, or it speaks plain HTTP"),
		stopOn("", `manifest unknown|No such (?:image|container|object|volume|network)|image not known|no matching manifest for|\bnot found\b`, "no such image, tag or object"),
		stopOn("", `invalid reference format|short-name .* did not resolve|short-name resolution enforced but cannot prompt|repository name must be lowercase`, "bad image reference"),
		stopOn("", `no space left on device`, "disk full"),
		stopOn("", `unknown flag|unknown shorthand flag|is not a docker command|requires (?:at least|exactly) \d+ arguments?|accepts \d+ arg|dockerfile parse error|unknown instruction`, "usage or Dockerfile error"),
		stopOn("", `is already in use by container|is already in use`, "name already in use"),
		stopOn("", `Cannot perform an interactive login from a non TTY device|error (?:getting|storing|listing) credentials - err: exec: |error storing credentials - err: |no basic auth credentials`, "no credentials to log in with, or no credential helper"),
		stopOn("", `invalid mount config for type|bind source path does not exist|unable to prepare context|failed to read dockerfile|Multi-platform build is not supported|multiple platforms feature is currently not supported`, "a missing path or Dockerfile, or a build this builder cannot do"),
		stopOn("", `mapping values are not allowed|Additional propert(?:y|ies) .*(?:is|are) not allowed|Top-level object must be a mapping|yaml: line \d+: |is not a valid repository/tag`, "invalid compose file or image reference"),
		retryOn("", `toomanyrequests|Too Many Requests|received unexpected HTTP status: `+httpRetry+`|error parsing HTTP `+httpRetry+` response|`+httpRetryText, "the registry failed or asked to slow down"),
		retryOn("", `TLS handshake timeout|i/o timeout|Client\.Timeout exceeded|context deadline exceeded|net/http: request canceled`, "the network timed out"),
		retryOn("", `unexpected EOF|connection reset by peer|connection refused|broken pipe|http2: server sent GOAWAY|server misbehaving|Temporary failure in name resolution`, "the connection failed or was cut"),
		retryOn("", `Cannot connect to the Docker daemon at .* Is the docker daemon running`, "the daemon is not up yet"),
	}
}

// npmRules are from the "npm ERR! code" (npm error code) lines of npm,
// "error An unexpected error occurred" of yarn 1, the YN codes of yarn 2+ and
// the ERR_PNPM codes of pnpm.
func npmRules() []ruleDef {
	return []ruleDef{
		stopOn("", `\bE`+httpStop+`\b|ERR_PNPM_FETCH_`+httpStop+`\b|\b(?:400 Bad Request|401 Unauthorized|403 Forbidden|404 Not Found|405 Method Not Allowed|409 Conflict|410 Gone)\b|Response Code: `+httpStop+`\b|is not in (?:this|the npm) registry|Couldn't find package|: Not found"`, "the registry refused the request or has no such package"),
		stopOn("", `\bENOTFOUND\b`, "the registry host does not exist (a failing resolver gives EAI_AGAIN)"),
		stopOn("", `\bENEEDAUTH\b|\bEOTP\b|Unable to authenticate|You must be logged in|Incorrect or missing password`, "credentials missing or refused"),
		stopOn("", `\bEACCES\b|\bENOSPC\b|no space left on device`, "local permissions or disk full"),
		stopOn("", `\bERESOLVE\b|unable to resolve dependency tree|\bETARGET\b|No matching version found|ERR_PNPM_NO_MATCHING_VERSION|ERR_PNPM_PEER_DEP_ISSUES`, "dependencies cannot be resolved"),
		// pnpm before 8.3.1 on Node.js 20 fails every registry request
		// with ERR_INVALID_THIS (pnpm/pnpm#6424): pnpm's own "Will retry
		// in 10 seconds" repeats a failure that never passes.
		stopOn("", `\bERR_INVALID_THIS\b|Value of "this" must be of type URLSearchParams`, "a pnpm too old for this Node.js: every request fails alike"),
		stopOn("", `\bEINTEGRITY\b|integrity checksum failed|ERR_PNPM_TARBALL_INTEGRITY|Integrity check failed`, "integrity mismatch: never retried blindly, it may be tampering"),
		stopOn("", `frozen-lockfile|lockfile needs to be updated|ERR_PNPM_OUTDATED_LOCKFILE|can only install packages when your package\.json and package-lock\.json|lockfile would have been modified`, "the lockfile is out of date"),
		stopOn("", `\b(?:EJSONPARSE|EUNSUPPORTEDPROTOCOL|ENOWORKSPACES|ENOVERSIONS|EOVERRIDE|ENOLOCK|EINVALIDPACKAGENAME|EINVALIDTAGNAME|EDUPLICATEWORKSPACE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_HAS_EXPIRED|DEPTH_ZERO_SELF_SIGNED_CERT|ERR_TLS_CERT_ALTNAME_INVALID)\b|ERR_PNPM_(?:BAD_PM_VERSION|OTHER_PM_EXPECTED|UNSUPPORTED_ENGINE|LOCKFILE_CONFIG_MISMATCH|NO_IMPORTER_MANIFEST_FOUND|WORKSPACE_PKG_NOT_FOUND|INVALID_WORKSPACE_CONFIGURATION|LOCKFILE_MISSING_DEPENDENCY|BROKEN_LOCKFILE)\b|ERROR\s+This project is configured to use`, "an invalid manifest, protocol or certificate, or the wrong package manager"),
		stopOn("", `Couldn't find any versions for|The engine ".*" is incompatible with this module|Found incompatible module|Couldn't find a package\.json|: No candidates found|doesn't seem to be present in your lockfile|Couldn't find a script named|Usage Error: `, "yarn: no such version, script or manifest, an incompatible engine or a stale lockfile"),
		stopOn("", `Missing script|ERR_PNPM_NO_SCRIPT|Command ".*" not found|\bEUSAGE\b|Unknown command|\bENOENT\b|\bEBADENGINE\b|\bEBADPLATFORM\b`, "usage, missing file or unsupported engine"),
		retryOn("", `\b(?:ETIMEDOUT|ESOCKETTIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|EPIPE|ECONNABORTED|EHOSTUNREACH|ENETUNREACH|ERR_SOCKET_TIMEOUT)\b|socket hang up|network aborted|network timeout at`, "the network failed"),
		retryOn("", `\bE`+httpRetry+`\b|ERR_PNPM_FETCH_`+httpRetry+`\b|Response Code: `+httpRetry+`\b|Response code `+httpRetry+`\b|Request failed \\?"`+httpRetry+`|`+httpRetryText, "the registry failed or asked to slow down"),
		retryOn("", `There appears to be trouble with your network connection`, "yarn saw the network fail"),
	}
}

// pipRules are from the "ERROR:" lines of pip and the urllib3 warnings it
// prints while it retries.
func pipRules() []ruleDef {
	return []ruleDef{
		stopOn("", `CERTIFICATE_VERIFY_FAILED|certificate verify failed`, "the index's certificate is not trusted"),
		stopOn("", `Could not find a version that satisfies the requirement .*\(from versions: [0-9]`, "the index answered, and no version fits"),
		stopOn("", `DO NOT MATCH THE HASHES|hash mismatch|Expected sha256`, "hash mismatch: never retried blindly, it may be tampering"),
		stopOn("", `(?i)ResolutionImpossible|conflicting dependencies|requires? a different python|externally-managed-environment`, "the requirements cannot be met here"),
		stopOn("", `Could not open requirements file|Invalid requirement|No such file or directory|is not a valid editable requirement|\[Errno 13\] Permission denied|\[Errno 28\] No space left on device|no such option|unknown command "|You must give at least one requirement|is not installable\. Neither|Can not perform a '--user' install|is not a supported wheel on this platform|--require-hashes mode|has inconsistent (?:version|name)|resolution-too-deep|ResolutionTooDeep|× Cannot uninstall|Cannot uninstall '`, "usage, missing file, permissions or disk full, or a requirement pip cannot meet"),
		stopOn("", `HTTP error `+httpStop+`\b|\b`+httpStop+` Client Error`, "the index refused the request"),
		retryOn("", `ReadTimeoutError|ConnectTimeoutError|NewConnectionError|Read timed out|Connection reset by peer|ConnectionResetError|RemoteDisconnected|IncompleteRead|ProtocolError|ProxyError|Temporary failure in name resolution|Failed to establish a new connection|Network is unreachable|connection broken by`, "the network failed"),
		retryOn("", `HTTP error `+httpRetry+`\b|\b`+httpRetry+` Server Error|`+httpRetryText, "the index failed or asked to slow down"),
		stopOn("", `No matching distribution found|Could not find a version that satisfies`, "no such package or version"),
		stopOn("", `subprocess-exited-with-error|Failed building wheel|metadata-generation-failed|legacy-install-failure|Could not build wheels for|Failed to build installable wheels`, "building a package failed"),
	}
}

// goRules are from the messages of the go command's module downloads
// (go mod download, go get, go install, go build).
func goRules() []ruleDef {
	return []ruleDef{
		stopOn("", `checksum mismatch|SECURITY ERROR`, "checksum mismatch: never retried blindly, it may be tampering"),
		// The go command wraps the fetch that failed in what it was
		// looking for ("cannot find module providing package x: … https
		// fetch: Get …: EOF"): a network failure in the line decides
		// before the words of a missing module or a bad version.
		retryOn("", `i/o timeout|TLS handshake timeout|Client\.Timeout exceeded|context deadline exceeded|connection timed out`, "the network timed out"),
		retryOn("", `connection reset|connection refused|unexpected EOF|: EOF$|network is unreachable|http2: server sent GOAWAY|stream error: stream ID \d+|server misbehaving|Temporary failure in name resolution`, "the connection failed or was cut"),
		retryOn("", httpRetryText+`|\b`+httpRetry+` (?:Service Unavailable|Bad Gateway|Internal Server Error|Gateway Time-?out|Too Many Requests)`, "the proxy failed or asked to slow down"),
		stopOn("", `terminal prompts disabled|could not read Username|Repository not found|Permission denied \(publickey|\b40[13] (?:Forbidden|Unauthorized)|x509: |tls: failed to verify certificate`, "credentials or certificate refused"),
		// The checksum database is asked only about a module the go
		// command has downloaded: a 404 there is a version it has not
		// fetched yet (a tag pushed minutes ago), unless the database
		// cannot reach the module at all, which the credentials rule
		// above names.
		retryOn("", `\bverifying (?:module|go\.mod): \S+: reading https?://\S+/lookup/\S+: (?:404 Not Found|410 Gone)$`, "the checksum database has not seen the version yet"),
		stopOn("", `unknown revision|invalid version|invalid pseudo-version|410 Gone|404 Not Found|no matching versions for query|malformed module path`, "no such module or version"),
		// The go command's PackageNotInModuleError names the version
		// found in parentheses ("module x@latest found (v1.6.3), but does
		// not contain package x/y"); Go 1.16 and older called a path
		// with no dot "not in GOROOT" where later ones say "not in std".
		stopOn("", `cannot find module providing package|cannot find package|no required module provides package|found(?: \([^)]*\))?, but does not contain package|missing go\.sum entry|updates to go\.mod needed|go\.mod requires go >=|inconsistent vendoring|is not in (?:std|GOROOT)\b|cannot find main module|module lookup disabled|errors parsing go\.mod|flag provided but not defined|unknown command`, "the module setup or the command is wrong"),
		stopOn("", `go\.mod file not found|toolchain not available|requires cgo|module declares its path as|found packages \w+ \(`, "no module, no such toolchain, no cgo, or a module or package at the wrong path"),
		stopOn("", `\.go:\d+:\d+: (?:undefined: |.* imported and not used|declared and not used|cannot use |too many arguments|not enough arguments|syntax error: |missing return|.* redeclared in this block|invalid operation: )`, "compile error"),
		stopOn("", `no space left on device`, "disk full"),
	}
}

// helmPatchStop is helm's "failed to create patch" when the chart's
// manifest does not fit the API's schema: a field the struct does not
// have, a list without its merge key, a string where an object belongs.
// Other causes it wraps (reading the live object) may be the network's.
const helmPatchStop = `failed to create patch: .*(?:unable to find api field in struct|does not contain declared merge key|cannot restore struct from)`

// kubectlRules are from kubectl's "Error from server (Reason)" lines and
// client errors, and helm's "Error:" lines.
func kubectlRules() []ruleDef {
	return []ruleDef{
		retryOn("", `failed calling webhook`, "an admission webhook is not ready yet"),
		retryOn("", `is waiting to start: (?:ContainerCreating|PodInitializing)|pod is not running\. Current status=Pending`, "the pod is still starting"),
		stopOn("", `exec plugin: invalid apiVersion|no context exists with the name|flag needs an argument|has no deployed releases|chart requires kubeVersion|no repositories found\. You must add one|missing in charts/ directory|helm dependency build|execution error at \(`, "kubeconfig, usage, release or chart error"),
		stopOn("", helmPatchStop, "helm cannot build a patch: the chart's manifest does not fit the API's schema"),
		stopOn("", `(?:localhost|127\.0\.0\.1):8080`, "no kubeconfig: kubectl fell back to localhost:8080"),
		stopOn("", `x509: |certificate signed by unknown authority|certificate has expired|tls: failed to verify`, "the API server's certificate is not trusted"),
		stopOn("", `(?i)getting credentials: |You must be logged in to the server|\(Unauthorized\)|\bUnauthorized\b|provide credentials`, "credentials missing or refused"),
		stopOn("", `\(Forbidden\)|is forbidden: |\bforbidden: User`, "RBAC refused the request"),
		stopOn("", `\(NotFound\)|\bnot found\b|\b404\b|doesn't have a resource type|no matches for kind|could not find the requested resource`, "no such object, resource type or chart"),
		stopOn("", `error validating|ValidationError|unknown field|error converting YAML|error parsing|YAML parse error|json: cannot unmarshal|is invalid: |\(Invalid\)|\(BadRequest\)|parse error|template: `, "invalid manifest or chart"),
		stopOn("", `unknown flag|unknown shorthand flag|unknown command|required flag\(s\)|accepts \d+ arg|must specify|does not exist|no objects passed to`, "usage error or missing file or context"),
		stopOn("", `\(AlreadyExists\)|already exists|cannot re-use a name that is still in use`, "already exists"),
		retryOn("", `the object has been modified`, "conflict with a concurrent update: read again and retry"),
		retryOn("", `connection to the server .* was refused|Unable to connect to the server|Kubernetes cluster unreachable|error dialing backend`, "cannot reach the API server"),
		retryOn("", `the server is currently unable to handle the request|\((?:ServiceUnavailable|InternalError|Timeout|TooManyRequests)\)|etcdserver: |the server was unable to return a response|has received too many requests`, "the API server failed or asked to slow down"),
		retryOn("", `TLS handshake timeout|context deadline exceeded|i/o timeout|connection reset by peer|http2: client connection lost|unexpected EOF|net/http: request canceled|code = Unavailable`, "the connection failed or timed out"),
	}
}

// terraformRules are from terraform's "Error:" blocks and the AWS, Google
// and Azure errors its providers pass on.
func terraformRules() []ruleDef {
	return []ruleDef{
		retryOn("", `Error acquiring the state lock|Error locking state`, "another run holds the state lock"),
		stopOn("", `Error: (?:Invalid reference|Unsupported argument|Missing required argument|Unsupported block type|Reference to undeclared|Invalid value for|Invalid function argument|Duplicate |Argument or block definition required|Unsupported attribute|Incorrect attribute value type|No value for required variable|Invalid expression|Invalid block definition|Unclosed configuration block|Invalid count argument|Invalid for_each argument|Cycle: )`, "configuration error"),
		stopOn("", `Error: (?:Module not installed|Backend initialization required|Inconsistent dependency lock file|Unsupported Terraform Core version|Missing required provider|Invalid provider configuration|Invalid legacy provider address)|does not have a provider named`, "init needed or providers wrong"),
		stopOn("", `Error: (?:Invalid index|Error in function call|Invalid template interpolation value|Variables not allowed|Failed to read variables file|No configuration files|Saved plan is stale|Failed to load ".*" as a plan file|Backend configuration changed|Unreadable module directory|Invalid provider registry host|Invalid resource type|Invalid data source)|doesn't match any of the checksums previously recorded`, "configuration, plan file, backend or lock file the run cannot use"),
		stopOn("", `AccessDenied|UnauthorizedOperation|InvalidClientTokenId|ExpiredToken|SignatureDoesNotMatch|AuthFailure|AuthorizationFailed|no valid credential sources|(?:StatusCode|status code): 40[13]\b|Error 40[13]\b`, "credentials or permissions refused"),
		stopOn("", `AlreadyExists|already exists|Error 409\b`, "already exists"),
		stopOn("", `NoSuchBucket|[Bb]ucket .* does not exist`, "the state bucket does not exist"),
		stopOn("", `InvalidParameterValue|ValidationError|ValidationException|MalformedPolicyDocument`, "the provider rejected the arguments"),
		stopOn("2", "", "plan -detailed-exitcode: changes present, not a failure to retry"),
		retryOn("", `RequestLimitExceeded|Throttling|TooManyRequestsException|Rate exceeded|rateLimitExceeded|(?:StatusCode|status code): 429\b|Error 429\b`, "the API asked to slow down"),
		retryOn("", `(?:StatusCode|status code|Status)[:=] ?5[0-9][0-9]\b|Error 5[0-9][0-9]\b|Internal(?:Server)?Error|InternalFailure|ServiceUnavailable|backendError|InsufficientInstanceCapacity|RequestTimeout|`+httpRetryText, "the API failed or has no capacity now"),
		retryOn("", `connection reset by peer|TLS handshake timeout|i/o timeout|Client\.Timeout exceeded|context deadline exceeded|unexpected EOF|connection refused|Temporary failure in name resolution|server misbehaving|could not connect to registry|failed to request discovery document`, "the connection failed or timed out"),
	}
}

// awsRules are from the AWS CLI's return codes and its "An error occurred
// (Code) when calling the Operation operation" lines.
func awsRules() []ruleDef {
	return []ruleDef{
		stopOn("252", "", "command syntax invalid, unknown parameter or bad value"),
		stopOn("253", "", "environment or configuration invalid, such as missing credentials"),
		stopOn("", `\((?:AccessDenied|AccessDeniedException|UnauthorizedOperation|UnauthorizedException|InvalidClientTokenId|UnrecognizedClientException|SignatureDoesNotMatch|InvalidAccessKeyId|AuthFailure|ExpiredToken|ExpiredTokenException|RequestExpired|InvalidToken|OptInRequired|MissingAuthenticationToken|InvalidSignatureException|IncompleteSignature|NotAuthorized|NotAuthorizedException|403)\)`, "credentials or permissions refused: expired tokens must be renewed outside the command"),
		stopOn("", `\([A-Za-z.]*(?:NotFound|NoSuch)[A-Za-z.]*\)|\(404\)`, "no such bucket, key or resource"),
		stopOn("", `\((?:ValidationError|ValidationException|InvalidParameterValue|InvalidParameterException|InvalidParameterCombination|InvalidRequest|InvalidArgument|MalformedPolicyDocument|MissingParameter|BadRequest|SerializationException|InvalidInput|400)\)|\([A-Za-z]*(?:AlreadyExists|AlreadyOwnedByYou)[A-Za-z]*\)`, "the request is invalid or conflicts with what exists"),
		stopOn("", `Unable to locate credentials|The config profile .* could not be found|You must specify a region|Invalid endpoint|Parameter validation failed|Unknown options|Invalid choice|the following arguments are required|Error parsing parameter|Token has expired and refresh failed|SSO session .* has expired|Error loading SSO Token|Unable to parse config file|Partial credentials found|CERTIFICATE_VERIFY_FAILED|The user-provided path .* does not exist|No changes to deploy\. Stack|Waiter encountered a terminal failure state|Unknown output type|Unable to load paramfile`, "usage, configuration or certificate error"),
		retryOn("", `\((?:Throttling|ThrottlingException|ThrottledException|RequestLimitExceeded|TooManyRequestsException|ProvisionedThroughputExceededException|RequestThrottled|RequestThrottledException|SlowDown|EC2ThrottledException|BandwidthLimitExceeded|PriorRequestNotComplete|TransactionInProgressException|OperationAborted|ConcurrentModificationException|TooManyUpdates|429)\)`, "the service asked to slow down"),
		retryOn("", `\((?:ServiceUnavailable|ServiceUnavailableException|Unavailable|InternalError|InternalFailure|InternalServerError|InternalServerException|RequestTimeout|RequestTimeoutException|IDPCommunicationError|5[0-9][0-9])\)`, "the service failed or timed out"),
		retryOn("", `Connection was closed before we received a valid response|Read timeout on endpoint URL|Connect timeout on endpoint URL|Could not connect to the endpoint URL|Connection reset by peer|EOF occurred in violation of protocol`, "the connection failed or timed out"),
		stopOn("", `An error occurred \([A-Za-z0-9.]+\) when calling`, "any other service error: the CLI already retried the transient ones"),
		stopOn("2", "", "parse failure, or s3 skipped files that cannot be read"),
	}
}
