package exitcodes

// Cross-tool signatures: failure messages that mean the same thing
// whatever program printed them (an HTTP 404, refused credentials, a
// refused connection, a rate limit, a Python traceback ending in
// ModuleNotFoundError). They judge failures that neither the user's rules
// nor a preset decided, before the default table's "any other failure is
// transient".
//
// Precision comes first: a transient failure taken as terminal fails a
// pipeline, while a terminal one retried costs seconds. So a transient
// signature beats a terminal one, except the few terminal signatures that
// are specific enough to stand whatever else was printed (a certificate
// not trusted, a password refused, a module missing); and every signature
// is anchored on the words around a status code, never on a bare number.

// sigTier says how a signature takes part in a verdict.
type sigTier int

const (
	// sigStopSure is terminal and beats any transient signature.
	sigStopSure sigTier = iota + 1
	// sigRetry is transient and beats sigStop.
	sigRetry
	// sigStop is terminal unless a transient signature matched too.
	sigStop
	// sigDeath marks the line where a runtime reported the error that
	// ended the program (a Python exception, a Java "Exception in
	// thread", a Node.js "Error: "): the output from the last such line
	// on is judged first, so a script that logged a retried "connection
	// reset" and then died of an HTTP 404 is terminal.
	sigDeath
	// sigRetryLater is transient and beats even sigStopSure: the program
	// said, in so many words, to try again later (Google Drive's "Access
	// denied ... Too many users have viewed or downloaded this file
	// recently. Please try accessing the file again later"). A bare
	// "please try again", which login prompts print after a refused
	// password, is not enough.
	sigRetryLater
	// sigGoesOn marks a line that reports something missing and goes on
	// to say what the program does about it (vagrant's "Box 'precise64'
	// was not found. Fetching box from specified URL"), or a missing file
	// that an earlier step's failure explains (nvm's "Provided file to
	// checksum does not exist."): an INFO line, on which the sigStop
	// signatures are not sought.
	sigGoesOn
	// sigErrorLine is terminal and judged last, when no other signature
	// decided: a line in an error position ("error:", "E:", "[!]", "✖")
	// that names a static problem in the program's own words ("invalid",
	// "unknown", "not installed", "no such"). It decides only when no
	// line of the output carried sigUnsure's words, and, like sigStop,
	// is not sought on a sigGoesOn line.
	sigErrorLine
	// sigUnsure marks a line with the vocabulary of failures that pass
	// (a timeout, a connection, a lock, a download, "retry"): it decides
	// nothing, but keeps sigErrorLine from deciding.
	sigUnsure
)

// sigDef is one signature. need, when set, lists literals of which every
// match contains one: a sharper prefilter than those found in match (the
// status codes rather than "ode" or "tatus"), so that lines that merely
// say "status" or "code" skip the regexp.
type sigDef struct {
	tier  sigTier
	match string
	desc  string
	need  []string
}

// httpStopCodes and httpRetryCodes are the status codes as literals, for
// sigDef.need.
func httpStopCodes() []string {
	return []string{"400", "401", "403", "404", "405", "409", "410", "422"}
}

func httpRetryCodes() []string { return []string{"429", "500", "502", "503", "504"} }

// certificateLiterals are the literals of the certificate signature, for
// sigDef.need: found in its pattern, the shortest would be "ertificate",
// which every line naming the ca-certificates package contains.
func certificateLiterals() []string {
	return []string{"x509: ", "certificate verify failed", "CERTIFICATE_VERIFY_FAILED", "SSL certificate problem",
		"unable to get local issuer certificate", "signed certificate in certificate chain", "PKIX path building failed",
		"unable to find valid certification path", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
		"UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "DEPTH_ZERO_SELF_SIGNED_CERT", "ERR_TLS_CERT_ALTNAME_INVALID",
		"certificate signed by unknown authority", "SSLCertVerificationError"}
}

// compileErrorLiterals are the literals of the compile error signature,
// for sigDef.need: its "file.c:12:3: error: " form would otherwise be
// sought as "error: ", which many lines contain.
func compileErrorLiterals() []string {
	return []string{"ompile error", "ompile Error", "ompile failed", "ompilation error", "ompilation Error", "ompilation failed", " exit status", "linker command failed", "' failed with exit ", "undefined: ", "and not used", ": error: ", ": fatal error: "}
}

// The literals of the signatures widened from the third held-out set,
// for sigDef.need: a few per row of words, so that a line that holds
// none costs a few bit tests per row.

// lintLiterals: lint and format reports (yamllint's form would otherwise be sought
// as "error ", which many lines contain).
func lintLiterals() []string {
	return []string{"reformat", "Code style issues", "Imports are incorrectly sorted", "Diff in ", " problem", " offense", " violation", "MD", "DL", "SC", "error  ", " in strict mode", "treated as error"}
}

// buildLiterals: undefined targets and tasks, missing libraries and
// remotes not configured.
func buildLiterals() []string {
	return []string{"No rule to make target", "know how to build task", "unknown target '", "does not contain ", "ask ", "Could NOT find ", "No package '", "not resolve dependencies", "version solving failed", "emote ", "not appear to be a git repository", "is this a git repository"}
}

// stateLiterals: hash mismatches and migrations in a bad state.
func stateLiterals() []string {
	return []string{"ash mismatch", "hecksum", "EINTEGRITY", "Dirty database version", "Multiple head revisions", "failed migration", "failed validation", "an't locate revision"}
}

// keyLiterals: keys, signatures and regions.
func keyLiterals() []string {
	return []string{"no identity matched", "no master key", "ecryption failed", "o secret key", "bad decrypt", "ignature", "NO_PUBKEY", "region", "AuthorizationHeaderMalformed", "IllegalLocationConstraint", "PermanentRedirect", "specified endpoint"}
}

// secretLiterals: key files and tokens.
func secretLiterals() []string {
	return []string{"load ", "open file or uri", "ould not read ", "_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PAT"}
}

// idleLiterals: nothing to do.
func idleLiterals() []string {
	return []string{"o changes to deploy", "updates are to be performed", "contain changes", "othing to ", "o tests ", "id not find any ", "o input", "o images defined", "have a Dockerfile or buildpacks", "efault language could be detected", "generate a build plan", "buildpack groups passed detection", "match known buildpacks"}
}

// refusalLiterals: policies and platforms.
func refusalLiterals() []string {
	return []string{"polic", "invalid_input", "invalid_request_error", "InvalidParameter", "requires ", "bundle only supports platforms", "supported wheel", "not compatible with "}
}

// The literals of the signatures widened from the fourth held-out set
// (family5.txt), for sigDef.need, as for the third set's.

// lintCountLiterals: reports that end in a count of problems.
func lintCountLiterals() []string {
	return []string{"Found ", "(s)", "leaks found: ", "Issues found: "}
}

// lintFindingLiterals: findings that name a file position and a rule.
func lintFindingLiterals() []string {
	return []string{".py:", ".pyi:", ".kt:", ".kts:", ".proto:", ".rb:", ".yml:", ".yaml:", "\u2716", "\u00d7", " - Unknown word (", "| P: ", " at Resources/", " at Outputs/", " at Parameters/", " at Conditions/", " at Mappings/", "Previously present "}
}

// brokerRefusalLiterals: a broker refusing a client's credentials.
func brokerRefusalLiterals() []string {
	return []string{"onnection Refused", "onnection refused"}
}

// refusedLiterals: credentials refused in a tool's own sentence.
func refusedLiterals() []string {
	return []string{"redentials", "password was incorrect", "assword verification failed"}
}

// serverBusyLiterals: a file or VPN server's own transient status.
func serverBusyLiterals() []string { return []string{"STATUS_", "AUTH_FAILED,TEMP"} }

// rejectedLiterals: credentials refused in a tool's terms.
func rejectedLiterals() []string {
	return []string{"AUTH_FAILED", "STATUS_", "... forbidden"}
}

// loadLiterals: an app, plugin, import or driver that cannot be loaded.
func loadLiterals() []string {
	return []string{"ASGI app", "ould not import ", "Failed to find ", "failed to boot", "App failed to load", "load celery application", "ould not find module \"", "couldn't find the ", " modules in this workspace", "ailed to resolve ", "ould not resolve \"", "DBD::", "o suitable driver found", "unknown driver \""}
}

// itemLiterals: a package, image, dependency or item that is not there.
func itemLiterals() []string {
	return []string{"No package", "No installed package", "No packages", "find manifest for '", "does the image exist", "Not found", "Not Found", "ependency '", "ependency \"", "Package requirements ("}
}

// configNameLiterals: a section, remote or directive the config names.
func configNameLiterals() []string {
	return []string{"find section in config", "no summary found (check", "has no summary file", "disabled remote", "directive", "perhaps misspelled", "nknown keyword '"}
}

// twiceLiterals: a name registered twice, a recorded checksum changed.
func twiceLiterals() []string {
	return []string{"already registered id", "already used", "registration attempted", "Duplicate ", "already declared", "check sum", "but is now: ", "changed between lock files", "listed checksum of", "checksums previously recorded", "checksums recorded"}
}

// conflictLiterals: files owned twice, requirements that cannot hold
// together.
func conflictLiterals() []string {
	return []string{"conflicts with file from package", "conflicts between attempted installs", "which is also in package", "conflicting files", " exists in filesystem", "ResolutionImpossible", "RequirementsConflicted", "Requirements conflict:", "nable to find a resolution", "conflicting dependencies", "unresolvable package conflicts"}
}

// platformLiterals: another architecture, a kernel feature missing.
func platformLiterals() []string {
	return []string{"xec format error", "cannot execute binary file", "wrong ELF class", "incompatible architecture", "RTNETLINK answers: Operation not supported", "Protocol not supported", "modprobe: FATAL: Module ", "do you need to insmod"}
}

// toolchainLiterals: a toolchain too old, a protocol retired.
func toolchainLiterals() []string {
	return []string{"too outdated", "or higher is required", "has been removed from CMake", "go.mod requires go", "git://github.com/"}
}

// signingKeyLiterals: signatures made with a key the tool does not know.
func signingKeyLiterals() []string {
	return []string{"matching keyid", "Public key for ", "GPG check FAILED", "ignature from \"", "check signature: "}
}

// The literals of the families widened from the fifth held-out set
// (family6.txt), for sigDef.need.

// certNameLiterals: a certificate issued for another name.
func certNameLiterals() []string {
	return []string{"does not match target host", "matches target host", "match certificate's altnames"}
}

// envLiterals: a version, component or package manager the project pins
// that the machine does not have.
func envLiterals() []string {
	return []string{"env: ", "env-virtualenv: ", " is not installed. Install using", "unavailable for download", "\"packageManager\"", "\u201cpackageManager\u201d", "is configured to use "}
}

// resolveLiterals: dependencies that cannot be resolved, modules a
// playbook names that no collection provides.
func resolveLiterals() []string {
	return []string{"dependency resolution failed", "Failed to use \"", "spec sources contain", "resolve module/action"}
}

// fileLiterals: a file or an ACME challenge that is not there, or a move
// across filesystems.
func fileLiterals() []string {
	return []string{"cannot find or open ", "acme-challenge/", "ross-device link", "EXDEV"}
}

// The literals of the families for the sixth held-out set's long tail
// (family8.txt), for sigDef.need.

// unsatisfiedLiterals: versions or packages nothing satisfies.
func unsatisfiedLiterals() []string {
	return []string{"onfiguration does not match", "releases match the given constraints", "configured version constraint", "No package matches ", "o solution found"}
}

// buildDepLiterals: build dependencies not installed.
func buildDepLiterals() []string {
	return []string{"uild dependencies"}
}

// unknownKeyLiterals: a signature made with a key not in the keyring.
func unknownKeyLiterals() []string { return []string{"unknown public key "} }

// noRepoLiterals: no mirror or repository configured.
func noRepoLiterals() []string {
	return []string{"without setting a mirror", "o repositories found", "o repositories configured"}
}

// pluginLiterals: a theme or plugin the configuration names that is not
// installed.
func pluginLiterals() []string {
	return []string{"nrecognised theme", "nrecognized theme", "installed themes are", "likely part of a plugin"}
}

// grammarLiterals: a parser's "unexpected X, expecting Y", a linter with
// no files, a migration history out of order.
func grammarLiterals() []string {
	return []string{" expecting ", "o files to analy", "InconsistentMigrationHistory", "is applied before its dependency"}
}

// releaseLiterals: an installation older than the release its repository
// serves.
func releaseLiterals() []string {
	return []string{"epository is newer than local", "older than remote repository", "ross release updates"}
}

// The literals of the families from the eighth held-out set
// (family10.txt), for sigDef.need.

// sqlSyntaxLiterals: SQL a database rejected as invalid.
func sqlSyntaxLiterals() []string {
	return []string{"error in your SQL syntax", "ncorrect syntax near"}
}

// unsolvableLiterals: a solver's verdict that the requests cannot all hold.
func unsolvableLiterals() []string {
	return []string{"annot solve the request", "requirements are unsatisfiable", "ould not solve for environment", "o agreement on the version", "ependencies have diverged", "installable versions previously reported", "packages are incompatible", "onstructing the build plan", "lan construction failed"}
}

// The families from the ninth held-out set (family11.txt).

// methodURLStatus is a status some HTTP clients print after the method
// and URL: bun's "error: GET https://… - 404" and pnpm's "GET https://…:
// Not Found - 404".
func methodURLStatus(codes string) string {
	return `\b(?:GET|HEAD|POST|PUT|PATCH|DELETE) https?://\S+(?:: [A-Z][A-Za-z ]*)? - ` + codes + `\b`
}

// methodStatusLiterals are the codes of methodURLStatus as literals.
func methodStatusLiterals(codes []string) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = " - " + c
	}
	return out
}

// repoLiterals: a backup storage with no repository in it.
func repoLiterals() []string {
	return []string{"has not been initialized", "not initialized in the provided storage", "Is there a repository at", "Check repo config"}
}

// fileToCheckForm is a checksum step finding no file to check, which a
// failed download leaves behind; fileToCheckLiterals are its literals.
const fileToCheckForm = `\b[Ff]ile to (?:checksum|verify|hash) does(?:n't| not) exist\b`

func fileToCheckLiterals() []string {
	return []string{"ile to checksum does", "ile to verify does", "ile to hash does"}
}

// The error line (sigErrorLine) and the words that keep it from deciding
// (sigUnsure), from the fifth held-out set: a static problem named in a
// program's own words on an error line.

// errorLineMarker is the start of an error line: "error:", "ERROR",
// "fatal:", "E: ", "npm ERR!", "ERR_PNPM_…", Mix's "** (", CocoaPods'
// "[!]", a cross or a stop sign, "prog: error".
const errorLineMarker = `^\W{0,6}(?:\[?(?:[Ee]rror|ERROR|[Ff]atal|FATAL|ERR!?|SEVERE|CRITICAL)\]?(?::|!| \[| )|E: |ERR_[A-Z_]+ |\*\* \(|[\x{2716}\x{00d7}\x{2718}\x{274C}\x{1F6D1}]|\[!\]|An error has occurred: |[\w.-]+: (?:[Ee]rror|fatal|ERROR)\b).*?`

// errorLineForms are the two halves of the words an error line names a
// static problem with, each after errorLineMarker, with their literals
// for sigDef.need; two rows keep each under the backtracker's size.
func errorLineForms() [2]sigDef {
	return [2]sigDef{
		{sigErrorLine, errorLineMarker + `(?:[Ii]nvalid|[Uu]nsupported|[Nn]ot found|not installed|[Mm]issing|[Rr]equired|\bmust\b|[Cc]an(?:not|'t) (?:find|parse|be)|[Cc]ould(?:n't| not) (?:find|match)|[Uu]nable to find|[Nn]o such|(?:^|[^\w-])[Uu]nknown\b)`,
			"an error line names something invalid, unknown, unsupported, missing, required or not found, and no line spoke of a failure that passes",
			[]string{"nvalid", "nsupported", "ot found", "not installed", "issing", "equired", "must", "find", "parse", "an't be", "annot be", "match", "o such", "nknown"}},
		{sigErrorLine, errorLineMarker + `(?:not (?:allowed|permitted|defined|compatible)|refused to|[Mm]ismatch|[Ii]ncompatible|[Ee]xpected .* (?:got|but)|is not a valid|[Ff]ailed to parse|[Uu]nrecogni[sz]ed|does(?:n't| not) exist|[Uu]ndefined|\b[Nn]o .*(?:found|available|specified)|should not be|[Cc]onflict|resolution failed|[Vv]alidat\w* failed|failed validation|[Pp]ars(?:e|ing) (?:error|expression))`,
			"an error line names something not allowed, not matching, incompatible, unrecognized or undefined, and no line spoke of a failure that passes",
			[]string{"not allowed", "not permitted", "not defined", "not compatible", "refused to", "ismatch", "ncompatible", "xpected", "valid", "nrecogni", "exist", "ndefined", "found", "available", "specified", "should not be", "onflict", "resolution failed", "alidat", "parse", "arse error", "arsing"}},
	}
}

// unsureForms are the vocabulary of failures that pass, in two rows with
// their literals: timeouts, connections, names that do not resolve,
// locks, busy or starting services, rate limits and quotas, 5xx
// statuses; downloads and fetches, waits and retries, signals, memory
// and disks. It is broad on purpose: it only keeps an error line from
// deciding.
func unsureForms() [2]sigDef {
	return [2]sigDef{
		{sigUnsure, `[Tt]ime[ds]? ?[Oo]ut|TIME[DS]? ?OUT|[Tt]emporar|TEMPORAR|[Uu]navailable|UNAVAILABLE|[Cc]onnect|CONN|[Nn]etwork|NETWORK|[Rr]eset|RESET|[Rr]efused|REFUSED|[Rr]esolv(?:e|ing)\b|[Nn]ame resolution|\bDNS\b|\bEOF\b|[Dd]eadlock|(?:^|[^\w.-])[Ll]ock(?:ed|s|ing)?(?:$|[^\w.-]|\.(?:$|\s))|\bLOCK(?:ED)?\b|[Bb]usy|BUSY|[Aa]gain\b|AGAIN|[Rr]etr(?:y|ies|ying)\b|RETR|\b[Rr]ate\b|[Rr]ate.?[Ll]imit|RATE|[Tt]hrottl|THROTTL|[Qq]uota|QUOTA|\b(?:429|50[0234])\b`,
			"a timeout, a connection, a name that does not resolve, a lock, a busy server, a retry, a rate limit or a 5xx: no error line decides",
			[]string{"imeout", "imeOut", "imedout", "imedOut", "imesout", "imesOut", "ime out", "ime Out", "imed out", "imed Out", "imes out", "imes Out", "IMEOUT", "IMEDOUT", "IMESOUT", "IME OUT", "IMED OUT", "IMES OUT", "emporar", "EMPORAR", "navailable", "NAVAILABLE", "onnect", "CONN", "etwork", "ETWORK", "eset", "ESET", "efused", "EFUSED", "esolv", "ame resolution", "DNS", "EOF", "lock", "Lock", "LOCK", "busy", "Busy", "BUSY", "again", "Again", "AGAIN", "etry", "etri", "RETR", "rate", "Rate", "RATE", "hrottl", "HROTTL", "uota", "UOTA", "429", "500", "502", "503", "504"}},
		{sigUnsure, `[Oo]verload|[Ss]tarting up|\bis starting\b|still starting|[Nn]ot ready|\b[Rr]eady\b|[Ii]nterrupt|[Kk]illed|[Mm]emory|[Nn]o space|[Ss]ocket|[Uu]nreachable|UNREACH|[Hh]andshake|[Gg]ateway|[Uu]pstream|[Tt]oo [Mm]any|TOO_MANY|[Ee]xhausted|EXHAUSTED|[Dd]eadline|DEADLINE|[Ll]ater\b|[Oo]ffline|in progress|cannot be reached|[Ss]tream error|[Pp]ipe|[Aa]borted|[Tt]erminated|[Ss]ignal|[Dd]isk|[Hh]ost|[Dd]ownload|[Ff]etch|[Ww]ait|PIPE|ABORT|DISK|FETCH|DOWNLOAD|SOCKET|MEMORY|KILL|OVERLOAD|OFFLINE`,
			"a service starting or overloaded, a process killed, memory, a socket, a download or fetch, a wait: no error line decides",
			[]string{"verload", "tarting", "ot ready", "ready", "Ready", "nterrupt", "illed", "emory", "o space", "ocket", "nreachable", "NREACH", "andshake", "ateway", "pstream", "oo many", "oo Many", "TOO_MANY", "xhausted", "XHAUSTED", "eadline", "EADLINE", "later", "Later", "ffline", "in progress", "cannot be reached", "tream error", "pipe", "Pipe", "borted", "erminated", "ignal", "disk", "Disk", "host", "Host", "ownload", "etch", "wait", "Wait", "PIPE", "ABORT", "DISK", "FETCH", "DOWNLOAD", "SOCKET", "MEMORY", "KILL", "OVERLOAD", "OFFLINE"}},
	}
}

// HTTP status fragments for signatures: the terminal statuses the issue
// of a 4xx names (the others are rarer and left to the default), and the
// transient ones.
const (
	sigHTTPStop  = `(?:40[01345]|409|410|422)`
	sigHTTPRetry = `(?:429|50[0234])`
)

// httpForms returns the textual forms a status takes in programs' output,
// each anchored on the words around the code: "HTTP 404", "HTTP/1.1 404",
// "HTTP Error 404", "status code: 401", "StatusCode: 403", "status=404",
// "403 Client Error", "code=404", "curl: code 404 while", "googleapi:
// Error 404:", "returned error: 404", "GET returned 501", the "METHOD
// URL: 404 message" of Go API clients (doctl, go-github), "request
// failed: 401" and the "[409] Conflict" of pulumi. 501 (Not Implemented,
// or a mirror's "HTTPS Required") is terminal, as curl's preset has it,
// in a row of its own that keeps this one small.
func httpForms(codes string) string {
	// The forms that end just before the code share one copy of it: a
	// regexp small enough for the backtracking matcher, which runs far
	// faster than the automaton larger ones need.
	before := `\bHTTP(?:/[0-9.]+|Error:?)?[ :]+(?:[Ee]rror[: ]+|[Ss]tatus[: ]+|[Cc]ode[: ]+|[Rr]esponse[: ]+)?` +
		`|\b[Ss]tat(?:us(?:[ _]?[Cc]ode)?)?["']?[ \t]*[:=]?[ \t]*["']?` +
		`|\b(?:[Cc]ode|[Ee]rror)(?:[=:] ?| )` +
		`|[a-z](?:Exception|Error): ` +
		`|\breturned (?:error: )?` +
		`|\b(?:[Rr]esponse|RESPONSE)(?: code| status)?:? ` +
		`|https?://\S+: ` +
		`|\b[Ff]ailed: `
	return `(?:` + before + `)` + codes + `\b` +
		`|\b` + codes + ` (?:Client|Server) Error\b` +
		`|\bError ` + codes + `:` +
		`|\[` + codes + `\](?: |$)`
}

// HTTP reason phrases, for a status written with its phrase: "404 Not
// Found", "404: Not Found", "[404] Not Found", "404 (Not Found)".
const (
	sigPhraseStop  = `(?:Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Conflict|Gone|Unprocessable Entity)`
	sigPhraseRetry = `(?:Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)`
)

// httpPhrase returns the forms of a status followed by its reason phrase.
func httpPhrase(codes, phrases string) string {
	return `\b` + codes + `\]?:? ` + phrases + `\b|\b` + codes + ` \(` + phrases + `\)`
}

// signatureTable returns the signatures, in the order `retry presets
// signatures` lists them. It builds the table afresh on each call.
func signatureTable() []sigDef {
	lines, unsure := errorLineForms(), unsureForms()
	return []sigDef{
		// Terminal, whatever else was printed. rustls (uv, deno, pkgx,
		// cargo-deny) words an untrusted certificate "invalid peer
		// certificate: UnknownIssuer", in a row of its own that keeps the
		// first small enough for the backtracker.
		{sigStopSure, `x509: certificate|x509: cannot validate|certificate verify failed|CERTIFICATE_VERIFY_FAILED|SSL certificate problem|unable to get local issuer certificate|self[- ]signed certificate in certificate chain|PKIX path building failed|unable to find valid certification path|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|DEPTH_ZERO_SELF_SIGNED_CERT|ERR_TLS_CERT_ALTNAME_INVALID|certificate signed by unknown authority|SSLCertVerificationError`, "certificate not trusted", certificateLiterals()},
		{sigStopSure, `\binvalid (?:peer )?certificate: UnknownIssuer\b`, "certificate not trusted, in rustls' words", []string{"certificate: UnknownIssuer"}},
		{sigStopSure, `[Cc]ertificate has expired|CERT_HAS_EXPIRED`, "certificate expired", nil},
		{sigStopSure, `[Pp]assword authentication failed|[Aa]ccess denied for user|Permission denied \(publickey|[Bb]ad credentials|[Aa]uthentication failed|[Ll]ogin failed for user|[Ii]nvalid (?:username or password|credentials|username/password|API key|api key|access token|authentication token)|[Ii]ncorrect (?:username or password|password)|[Ww]rong password|WRONGPASS|NOAUTH Authentication required|[Tt]oken (?:has )?expired|ExpiredToken|[Cc]redentials (?:have )?expired`, "credentials missing or refused", nil},
		{sigStopSure, `[Cc]redentials (?:were|was|are|is) (?:rejected|incorrect|invalid|not valid)|[Ww]rong (?:login )?credentials|password was incorrect|[Pp]assword verification failed`, "credentials refused, in the sentence of a tool or a keystore", refusedLiterals()},
		{sigStopSure, `[Cc]onnection [Rr]efused[:,] (?:[Nn]ot [Aa]uthori[sz]ed|bad user ?name or password)`, "a broker refused the client's credentials (MQTT's CONNACK 4 or 5)", brokerRefusalLiterals()},
		{sigStopSure, `security token included in the request is invalid|no credentials have been configured|NoCredentialProviders|SignatureDoesNotMatch|API key not valid|the server has asked for the client to provide credentials`, "a cloud API refused the credentials or found none", nil},
		{sigStopSure, `Bad owner or permissions on|Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|UNPROTECTED PRIVATE KEY FILE|Unable to negotiate with|[Nn]o matching (?:host key type|key exchange method|cipher|MAC) found`, "ssh refused the host key, its configuration or the key file", nil},
		{sigStopSure, `[Uu]nsupported (?:proxy |URL |protocol )?scheme|UnsupportedProtocol\b`, "a URL whose scheme no client supports", nil},
		{sigStopSure, `\bcould not read (?:Username|Password) for '[^']+': terminal prompts disabled\b`, "git needed credentials it could not ask for: a private repository, or none at that address", []string{"terminal prompts disabled"}},
		{sigStopSure, `ModuleNotFoundError: |No module named '|Cannot find module '|Cannot find package '|MODULE_NOT_FOUND|ClassNotFoundException|NoClassDefFoundError|Could not find or load main class|UnsupportedClassVersionError|NoSuchMethodError|Can't locate \S+ in @INC|there is no package called|ImportError: No module named [\w.]+$|^(?:/\S+/)?python[\d.]*: No module named [\w.]+$|cannot load such file -- |ImportError while importing test module|Unable to access jarfile|module '[^']+' not found:|module [\w.]+ is not available`, "a module or class the program needs is missing", nil},

		// Transient, whatever else was printed: the program asked to be
		// tried again later.
		{sigRetryLater, `[Tt]ry (?:again|(?:\w+ ){1,3}again) (?:later|in (?:a (?:few |couple of )?|\d+ |several )(?:seconds?|minutes?|hours?|moments?|while))\b|[Rr]etry (?:again )?(?:after|in) \d+ ?(?:s\b|ms\b|sec|min|hour|second|minute)`, "the program asked to be tried again later", []string{"again later", "again in ", "etry after ", "etry in ", "etry again after ", "etry again in "}},

		// Transient.
		{sigRetry, `[Cc]onnection (?:refused|reset|timed out|aborted|termination|timeout)|CONNECTION_REFUSED|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNABORTED|EAI_AGAIN|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET|socket hang up|[Nn]o route to host|[Nn]etwork is unreachable|[Cc]onnection (?:closed by|was (?:forcibly )?closed|lost|unexpectedly closed)|closed the connection unexpectedly|[Ss]erver closed the connection|unexpected EOF|http2: server sent GOAWAY`, "the connection failed or was cut", nil},
		{sigRetry, `[Tt]emporary failure in name resolution|[Tt]emporary failure resolving|[Cc]ould(?:n't| not) resolve host|server misbehaving|getaddrinfo EAI_AGAIN|UnknownHostException|[Nn]ame resolution failed|NameResolutionError|[Nn]o such host|[Hh]ost (?:name )?not found|[Nn]ame or service not known|[Cc]ould not resolve proxy`, "name resolution failed", nil},
		{sigRetry, `i/o timeout|TLS handshake timeout|[Hh]andshake (?:timed out|eof)|[Dd]eadline exceeded|DEADLINE_EXCEEDED|Client\.Timeout exceeded|[Tt]imed out|[Tt]imeout (?:exceeded|expired|reached|waiting)|SocketTimeoutException|ReadTimeout|ConnectTimeout|TimeoutError|socket\.timeout`, "a timeout", nil},
		{sigRetry, `(?:ConnectException|SocketException|NoRouteToHostException|HttpRetryException|ConnectionRefusedError|ConnectionResetError|ConnectionAbortedError|BrokenPipeError|NewConnectionError|RemoteDisconnected|IncompleteRead|ChunkedEncodingError|ProtocolError)\b|requests\.exceptions\.ConnectionError|Max retries exceeded with url`, "a runtime's network exception", nil},
		{sigRetry, httpForms(sigHTTPRetry) + `|` + httpPhrase(sigHTTPRetry, sigPhraseRetry), "HTTP 429 or 5xx: the server may recover", httpRetryCodes()},
		{sigRetry, `code = (?:Unavailable|DeadlineExceeded|ResourceExhausted|Aborted)\b`, "gRPC: unavailable, deadline exceeded, exhausted or aborted", nil},
		{sigRetry, `[Rr]ate[ -]?[Ll]imit|RATE_LIMIT|[Tt]hrottl|THROTTL|[Tt]oo [Mm]any [Rr]equests|TOO_MANY_REQUESTS|SlowDown|[Ss]low down|ResourceExhausted|RESOURCE_EXHAUSTED|[Qq]uota exceeded for quota metric`, "rate limited", nil},
		{sigRetry, `[Ss]ervice (?:is )?(?:temporarily )?[Uu]navailable|SERVICE_UNAVAILABLE|[Tt]emporarily unavailable|[Tt]ry again later|[Tt]oo many (?:users|requests|downloads)\b[^.]*\brecently\b|[Pp]lease try again|[Ss]erver is (?:busy|overloaded)|[Tt]emporary failure|\bTRYAGAIN\b|\bLOADING\b.*loading the dataset|\bBUSY\b.*busy running|\bMASTERDOWN\b|\bCLUSTERDOWN\b|READONLY You can't write against a read only|[Nn]o healthy (?:upstream|endpoint|backend|host|instance|replica)|not ready yet|[Cc]ould(?:n't| not) find (?:a |any )?(?:ready|healthy|running) `, "the service is unavailable for now", nil},
		{sigRetry, `database system is (?:starting up|shutting down|in recovery mode|not yet accepting connections)|too many clients already|[Tt]oo many connections|[Dd]eadlock (?:found|detected)|could not serialize access|[Ll]ock wait timeout|MySQL server has gone away|Lost connection to (?:MySQL|server)|Can't connect to (?:local )?MySQL server|could not connect to server|[Ii]s the (?:server|[Dd]ocker daemon) running|remaining connection slots are reserved`, "the database is not ready or busy", nil},

		{sigRetry, `[Ii]nvalid character '<' looking for beginning of value|Unexpected token '?<'?,? (?:"<|in JSON at position 0)|[Uu]nexpected end of (?:JSON input|archive|data|stream)|stdin: unexpected end of file|[Pp]remature end of|Unexpected EOF in archive|[Tt]runcated (?:gzip|archive|tar|file|download|input|response)|[Ii]ncomplete (?:read|download|transfer)|transfer closed with|Content-Length mismatch|[Ss]hort read`, "the reply was cut short or was an error page", nil},
		{sigRetry, `[Bb]roken pipe|[Ss]ocket disconnected|[Cc]ould(?:n't| not) connect to (?:the )?(?:server|host)\b|(?:sending|receiving) data (?:to|from) the peer|upstream connect error|[Cc]an't reach database server|[Ee]rror decoding response body|unreachable network|[Tt]imeout was reached|execution expired|:timeout\b|: EOF$|[Tt]ried to reconnect at offset|[Pp]remature EOF|[Rr]ead error at byte|[Cc]onnection closed prematurely|transfer failed for \S+$`, "the transfer broke off or never connected", nil},
		{sigRetry, `[Aa]nother (?:[\w-]+ )?(?:process|instance|operation|run) (?:is|seems to be|was) (?:already )?(?:running|in progress|active)|(?:[Cc]ould(?:n't| not)|[Uu]nable to|[Ff]ailed to) (?:(?:get|acquire|obtain) (?:the |a )?(?:[\w-]+ ){0,2})?lock\b|(?:locked by|is) another process\b|\block(?: file)? (?:already exists|is (?:already )?held|held by)|[Ww]aiting for (?:the )?(?:[\w-]+ )?lock|[Cc]an't (?:acquire|obtain) (?:the |a )?lock\b|[Rr]esource (?:temporarily unavailable|busy)|already locked by|[Dd]atabase is locked|dial unix \S+: (?:connect: )?no such file or directory|[Tt]ext file busy`, "a lock or resource held by another process", nil},
		// Java's "peer not authenticated" (SSLPeerUnverifiedException from
		// Apache HttpClient) names the server's TLS identity, not the
		// user's: the handshake did not finish, as when a repository is
		// down or a proxy cuts the connection. Leiningen, Maven and Gradle
		// print it; an old JDK that never completes the handshake is
		// retried too, which costs seconds.
		{sigRetry, `\bpeer not authenticated\b`, "the TLS handshake did not finish (Java's \"peer not authenticated\")", []string{"peer not authenticated"}},
		// An HTTP/2 stream the server or a proxy reset: Go's net/http
		// ("stream error: stream ID 1; INTERNAL_ERROR") and curl's (92).
		{sigRetry, `\bstream error: stream ID \d+|HTTP/2 stream \d+ was not closed cleanly|[Ss]tream error in the HTTP/2 framing layer`, "an HTTP/2 stream reset by the server or a proxy", []string{"stream error: stream ID ", "was not closed cleanly", "tream error in the HTTP/2"}},
		// A CloudFormation stack another deployment is still updating
		// ("is in UPDATE_IN_PROGRESS state and can not be updated", under
		// the ValidationError's 400) is free again once that one ends.
		{sigRetry, `\bis in [A-Z_]+_IN_PROGRESS state and can ?not be updated\b`, "a CloudFormation stack another deployment is still updating", []string{"_IN_PROGRESS state"}},
		{sigRetry, `[Tt]he HTTP response code for \S+ did not indicate a success|[Dd]ownloaded file size doesn't match expected Content Length for \S+`, "Ivy's word for a download the server broke off after saying it had the file", []string{"did not indicate a success", "expected Content Length"}},
		{sigRetry, `\b(?:NT_)?STATUS_(?:IO_TIMEOUT|CONNECTION_(?:REFUSED|RESET|DISCONNECTED|ABORTED)|HOST_UNREACHABLE|NETWORK_UNREACHABLE|INSUFFICIENT_RESOURCES|NETWORK_BUSY)\b|\bAUTH_FAILED,TEMP\b`, "a file or VPN server's own word for a timeout, a lost connection or a busy server", serverBusyLiterals()},
		// The twelfth held-out set's transient failures taken as terminal
		// (family14.txt). The go command checks a module's hash with the
		// checksum database only after it has downloaded the module, so
		// "verifying module: …: reading https://sum.golang.org/lookup/…:
		// 404 Not Found" names a version that exists and that the database
		// has not fetched yet: a tag pushed minutes ago (goreleaser's
		// proxy step, a go get right after a release). A tag that does not
		// exist fails earlier, at the proxy's .info, and stays terminal.
		{sigRetry, `\bverifying (?:module|go\.mod): \S+: reading https?://\S+/lookup/\S+: (?:404 Not Found|410 Gone)$`, "the checksum database has not seen a version the go command already downloaded: a tag just pushed", []string{"/lookup/"}},
		// Google Fonts' CDN answers 404 for files its own CSS API names,
		// now and then (google/fonts#10804): a build that downloads them
		// (next/font, @nuxt/fonts) passes on the next run. Turbopack wraps
		// the URL onto a line of its own after "when requesting", and
		// reports the failed download as a font module it cannot resolve.
		{sigRetry, `\bstatus 404 when requesting https://fonts\.(?:gstatic|googleapis)\.com/|"https://fonts\.(?:gstatic|googleapis)\.com/[^"\s]*": 404 Not Found|^\s*https://fonts\.(?:gstatic|googleapis)\.com/\S+$|Can't resolve '@vercel/turbopack-next/internal/font/google/font'`, "Google Fonts answered 404 for a file its CSS named, as its CDN does now and then", []string{"fonts.gstatic.com/", "fonts.googleapis.com/", "turbopack-next/internal/font/google/font"}},
		// libgit2 (cargo, cargo-release, git2 programs) failing to find an
		// object it had just fetched: its database is out of step with
		// the remote, which cargo itself repairs by fetching again.
		{sigRetry, `\b[Oo]bject not found - no match for id \([0-9a-f]+\)`, "libgit2 lost an object it had just fetched: a cache out of step that a new fetch often repairs", []string{"no match for id ("}},

		// A line that says what the program does about a missing thing:
		// the terminal signatures below are not sought on it.
		{sigGoesOn, `\bnot (?:be )?found(?: (?:locally|in (?:the )?(?:local )?cache))?(?:[.,;:!]| -)? +(?:(?:so |and )?(?:it |one |we |this )?(?:[Ww]ill|'ll) (?:now )?(?:be )?(?:fetch|download|install|creat|us|tr|fall|attempt|retr|search|look|pull|build|generat|clon|skip|ignor|continu|add)|(?:[Ff]etch|[Dd]ownload|[Tt]ry|[Ii]nstall|[Cc]reat|[Uu]s|[Ff]all|[Aa]ttempt|[Rr]etry|[Ss]earch|[Ll]ook|[Pp]ull|[Bb]uild|[Gg]enerat|[Cc]lon|[Ss]kipp|[Ii]gnor|[Cc]ontinu|[Aa]dd)ing\b)`, "a missing thing the program goes on to fetch, create or do without", []string{"not found", "not be found"}},

		// A file a checksum step was handed that is not there (nvm's and
		// gvm's "Provided file to checksum does not exist.") is what a
		// failed download leaves behind: the line is judged as an error
		// line, so a download, a timeout or any word of a failure that
		// passes wins over it, and the terminal signatures below are not
		// sought on it. The error-line row comes first, so that the info
		// row does not hide it.
		{sigErrorLine, fileToCheckForm, "a file a checksum step was handed is not there, and no line spoke of a failure that passes", fileToCheckLiterals()},
		{sigGoesOn, fileToCheckForm, "a file a checksum step was handed is not there: judged as an error line, not by the terminal signatures", fileToCheckLiterals()},

		// Terminal unless something transient was printed too.
		{sigStop, httpForms(sigHTTPStop) + `|` + httpPhrase(sigHTTPStop, sigPhraseStop), "HTTP 400, 401, 403, 404, 405, 409, 410 or 422: the request is wrong", httpStopCodes()},
		{sigStop, `code = (?:PermissionDenied|Unauthenticated|NotFound|InvalidArgument|AlreadyExists|Unimplemented|OutOfRange)\b|(?:\b(?:returned|[Cc]ode|[Ss]tatus(?: code)?:?|HTTP(?:/[0-9.]+)?) |\[)501\b|\b501 Not Implemented\b|HTTPS Required`, "gRPC: refused, not found or invalid; HTTP 501: not implemented", []string{"code = ", "501", "HTTPS Required"}},
		{sigStop, `(?:must|need to) be (?:authenticated|logged in)|[Nn]ot authenticated|\b[Uu]nauthorized\b|\bUNAUTHENTICATED\b|\bPERMISSION_DENIED\b|\b[Nn]ot authorized\b|\b[Aa]ccess [Dd]enied\b|\b[Aa]ccess [Ff]orbidden\b|\bForbidden\b|\bis forbidden\b|[Pp]ermission denied|[Aa]uthentication required|[Aa]uthentication error\b|[Nn]ot logged in|must be logged in|[Aa]uthorization failed|AuthorizationFailed|AccessDenied|(?:[Rr]un|[Uu]se|[Tt]ry)[ \t]+['"\x60]?[\w.-]+(?: auth)? login\b`, "authentication or authorization refused", nil},
		{sigStop, `[Nn]o such package|[Nn]o matching version|[Nn]o matching distribution|[Cc]ould not find artifact|[Mm]odule not found|[Pp]ackage not found|[Cc]ould not find a version that satisfies|[Uu]nable to find a match|[Nn]o package .* available|[Nn]o match for argument|[Cc]ould not find gem|[Cc]ould not find (?:a )?(?:package|module|crate)|[Nn]o (?:matching )?package named|not found in (?:the )?(?:registry|repository|index)|[Mm]anifest unknown|[Uu]nknown revision|[Ii]nvalid version|\bdoes not exists?\b|[Cc]ould not be found|\bwas not found\b|\b[Nn]ot found: |[Rr]epository not found|\b(?:[Pp]roject|[Rr]elease|[Pp]ackage|[Aa]rtifact|[Ii]mage|[Bb]ucket|[Oo]bject|[Rr]esource|[Mm]odule|[Cc]hart|[Tt]ag|[Vv]ersion|[Bb]ranch|[Uu]ser|[Oo]rganization|[Ww]orkspace|[Ss]ecret|[Tt]able|[Dd]atabase|[Nn]amespace|[Aa]pp|[Dd]irectory|[Aa]pplication|[Cc]ollection|[Ff]ormula|[Cc]rate|[Gg]em) not found\b|(?:\b|[a-z])NotFound\b|\bNOT_FOUND\b|[Nn]o such (?:bucket|key|image|container|object|repository|remote|table)|: not found\.?$`, "no such package, version, artifact or object", nil},
		{sigStop, `[Nn]o space left on device|\bENOSPC\b|\bINSTALL_FAILED_INSUFFICIENT_STORAGE\b|\b[Nn]ot enough (?:free )?(?:disk |storage )?space\b|There is not enough space on the disk`, "no space left on the device", nil},
		{sigStop, `SyntaxError: |IndentationError: |TabError: |NameError: |\berror\[E[0-9]{4}\]|[Cc]ould not compile|COMPILATION ERROR|[Cc]ompilation failed|\berror (?:CS|TS|FS|BC)[0-9]{4}:|cannot find symbol|undefined reference to|[Ss]yntax error`, "compile, syntax or parse error", nil},
		{sigStop, `[Uu]nknown (?:command|subcommand|option|flag|shorthand flag|argument)|[Uu]nrecognized (?:option|arguments?|command)|[Ii]nvalid (?:option|choice)|[Nn]o such (?:option|command|subcommand)|flag provided but not defined|the following arguments are required|required arguments were not provided|required flag\(s\) .* not set|Error: Missing (?:option|argument) ['"]|unexpected argument|[Uu]nknown lifecycle phase|: command not found|is not a [a-z-]+ command|[Uu]nknown (?:key|field|property)\b|no configuration has been provided|^[Uu]sage: [\w./-]+ (?:\[|<|-{1,2}\w|[A-Z]+\b)`, "usage error: unknown command or option", nil},

		{sigStop, `(?:[Ff]ailed to|[Uu]nable to|[Cc]ould(?:n't| not)) authenticate|AuthenticationFailed|(?:SASL auth(?:entication)?|failed SASL) (?:failed|auth)\b|[Uu]nable to (?:use|validate|verify) (?:the )?(?:supplied |provided |given )?(?:token|credentials|API key)|[Ii]nvalid (?:[\w-]+ )?(?:token|credentials?|API key|api key|secret|password)\b|[Tt]oken (?:provided |has been |is )*(?:invalid|not valid|expired|revoked)|[Ee]xpired [Tt]oken|[Nn]ot enough permissions|[Ii]nsufficient (?:permissions|privileges|scopes?)|Resource not accessible by (?:[Ii]ntegration|personal access token)`, "credentials refused, in a tool's words", nil},
		{sigStop, `[Nn]o (?:password|token|credentials?|API key|api key|(?:auth(?:entication)?|access|API|api) (?:token|key)) (?:was |were |is |are )?(?:provided|supplied|given|found|set|configured|specified)|[Mm]issing (?:credentials|API key|api key|(?:auth(?:entication)?|access|API|api) (?:token|key))|(?:[Cc]ould not|[Uu]nable to) (?:load|locate) (?:AWS )?credentials|_(?:TOKEN|KEY|SECRET|PASSWORD)\b[^.,]{0,30}?(?:must be (?:set|provided)|is (?:not set|required|missing|empty))(?:$|[^,])`, "credentials missing: set a password or token", nil},
		{sigStop, `[Ll]ogin required|[Pp]lease (?:log ?in|login|sign in|authenticate)|need to (?:log ?in|login|sign in|authenticate)|have to (?:log ?in|login|sign in|authenticate)|[Nn]ot (?:signed|logged) in|[Pp]lease re-?authenticate`, "not logged in", nil},
		{sigStop, `\brequires an authenticated account\b|\b(?:[Rr]un|[Uu]se)[ \t]+['"\x60][\w.-]+ auth(?: init)?['"\x60]`, "not logged in: a hint to run the tool's auth command (snyk auth, doctl auth init)", []string{"requires an authenticated account", " auth'", " auth\"", " auth\x60", " auth init"}},
		{sigStop, `\b[A-Za-z]+['"\x60]? not found(?:$|[.:!)\]'"]| \()|\b(?:HttpError|[Ee]rror)\]?: Not Found\b|[Cc]ould not resolve to an? [A-Z]\w+ with|(?:[Cc]ould(?:n't| not)|[Uu]nable to) find (?:that|the|this|your|any|a|an|specified|matching|one of|file|config|module|package|schema|template|definition|[A-Z][a-z]+(?: ['"]|$))\b|[Uu]nable to locate (?:that|the|this|your|any|a|an|specified|matching|file|config|module|package)\b|\b[Nn]o [\w-]+ named ['"\x60][^'"\x60]*['"\x60] found|\b[Nn]o (?:[\w-]+ ){1,2}(?:was |were |is )?(?:specified|provided|given|selected)(?:[.;!:]|$)|\bdoes(?:n't| not) exist\b|[Nn]ot a (?:valid|directory)\b|[Cc]annot find (?:the )?(?:file|path)`, "a thing the command names is missing, in a tool's words", nil},
		{sigStop, `\b(?:open|stat|lstat|chdir|readlink) [^\s:]+: no such file or directory|ENOENT: no such file or directory, (?:open|stat|lstat|scandir) |No such file or directory: ['"]|(?:cannot stat|cannot access|[Cc]annot open|can't open) .*No such file or directory`, "a file the command names does not exist", nil},
		{sigStop, `[Uu]nknown (?:configuration |config )?(?:key|field|property|setting|parameter|attribute|directive)|[Ii]nvalid (?:value|argument|option|flag|command|parameter|input|configuration|config|format|syntax|selector|expression|reference|URL|url)|[Mm]issing (?:\d+ )?(?:required|configuration|config)\b|\b(?:argument|option|value|flag|parameter|path)['"\x60]? (?:is|was) (?:invalid|not valid)\b|expects (?:a|an|one) (?:value|argument)|requires an argument|\b(?:is|are) required\b|[Rr]equired (?:argument|option|flag|parameter|field|property|key)s? (?:is |are )?(?:missing|not (?:set|provided|specified|given))`, "configuration or input error: unknown key, invalid value, missing setting", nil},
		{sigStop, `[Uu]nsupported (?:[\w-]+ )?(?:protocol|version|option|flag|argument|value|format|platform|architecture|operation|feature|type|location|region|zone)|\b(?:is|are) not supported\b[^,]*$|\bprotocol\b[^,]* is no longer supported|[Ii]ncompatible (?:versions?|with)`, "not supported or incompatible", nil},
		{sigStop, `\b[Pp]arse error\b|[Pp]arsing error|[Ee]rror (?:while )?parsing|(?:[Ff]ailed to|[Uu]nable to|[Cc]ould(?:n't| not)|cannot) (?:parse|decode|unmarshal)|[Ii]nvalid (?:JSON|YAML|TOML|XML|json|yaml|toml)|JSONDecodeError|yaml: (?:line \d+|unmarshal|invalid map key)|mapping values are not allowed|(?:did|could) not (?:find|found) expected|while scanning a (?:simple key|block)|found character that cannot start|[Uu]nexpected (?:token|character|symbol|identifier|keyword|indent)`, "parse error in a file or input", nil},
		{sigStop, `\bcompile errors?\b|[Cc]ompil(?:e|ation) (?:[Ee]rror|failed)|ld returned \d+ exit status|linker command failed|command '[^']+' failed with exit (?:status|code) \d+|\bundefined: \w|declared and not used|imported and not used|\.\w+:\d+(?::\d+)?: (?:fatal )?error: `, "compile error", compileErrorLiterals()},
		{sigStop, `\balready exists?\b|AlreadyExists|[Rr]epushing of [\w ]+ is not allowed|cannot re-?use a name that is still in use|[Cc]annot (?:overwrite|republish|publish over) |ALREADY_EXISTS|already been (?:taken|registered|published|used)|previously published|[Ff]ile exists\b|\bEEXIST\b|[Dd]uplicate (?:key|entry)`, "already exists", nil},
		{sigStop, `[Pp]ayment (?:information|method|details|[Rr]equired)|credit card|[Bb]illing (?:account|details|information|is (?:not enabled|disabled))|[Tt]rial (?:has )?(?:expired|ended)|[Ss]ubscription (?:has )?(?:expired|ended|been cancell?ed|is (?:not active|inactive|suspended))|[Uu]pgrade your (?:plan|account|subscription)|[Ii]nsufficient (?:funds|credits?|balance)|[Oo]ut of credits|(?:[Dd]isk|[Ss]torage) quota\b|[Aa]ccount (?:is |has been )?(?:suspended|disabled|locked|deactivated)`, "billing, plan or hard quota", nil},

		// Families widened from the third held-out set (families2.txt).
		{sigStop, `would reformat \S|\bfiles? would be reformatted|Code style issues (?:were )?found|Imports are incorrectly sorted|^Diff in \S+ at line \d|\b\d+ problems? \(\d+ errors?|found \d+ problems?, \d+ warnings?|\b\d+ offenses? detected|Found \d+ violations?, \d+ serious|\bMD\d{3}/[a-z]|\bDL[34]\d{3} |\bSC[12]\d{3}(?: \(\w+\))?: |^\s+\d+:\d+ +error  +.*\([a-z-]+\)$|Aborted with \d+ warnings? in strict mode|[Ww]arnings?,? (?:being )?treated as errors?`, "a lint or format check found problems, or warnings were taken as errors", lintLiterals()},
		{sigStop, `No rule to make target|Don't know how to build task|unknown target '|does not contain (?:a )?recipe|[Tt]ask ["']?[\w:.-]+["']? (?:is not in your \w+|not found|does not exist)|Task never defined|Could NOT find \w|No package '[^']+' found|[Cc]ould not resolve dependencies|version solving failed|[Nn]o remote ['"][^'"]+['"] (?:defined|configured|found)|[Rr]emote ['"][^'"]+['"] (?:not found|does not exist|is not defined)|does not appear to be a git repository|is this a git repository\?`, "a target, task, library or remote the build names is not defined or not installed", buildLiterals()},
		{sigStop, `hash mismatch in fixed-output derivation|Checksum was [0-9a-f]+ but wanted|[Cc]hecksum mismatch|integrity checksum failed|\bEINTEGRITY\b|[Hh]ash mismatch|Dirty database version|Multiple head revisions|[Dd]etected failed migration|found failed migrations|[Mm]igrations? (?:have|has) failed validation|[Cc]an't locate revision`, "a hash does not match, or a migration tool found the schema in a bad state", stateLiterals()},
		{sigStop, `no identity matched any of the recipients|no master key was able to decrypt|[Dd]ecryption failed\b|[Nn]o secret key\b|\bbad decrypt\b|no (?:matching )?signatures (?:were )?found|no matching signatures|[Ss]ignature verification failed|NO_PUBKEY|the region is wrong|AuthorizationHeaderMalformed|IllegalLocationConstraintException|PermanentRedirect|must be addressed using the specified endpoint|[Ww]rong region|(?:[Ii]nvalid|[Uu]nknown) region\b`, "no key can decrypt it, no signature matches, or the region is wrong", keyLiterals()},
		{sigStop, `[Uu]nable to load (?:[Cc]ertificate|(?:[Pp]rivate |[Pp]ublic |client )?[Kk]ey)|[Cc]annot load certificate|Could not open file or uri|[Cc]ould not (?:read|load) (?:the )?(?:certificate|private key|key file)|[Mm]issing [A-Z][A-Z0-9_]*_(?:TOKEN|KEY|SECRET|PASSWORD)\b|_(?:TOKEN|PAT)\b[^.,;]{0,30}?(?:not set|is unset|is missing)(?:$|[.;])|(?:[Ss]et|[Pp]rovide) (?:the |a |an )?[A-Z][A-Z0-9_]*_(?:TOKEN|KEY|SECRET)\b`, "a certificate or key file cannot be loaded, or a token is not set", secretLiterals()},
		{sigStop, `No changes to deploy|No updates are to be performed|didn't contain changes|[Nn]othing to (?:deploy|release|publish)\b|No tests found|[Nn]o tests (?:ran|were found|to run)\b|[Dd]id not find any [\w.() *]+ files|[Nn]o input files?\b|[Nn]o inputs were found|[Nn]o images defined|does not have a Dockerfile or buildpacks|No default language could be detected|unable to generate a build plan|No buildpack groups passed detection|could not detect app files that match known buildpacks`, "nothing to do: no change, no test, no input, nothing a builder can build", idleLiterals()},
		{sigStop, `not allowed by (?:the )?(?:security )?policy|[Dd]enied by (?:the )?(?:[\w-]+ )?polic(?:y|ies)|blocked due to the following polic|\(invalid_input\b|\binvalid_request_error\b|\bInvalidParameter(?:Value|Combination)\b|requires (?:Ruby|Python|Node(?:\.js)?|PHP) version|requires a different Python|requires rustc [\d.]+ or newer|[Yy]our bundle only supports platforms|is not a supported wheel on this platform|not compatible with (?:this|the current|your) (?:platform|Ruby|Python)`, "a policy, version or platform refuses it", refusalLiterals()},

		// Families widened from the fourth held-out set (family5.txt).
		{sigStop, `\bFound [1-9]\d* (?:errors?|error\(s\)|problems?|issues?)\b|\b[1-9]\d* (?:issue|failure|error)\(s\)(?: found|, \d+ warning)|\bleaks found: [1-9]|\bIssues found: [1-9]`, "a lint, type or secret scan ended in a count of problems", lintCountLiterals()},
		{sigStop, `\.pyi?:\d+:\d+: [A-Z]{1,3}\d{3,4}\b|\.kts?:\d+:\d+: [A-Z]|\.proto:\d+:\d+: ?[A-Z]|\.rb:\d+:\d+: [CWEF]: [A-Z]|\.ya?ml:\d+:\d+: .+ \[[a-z][a-z-]*\]$|^\W*\d+:\d+ +[\x{2716}\x{00d7}] +\S|:\d+:\d+ - Unknown word \(|^L: +\d+ \| P: +\d+ \| +(?:[A-Z]{1,2}\d{2,3}|TMP|PRS|LXR) \||^[EW]\d{4} .* at (?:Resources|Outputs|Parameters|Conditions|Mappings)/|\bPreviously present \w+ "`, "a lint finding: a file position and a rule", lintFindingLiterals()},
		{sigStop, `\bAUTH_FAILED\b|\b(?:NT_)?STATUS_(?:LOGON_FAILURE|WRONG_PASSWORD|ACCESS_DENIED|ACCOUNT_(?:DISABLED|LOCKED_OUT|EXPIRED|RESTRICTION)|PASSWORD_(?:EXPIRED|MUST_CHANGE)|BAD_NETWORK_(?:NAME|PATH)|OBJECT_(?:NAME|PATH)_NOT_FOUND|LOGON_TYPE_NOT_GRANTED)\b|\.\.\. forbidden\b`, "credentials, a share or a token refused in the server's own terms", rejectedLiterals()},
		{sigStop, `Error loading ASGI app\.|[Cc]ould not import ["'][\w.:]+["']|Failed to find (?:Flask )?application(?: or factory)? in module|Failed to find attribute '[^']+' in '|\bWorker failed to boot\b|\bApp failed to load\b|Unable to load celery application|[Cc]ould not find module "[^"]+" from|couldn't find the (?:plugin|config) "|[Cc]ould not find \w+ modules in this workspace|(?:[Rr]ollup f|[Ff])ailed to resolve (?:import|entry for package) "|[Cc]ould not resolve "[^"]+"|DBD::\w+ (?:[\d.]+ |module )?required to manage|[Nn]o suitable driver found for jdbc:|\bsql: unknown driver "`, "an app, plugin, import or driver the program loads cannot be found", loadLiterals()},
		{sigStop, `\b[Nn]o (?:installed )?packages? (?:found |available to install )?matching\b|[Cc]ouldn't find manifest for '|does the image exist remotely\?|^(?:[Ee]rror: )?Not [Ff]ound\.?$|[Nn]ative dependency '[^']+' not found|\b[Dd]ependency ["'][^"']+["'] not found|Package requirements \([^)]*\) were not met`, "a package, image, dependency or item asked for is not there, in the tool's words", itemLiterals()},
		{sigStop, `[Dd]id(?:n't| not) find section in config|no summary found \(check|has no summary file\. Check the URL|fetch summary from disabled remote|[Uu]nrecogni[sz]ed directive\b|is not a registered directive\b|Invalid command '[^']+', perhaps misspelled|[Uu]nknown keyword '[^']+' in '`, "a remote, section or directive the configuration names is not defined or not built in", configNameLiterals()},
		{sigStop, `with an already registered id\b|\bid '[^']*' already used\b|duplicate metrics collector registration attempted|\bDuplicate (?:resource|data|provider|module|variable|output) "[^"]*" configuration|\bwas already declared at\b|"[^"]+" already declared\b|\b\d+ change ?sets? check ?sum\b|\bwas: \S+ but is now: \S+|checksum for \x60[^\x60]+\x60 changed between lock files|listed checksum of \x60[^\x60]+\x60 has changed|match any of the checksums (?:previously )?recorded in the dependency lock file`, "a name registered twice, or a checksum recorded earlier that changed", twiceLiterals()},
		{sigStop, `conflicts with file from package\b|conflicts between attempted installs of\b|trying to overwrite '[^']+', which is also in package|failed to commit transaction \(conflicting files\)|: \S+ exists in filesystem\b|\bResolutionImpossible\b|\bRequirementsConflicted\b|\bRequirements conflict:|Unable to find a resolution\b|these package versions have conflicting dependencies|unresolvable package conflicts detected`, "packages conflict: two own one file, or their requirements cannot all hold", conflictLiterals()},
		{sigStop, `[Ee]xec format error|cannot execute binary file|wrong ELF class: ELFCLASS\d+|incompatible architecture \(have|RTNETLINK answers: Operation not supported|Unable to access interface: Protocol not supported|modprobe: FATAL: Module \S+ not found|Table does not exist \(do you need to insmod\?\)`, "built for another architecture, or a kernel feature is missing", platformLiterals()},
		{sigStop, `Error: Your (?:Xcode|Command Line Tools) (?:\([^)]*\) )?(?:is|are) too outdated|CMake [\d.]+ or higher is required|Compatibility with CMake < [\d.]+ has been removed from CMake|go\.mod requires go >= [\d.]+ \(running go|[Ff]ailed to (?:fetch|execute|clone)\b.*\bgit://github\.com/`, "a toolchain too old for it, or a git:// URL GitHub no longer serves", toolchainLiterals()},
		{sigStop, `[Cc]annot find matching keyid\b|Public key for \S+ is not installed|GPG check FAILED|signature from "[^"]*" is (?:unknown|marginal) trust|Can't check signature: (?:[Nn]o public key|public key not found)`, "a signature made with a key the tool does not know or trust", signingKeyLiterals()},

		// Families widened from the fifth held-out set (family6.txt).
		{sigStopSure, `certificate subject name '[^']*' does not match target host ?name|no alternative certificate subject name matches target host ?name|Hostname/IP does(?:n't| not) match certificate's altnames`, "a certificate issued for another name", certNameLiterals()},
		{sigStop, `\b(?:py|rb|nod|go|j|pl|php)env(?:-virtualenv)?: (?:version )?[\x60']?[^\s']+'? (?:is )?not installed\b|\bis not installed\. Install using "|\bcomponent '[^']+' (?:for (?:target )?'[^']+' )?is unavailable for download\b|defines "packageManager": "[^"]*"\. However the current global version|\x{201c}packageManager\x{201d} is defined|This project is configured to use \w+`, "the version, component or package manager the project pins is not installed or not available", envLiterals()},
		{sigStop, `\bHex dependency resolution failed\b|^Failed to use "[^"]+" (?:\(version|because)|None of your spec sources contain a spec satisfying|couldn't resolve module/action '`, "dependencies cannot be resolved, or no collection provides a module a playbook names", resolveLiterals()},
		{sigStop, `cannot find or open \S+, \S+ or \S+\.ZIP\.|Invalid response from https?://\S+/\.well-known/acme-challenge/\S+(?: \[[^\]]+\])?: 40[34]\b|[Ii]nvalid cross-device link|\bEXDEV\b|cross-device link not permitted`, "a file the command names, or an ACME challenge the web server should serve, is not there; or it moves a file across filesystems", fileLiterals()},
		// Families for the sixth held-out set's long tail (family8.txt).
		{sigStop, `\bfrom [Ss]tack configuration does not match\b|\bno available releases match the given constraints\b|\bconfigured version constraints? [<>=~!]|\bNo package matches \S|\bNo solution found, exiting\b`, "no version or package satisfies the constraints", unsatisfiedLiterals()},
		{sigStop, `Failed build dependencies:|[Uu]nmet build dependencies:|build dependencies/conflicts unsatisfied`, "the build dependencies a package declares are not installed", buildDepLiterals()},
		{sigStop, `\(unknown public key [0-9A-Fa-f]{8,}\)`, "a source signed with a key not in the keyring", unknownKeyLiterals()},
		{sigStop, `trying to use CRAN without setting a mirror|\b[Nn]o repositories (?:found|configured)\. You must add one`, "no mirror or repository is configured", noRepoLiterals()},
		{sigStop, `[Uu]nrecogni[sz]ed theme\b|[Tt]he available installed themes are|\bis likely part of a plugin\b`, "a theme or plugin the configuration names is not installed", pluginLiterals()},
		{sigStop, `\bunexpected (?:'[^']*'|"[^"]*"|[\w-]+),? expecting\b|\bno [Gg]o files to analy[sz]e\b|\bInconsistentMigrationHistory\b|\bis applied before its dependency\b`, "a parser expected other input, a linter found no files, or migrations were applied out of order", grammarLiterals()},
		{sigStop, `[Rr]emote repository is newer than local\b|\bis older than remote repository\b|Cross release updates are only supported with`, "the installation is older than the release its repository serves", releaseLiterals()},
		// Families for the seventh held-out set (family9.txt): a short
		// image name that the containers/image configuration (podman,
		// buildah, skopeo and the tools that run them) will not resolve
		// without a prompt or a search registry.
		{sigStop, `short-name resolution enforced but cannot prompt without a TTY|\bshort-name "[^"]+" did not resolve to an alias\b`, "a short image name the container tools' configuration will not resolve", []string{"short-name "}},
		// Families from the eighth held-out set (family10.txt), each in
		// the words of several programs.
		{sigStop, `You have an error in your SQL syntax|\bIncorrect syntax near\b`, "a database rejected the SQL as invalid (MySQL's and MariaDB's 1064, SQL Server's 102 and 156)", sqlSyntaxLiterals()},
		{sigStop, `\bno basic auth credentials\b`, "a registry push or pull with no credentials for the registry", []string{"no basic auth credentials"}},
		{sigStop, `\bCannot solve the request because of\b|\bwe can conclude that (?:your|the) requirements are unsatisfiable\b|\bCould not solve for environment specs\b|\bNo agreement on the version of\b|^Dependencies have diverged:|\bconflicts with any installable versions previously reported\b|^\s*The following packages are incompatible$|\bWhile constructing the build plan, the following exceptions were\b|^\s*Plan construction failed\.?$`, "a solver found that the requested packages cannot all be installed (also stack's build plan and libmamba's conflict tree)", unsolvableLiterals()},
		{sigStop, `\bis in (?:(?:UPDATE_)?ROLLBACK_FAILED|ROLLBACK_COMPLETE) state and can ?not be updated\b`, "a CloudFormation stack in a failed state that no update leaves", []string{"ROLLBACK_FAILED state", "ROLLBACK_COMPLETE state"}},
		{sigStop, `\b[Cc]annot resolve module "[^"]+"|\bUnable to resolve module \S+ from \S`, "a module an import names cannot be resolved", []string{"annot resolve module", "nable to resolve module"}},
		{sigStop, `\.ya?ml:\d+: (?:[a-z]+(?:-[a-z]+)+|[a-z]+\[[a-z-]+\])(?::|$)|\bListing [1-9]\d* violation\(s\) that are fatal\b`, "ansible-lint found violations: a file line and a rule, or their count", []string{".yml:", ".yaml:", "violation(s) that are fatal"}},
		// Families from the ninth held-out set (family11.txt), each in
		// the words of several programs.
		{sigStop, methodURLStatus(sigHTTPStop), "HTTP 400, 401, 403, 404, 405, 409, 410 or 422 after the method and URL (bun, pnpm): the request is wrong", methodStatusLiterals(httpStopCodes())},
		{sigRetry, methodURLStatus(sigHTTPRetry), "HTTP 429 or 5xx after the method and URL: the server may recover", methodStatusLiterals(httpRetryCodes())},
		{sigStop, `\bBind for \S+ failed: port is already allocated\b`, "a host port docker has given to another container (k3d, supabase, sail): it stays taken until that container is removed", []string{"port is already allocated"}},
		{sigStop, `\bThe storage has not been initialized\b|\brepository not initialized in the provided storage\b|\bIs there a repository at the following location\?|\bis not a valid repository\. Check repo config\b`, "a backup storage with no repository in it (duplicacy, kopia, restic, borg)", repoLiterals()},
		{sigStop, `\bCould not locate the included file '|\bpartial "[^"]+" not found\b|\btemplate not found: \S`, "a template include that does not exist (Liquid, Hugo, Nunjucks)", []string{"ould not locate the included file", "\" not found", "emplate not found: "}},
		{sigStop, `\bWaiter encountered a terminal failure state\b|\bstopped waiting, encountered a failure state\b`, "an AWS SDK waiter saw the resource reach a failed state (a stack rolled back)", []string{"ncountered a terminal failure state", "ncountered a failure state"}},
		// Families from the tenth held-out set (family12.txt), each in
		// the words of several programs.
		{sigStop, `^[#\s]*Error: Unbound (?:module|value|type constructor|constructor|record field|class) [\w.']`, "OCaml: a module or name the code uses is not defined (dune, make, opam, ocamlbuild): a library missing or too old", []string{"Error: Unbound "}},
		{sigStop, `\bINSTALL_FAILED_(?:UPDATE_INCOMPATIBLE|VERSION_DOWNGRADE|NO_MATCHING_ABIS|OLDER_SDK|TEST_ONLY|DUPLICATE_PERMISSION|CONFLICTING_PROVIDER|MISSING_SHARED_LIBRARY|DEPRECATED_SDK_VERSION)\b|\bINSTALL_PARSE_FAILED_[A-Z_]+\b`, "Android refused the package: another signing key, an older version, no matching ABI or SDK (adb, gradle, react-native)", []string{"INSTALL_FAILED_", "INSTALL_PARSE_FAILED_"}},
		// Families from the eleventh held-out set (family13.txt), each in
		// the words of several programs.
		{sigStop, `\bno main manifest attribute, in \S`, "a jar the JVM cannot start: no Main-Class in its manifest", []string{"no main manifest attribute"}},
		{sigStop, `^\s*CMake Error at .*FindPackageHandleStandardArgs\.cmake:\d+ \(message\)`, "CMake: a package that find_package requires is not installed (under cmake, pip, cargo or a build script)", []string{"FindPackageHandleStandardArgs.cmake:"}},
		{sigStop, `\bupload-pack: not our ref\b|\bServer does not allow request for unadvertised object\b|\breference is not a tree: |\bFetched in submodule path '[^']+', but it did not contain\b`, "a commit the git server does not have: never pushed, or force-pushed away (git, submodules, nimble)", []string{"not our ref", "unadvertised object", "reference is not a tree", "but it did not contain"}},
		{sigStop, `\b(?:UNIQUE|NOT NULL|FOREIGN KEY|CHECK) constraint failed\b`, "SQLite refused a write that breaks a constraint (a row inserted twice)", []string{" constraint failed"}},
		{sigStop, `\b[Uu]nknown authentication response: \d+|\b[Uu]nsupported authentication type \d+|\bauthentication method \d+ not supported\b|\bnone of the server's SASL authentication mechanisms are supported\b|\bClient does not support authentication protocol requested by server\b`, "a database client too old for the server's authentication method (SCRAM, caching_sha2)", []string{"authentication response: ", "authentication type ", "authentication method ", "SASL authentication mechanisms are supported", "support authentication protocol"}},
		{sigStop, `\bDNS problem: NXDOMAIN looking up (?:A|AAAA) for \S`, "an ACME CA found no address record for the domain (certbot, acme.sh, win-acme)", []string{"NXDOMAIN looking up A"}},
		{sigStop, `\btemplate: \S+:\d+:\d+: executing (?:"[^"]*" at <|$)`, "a Go template failed as it ran (hugo, gomplate, helmfile): a value missing or of the wrong type", []string{": executing "}},
		{sigStop, `\bmigration \d+ was previously applied but (?:has been modified|is missing in the resolved migrations)\b`, "an applied migration was changed or removed (sqlx and the programs that embed it)", []string{"was previously applied but"}},
		// Families from the twelfth held-out set (family14.txt), each in
		// the words of several programs.
		{sigStop, `\bEOF looking for end (?:YAML|TOML|JSON|ORG) front matter delimiter\b|\bfrontmatter delimiter must be followed by CR\+LF or LF\b|\binvalid (?:YAML|TOML|JSON) delimiter\b|\bCouldn't find front matter in \x60|\bError while parsing Markdown front ?matter\b`, "a page's front matter is missing or does not parse (Hugo, Zola, Docusaurus)", []string{"ront matter", "rontmatter", " delimiter"}},
		{sigStop, `\bNear line \d+ \(last key parsed '[^']*'\): |\btoml: line \d+ \(last key "[^"]*"\): `, "a TOML file does not parse, in BurntSushi/toml's words (hugo, traefik, gitlab-runner)", []string{"(last key parsed '", "(last key \""}},
		{sigStop, `^\s*could not find driver\s*$|\bcould not find driver (?:\(SQL: |in /)|PDOException\b.*\bcould not find driver\b|\bexception occured in driver: could not find driver\b`, "PHP's PDO has no driver for the database: pdo_mysql or pdo_pgsql is not installed (Laravel, Doctrine, Drupal)", []string{"could not find driver"}},
		{sigStop, `\bclaims to not accept jdbcUrl\b|\bPossibly the wrong driver for the given database URL\b|\bjdbcUrl is required with driverClassName\b`, "a JDBC driver does not accept the URL, or no URL is configured (HikariCP, Liquibase)", []string{"not accept jdbcUrl", "wrong driver for the given database URL", "jdbcUrl is required"}},
		{sigStop, `\bDocusaurus found broken links!|\(!\) Found dead link \S+ in file \S|\[vitepress\] \d+ dead link\(s\) found\b|\bOne or more pages contain dead links\b`, "a site build found links to pages it does not have (Docusaurus, VitePress)", []string{"found broken links", "Found dead link", "dead link(s) found", "contain dead links"}},
		{sigStop, `\{:?option, :?server_only, :?\w+\}`, "Erlang/OTP refuses a TLS option an old library sets (hex, hackney under a newer OTP)", []string{"server_only"}},
		// Families from the thirteenth held-out set (family15.txt), each
		// in the words of several programs.
		{sigStop, `\bused to build [\w.-]+ is lower than the targeted Go version\b|\bmodule requires at least go[\d.]+, but \w+ was built with go[\d.]+|\brequires newer Go version go[\d.]+ \(application built with go[\d.]+\)`, "a Go analysis tool built with an older Go than the module targets (golangci-lint, staticcheck, go/types in any linter)", []string{"targeted Go version", "was built with go", "application built with go"}},
		{sigStop, `\(obsolete configuration found in \S+, please update it\)|\bobsolete parameter \x60?\w+\x60? \(for \x60?[\w/]+\x60?\) found in\b`, "RuboCop refuses a configuration that names renamed or removed cops or parameters (rubocop, standardrb, erb_lint)", []string{"obsolete configuration found in", "obsolete parameter "}},
		{sigStop, `\baborting because of server version mismatch\b|\bserver version: \d[^;]*; pg_dump(?:all)? version: \d`, "pg_dump older than the PostgreSQL server it dumps (pg_dump, and the backup tools that run it)", []string{"server version mismatch", "; pg_dump version: ", "; pg_dumpall version: "}},
		// rbenv's, pyenv's and nodenv's builders end every failed build
		// with the same line, a download that failed as well as a compile:
		// judged as an error line, so a download, a timeout or any word of
		// a failure that passes keeps it from deciding.
		{sigErrorLine, `^BUILD FAILED \([^)]* using (?:ruby|python|node|php)-build\b`, "ruby-build, python-build or node-build could not build the version, and no line spoke of a failure that passes", []string{"BUILD FAILED ("}},
		// A refusal in a program's own words ("Cowardly refusing"), a
		// query indexing a value of the wrong type, signatures that
		// could not be verified: weak evidence, judged with the error
		// line, so a download, a timeout or a rate limit keeps them from
		// deciding.
		// luarocks says it could not satisfy a dependency both when no
		// rock matches and when the manifest could not be downloaded:
		// judged with the error line, so a failed download keeps it from
		// deciding.
		{sigErrorLine, `\bCould not satisfy dependency\b`, "a dependency no rock satisfies, and no line spoke of a failure that passes", []string{"ould not satisfy dependency"}},
		{sigErrorLine, `\b[Cc]owardly refusing\b|\b[Cc]annot index \w+ with\b|\bsignatures? (?:could not|couldn't|cannot) be verified\b`, "a refusal, a type error or an unverified signature, and no line spoke of a failure that passes", []string{"owardly refusing", "annot index ", "be verified"}},
		// A path alone before "No such file or directory" (ffmpeg given a
		// path cut at a space) is weak evidence: nvm's grep prints the
		// same line for the archive a failed download never wrote. It is
		// judged with the error line, so a download, a timeout or any
		// other word of a failure that passes keeps it from deciding.
		{sigErrorLine, `^(?:[\w/.-]+: )?"?(?:/|file:/)[^:"]*"?: No such file or directory$`, "a path alone is not there, and no line spoke of a failure that passes", []string{": No such file or directory"}},

		// Judged last (the fifth held-out set): an error line naming a
		// static problem, unless some line spoke of a failure that passes.
		lines[0], lines[1], unsure[0], unsure[1],
		// Any 5xx after "HTTP code" is a server's failure (Galaxy's
		// "HTTP Code: 530" from its CDN): it keeps an error line from
		// deciding, as the common 5xx statuses above do. "status" is
		// left out: it is on many a log line, and the row would run on
		// each of them.
		{sigUnsure, `\bHTTP [Cc]ode:? 5\d\d\b`, "a 5xx HTTP code: no error line decides", []string{"HTTP Code", "HTTP code"}},
		// An HTML error page read as JSON ("invalid character '<' looking
		// for beginning of value", a service in maintenance) is the
		// transient row's error page: the error line that carries it
		// decides nothing either (qltysh-archive/test-reporter#248).
		{sigUnsure, `[Ii]nvalid character '<' looking for beginning of value`, "an error page read as JSON: no error line decides", []string{"looking for beginning of value"}},

		// Where a runtime reported the error that ended the program.
		{sigDeath, `^(?:[a-z_][a-z0-9_]*\.)*[A-Z][A-Za-z0-9_]*(?:Error|Exception|Timeout)(?:: |$)`, "Python: the exception that ended the traceback", nil},
		{sigDeath, `^(?:Exception in thread "[^"]*" |Caused by: )(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)\b`, "Java: the uncaught exception or its cause", nil},
		{sigDeath, `^(?:Uncaught )?(?:[A-Z][A-Za-z]*)?Error(?: \[[A-Z_]+\])?: `, "Node.js and others: the error that ended the program", nil},
		{sigDeath, `^(?:panic|fatal error): `, "Go: a panic or fatal error", nil},
	}
}
