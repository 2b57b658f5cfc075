package exitcodes

// Presets for the tools CI steps wrap next after the first thirteen: each
// from the tool's own documentation of its exit codes and the messages its
// source prints. Where a code alone decides (az 3, a missing resource;
// gcloud 2, a usage error), the rule has no pattern; where a code means
// several things (ansible's 4 is a parser error and an unreachable host),
// the message decides. What the signatures already judge the same way
// for every program is not repeated here.

// moreTools returns the presets of this file, in the order --preset auto
// considers them.
func moreTools() []presetDef {
	return []presetDef{
		{name: "gh", desc: "GitHub CLI: exit 4 means not logged in; API errors by their HTTP status and GraphQL messages", programs: []string{"gh"}, rules: ghRules},
		{name: "gcloud", desc: "Google Cloud CLI: exit 2 is usage; gRPC-style status codes and HTTPError lines", programs: []string{"gcloud", "gsutil", "bq"}, rules: gcloudRules},
		{name: "az", desc: "Azure CLI: exit 2 is usage, 3 a missing resource; service error codes", programs: []string{"az"}, rules: azRules},
		{name: "cargo", desc: "cargo: registry downloads and file locks vs compile errors and missing crates", programs: []string{"cargo"}, rules: cargoRules},
		{name: "maven", desc: "Maven: artifact transfers vs missing artifacts, compile errors and usage", programs: []string{"mvn", "mvnw"}, rules: mavenRules},
		{name: "gradle", desc: "Gradle: dependency downloads and locks vs missing artifacts, credentials and compile errors", programs: []string{"gradle", "gradlew"}, rules: gradleRules},
		{name: "dnf", desc: "dnf, yum and microdnf: mirrors and locks vs missing packages; exit 100 of check-update", programs: []string{"dnf", "yum", "microdnf", "dnf5"}, rules: dnfRules},
		{name: "apk", desc: "Alpine apk: index fetches and the database lock vs missing packages", programs: []string{"apk"}, rules: apkRules},
		{name: "brew", desc: "Homebrew: downloads and update locks vs unknown formulae", programs: []string{"brew"}, rules: brewRules},
		{name: "postgres", desc: "psql and pg_isready: their exit codes; a server starting up vs refused logins and missing databases", programs: []string{"psql", "pg_isready", "pg_dump", "pg_restore", "pg_dumpall", "createdb", "dropdb"}, rules: postgresRules},
		{name: "mysql", desc: "mysql and mariadb clients: client errors 2002-2013 and busy servers vs access, syntax and missing objects", programs: []string{"mysql", "mariadb", "mysqladmin", "mysqldump"}, rules: mysqlRules},
		{name: "redis", desc: "redis-cli: loading, busy and failover replies vs auth and command errors", programs: []string{"redis-cli", "valkey-cli"}, rules: redisRules},
		{name: "ansible", desc: "ansible-playbook and ansible-galaxy: unreachable hosts and Galaxy outages vs parser and option errors", programs: []string{"ansible-playbook", "ansible", "ansible-galaxy"}, rules: ansibleRules},
		{name: "composer", desc: "Composer: exit 2 is a dependency conflict; downloads vs missing packages", programs: []string{"composer"}, rules: composerRules},
		{name: "bundler", desc: "Bundler and RubyGems: Bundler's exit codes (7 gem not found, 17 HTTP error, ...) and gem's messages", programs: []string{"bundle", "bundler", "gem"}, rules: bundlerRules},
		{name: "dotnet", desc: "dotnet and NuGet: NU1xxx and NU3xxx codes, compile errors vs feed outages", programs: []string{"dotnet", "nuget"}, rules: dotnetRules},
		{name: "conda", desc: "conda, mamba and micromamba: channel outages vs missing or conflicting packages", programs: []string{"conda", "mamba", "micromamba"}, rules: condaRules},
		{name: "poetry", desc: "Poetry: index outages vs version solving and lock file errors", programs: []string{"poetry"}, rules: poetryRules},
		{name: "uv", desc: "uv: index outages vs unsatisfiable requirements", programs: []string{"uv", "uvx"}, rules: uvRules},
		{name: "registry", desc: "skopeo, crane and regctl: registry outages and rate limits vs missing images and refused credentials", programs: []string{"skopeo", "crane", "regctl"}, rules: registryRules},
		{name: "helmfile", desc: "helmfile: helm's cluster and lock errors vs missing charts and invalid state files", programs: []string{"helmfile"}, rules: helmfileRules},
		{name: "argocd", desc: "Argo CD CLI: exit 11 connection failure, 12 API refusal, 13 missing resource; gRPC codes", programs: []string{"argocd"}, rules: argocdRules},
		{name: "checksum", desc: "sha256sum, md5sum and the other checkers run with -c: a file whose checksum does not match the list", programs: []string{"sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "md5sum", "b2sum", "shasum", "cksum"}, rules: checksumRules},
	}
}

// ghRules are from `gh help exit-codes` (1 failure, 2 cancelled, 4
// authentication required, 8 pr checks pending) and the errors of cli/cli's
// api package: "HTTP 404: Not Found (URL)", "GraphQL: ... (field)".
func ghRules() []ruleDef {
	return []ruleDef{
		stopOn("4", "", "authentication required: run gh auth login or set GH_TOKEN"),
		stopOn("2", "", "cancelled"),
		retryOn("8", "", "gh pr checks: checks still pending"),
		retryOn("", `(?i)rate limit|abuse detection`, "rate limited (a 403 or 429 that says so)"),
		retryOn("", `HTTP `+httpRetry+`\b|error connecting to |HTTP 5[0-9][0-9]:|non-200 OK status code: (?:5[0-9][0-9]|429)`, "GitHub failed, or could not be reached"),
		stopOn("", `HTTP `+httpStop+`\b|GraphQL: Could not resolve to|GraphQL: .*(?:not found|was not found|does not exist)|release not found|already exists|no pull requests found|could not find any workflows named|could not find pull request|no open pull requests|not found$|gh auth login|GH_TOKEN environment variable|Resource not accessible by integration|not a git repository|unknown (?:command|flag|shorthand flag)|accepts \d+ arg|No commits between|no git remotes found|none of the git remotes configured|is not mergeable|when not running interactively|has disabled issues|required flag\(s\)`, "not found, not allowed, or a usage error"),
	}
}

// gcloudRules are from gcloud's "ERROR: (gcloud.group.command) ..." lines,
// whose codes are Google's canonical status codes, and gsutil's
// "...Exception: 403 ..." lines; gcloud exits 2 on usage errors.
func gcloudRules() []ruleDef {
	return []ruleDef{
		stopOn("2", "", "usage error: unknown command, flag or value"),
		retryOn("", `\b(?:UNAVAILABLE|DEADLINE_EXCEEDED|ABORTED|INTERNAL|RESOURCE_EXHAUSTED)\b|rateLimitExceeded|backendError|Internal error\. Please try again|HTTPError `+httpRetry+`\b|(?:Exception|Error): `+httpRetry+`\b|ServiceException: 5[0-9][0-9]\b|ZONE_RESOURCE_POOL_EXHAUSTED|does not have enough resources available`, "the API failed, asked to slow down, timed out, or the zone has no capacity now"),
		stopOn("", `failed to start and listen on the port|Failed to start and then listen on the port|invalid_grant|Quota '.*' exceeded|No URLs matched|matched no objects|has no property \[|Could not read json file`, "a container that never listens, revoked credentials, a spent quota, no such file or property"),
		stopOn("", `Not found: |Cannot find |was not found|\b(?:PERMISSION_DENIED|NOT_FOUND|INVALID_ARGUMENT|ALREADY_EXISTS|UNAUTHENTICATED|FAILED_PRECONDITION|OUT_OF_RANGE|UNIMPLEMENTED)\b|HTTPError `+httpStop+`\b|(?:Exception|Error): `+httpStop+`\b|[Rr]eauthentication required|do not currently have an active account selected|gcloud auth login|Invalid choice: |unrecognized arguments|argument .*: expected|does not have .* access|[Pp]ermission .* denied`, "refused, not found or invalid: the request will not pass"),
	}
}

// azRules are from the Azure CLI's error handling documentation (exit 2
// parser error, 3 missing resource) and its "(Code) Message" lines.
func azRules() []ruleDef {
	return []ruleDef{
		stopOn("2", "", "parser error: unknown command or argument"),
		stopOn("3", "", "the resource does not exist"),
		retryOn("", `\((?:TooManyRequests|ServerBusy|ServiceUnavailable|InternalServerError|GatewayTimeout|RetryableError|OperationTimedOut|RequestTimeout|Conflict.*in progress|AnotherOperationInProgress)\)|Retry after|is being throttled|invalid status '(?:Service Unavailable|Internal Server Error|Bad Gateway|Gateway Timeout|Too Many Requests)'`, "the service is busy, failed or asked to slow down"),
		stopOn("", `\((?:AuthorizationFailed|AuthenticationFailed|InvalidAuthenticationToken\w*|LinkedAuthorizationFailed|[A-Za-z]*NotFound|InvalidParameter\w*|InvalidTemplate\w*|BadRequest|Conflict|[A-Za-z]*AlreadyExists|SubscriptionNotFound|QuotaExceeded|SkuNotAvailable|InvalidResourceName|MissingSubscription\w*)\)|AADSTS\d+|Please run 'az login'|az login|the following arguments are required|is not in the '.*' command group|unrecognized arguments|doesn't exist in cloud|No subscription found|invalid status '(?:Forbidden|Not Found|Unauthorized|Bad Request|Conflict)'`, "refused, not found, invalid or over quota"),
	}
}

// cargoRules are from cargo's messages (every error exits 101) and rustc's
// error[Exxxx] lines.
func cargoRules() []ruleDef {
	return []ruleDef{
		retryOn("", `spurious network error|failed to download from|Timeout was reached|failed to query replaced source registry|download of .* failed|failed to fetch `+"`"+`https|Couldn't resolve host name|HTTP/2 stream \d+ was not closed cleanly|\[(?:6|7|28|35|56)\] |Connection reset by peer|Connection refused|Temporary failure in name resolution|error sending request for url`, "the registry or the network failed (also under a build script)"),
		retryOn("", `Blocking waiting for file lock`, "another cargo holds the package cache lock"),
		stopOn("", `\berror\[E[0-9]{4}\]|could not compile|no matching package named|failed to select a version for|failed to parse manifest|no such (?:subcommand|command)|unexpected argument|could not find `+"`"+`Cargo\.toml`+"`"+`|the lock file .* needs to be updated but --locked was passed|requires rustc \d|is not supported by|package .* cannot be built because it requires rustc|failed to parse lock file|a bin target must be available|no bin target named|linker \S+ not found|failed to run custom build command|toolchain '.*' is not installed|is already uploaded|already exists on crates\.io index|no token found|\brevision [0-9a-f]{7,40} not found\b|\brevspec '[^']+' not found`, "compile error, missing crate or version, a git revision the remote does not have, or a bad manifest"),
	}
}

// mavenRules are from Maven's "[ERROR] Failed to execute goal" lines and
// the resolver's transfer errors. A transfer error names the status the
// repository answered in the words of the transport that carried it:
// "status code: 409" (Maven 3.9), "Return code is: 409, ReasonPhrase"
// and "Error code 409, Conflict" (Wagon), "Transfer failed for URL 409
// Conflict" (wagon-http 3), "Transfer failed for URL, status: 502" (Maven
// 4), "with status code 401" (the resolver's connector). The status
// decides before the transfer's own words do: a release that exists
// answers a deploy with 409 inside "Could not transfer artifact", and
// no retry deploys it.
func mavenRules() []ruleDef {
	return []ruleDef{
		stopOn("", `PKIX path building failed|unable to find valid certification path|Failure to find .* was cached in the local repository|COMPILATION ERROR|Compilation failure|Unknown lifecycle phase|No plugin found for prefix|Could not find artifact|was not found in .* during a previous attempt|The goal you specified requires a project to execute|Non-readable POM|Malformed POM|[Uu]nrecognized option|Unable to parse command line options|status code:? `+httpStop+`\b|\b(?:401|403) (?:Unauthorized|Forbidden)|Not authorized|Return code is: `+httpStop+`\b|\bError code `+httpStop+`, |[Tt]ransfer failed for \S+ (?:status: )?`+httpStop+`\b|The POM for .* is missing|failed with message:|Fatal error compiling|invalid target release|release version \d+ not supported|Source option \d+ is no longer supported|'[\w.]+' for \S+ is missing|No goals have been specified|The specified (?:user|global) settings file does not exist|JAVA_HOME (?:environment variable )?is not defined correctly|Child module .* does not exist|Checkstyle violation|PMD violation`, "compile error, missing artifact, refused credentials or usage error"),
		retryOn("", `Could not transfer artifact|Failed to transfer file|status code: `+httpRetry+`\b|Return code is: (?:5[0-9][0-9]|429)\b|Connect(?:ion)? (?:timed out|reset|refused)|Read timed out|Remote host terminated the handshake|Transfer failed for`, "the repository failed or could not be reached"),
	}
}

// gradleRules are from Gradle's "Could not resolve", "Could not GET" and
// "Received status code" lines.
func gradleRules() []ruleDef {
	return []ruleDef{
		retryOn("", `Received status code `+httpRetry+` from server|Read timed out|Connect timed out|Connection reset|Could not HEAD|Timeout waiting to lock|It is currently in use by another Gradle instance|The server may not support the client's requested TLS protocol|Remote host terminated the handshake|Could not download .*\.jar`, "the repository failed, a lock is held, or the network cut"),
		stopOn("", `Received status code `+httpStop+` from server|Could not find [\w.-]+:[\w.-]+:|Compilation failed|Compilation error|Task '.*' not found in (?:root )?project|Unknown command-line option|Could not find method|Plugin \[id: '.*'\] was not found|Could not compile (?:build|settings) file|Execution failed for task '.*compile\w*'|e: file://|error: cannot find symbol|requires Java \d+ to run|Unsupported class file major version|Dependency verification failed|Could not determine java version|does not contain a Gradle build|Could not find or load main class org\.gradle\.wrapper|Dependency requires at least JVM runtime version|Lint found errors`, "missing artifact or plugin, refused credentials, compile or usage error"),
	}
}

// dnfRules are from dnf(8) and yum(8): exit 1 on errors, 100 from
// check-update when updates are available, 200 for a held lock in yum.
func dnfRules() []ruleDef {
	return []ruleDef{
		stopOn("100", "", "check-update: updates are available, not a failure to retry"),
		retryOn("200", "", "yum: another process holds the lock"),
		stopOn("", `Status code: (?:401|403|404) for `, "the repository refused the request or does not have the file"),
		stopOn("", `\bmirrorlist\.centos\.org\b`, "CentOS's mirror list, gone with CentOS 7's end of life (2024-07-01): its name no longer resolves, and vault.centos.org holds the old releases"),
		stopOn("", `No URLs in mirrorlist|Curl error \((?:51|58|60|77)\)|none of the providers can be installed|Unknown repo: |There are no enabled repositories`, "a mirrorlist that is gone (an end-of-life release), an untrusted mirror, an unmet requirement or no such repository"),
		retryOn("", `Curl error \((?:5|6|7|18|28|35|52|55|56)\)|Cannot download repomd\.xml|All mirrors were tried|Failed to download metadata for repo|Cannot prepare internal mirrorlist|Status code: `+httpRetry+`\b|Errors during downloading metadata|Waiting for process with pid|is locked by another process|Existing lock|Could not resolve host`, "the mirrors failed or another process holds the lock"),
		stopOn("", `Unable to find a match|No match for argument|No package .* available|Error: Nothing to do|GPG check FAILED|Public key for .* is not installed|conflicting requests|has to be run with superuser privileges|You need to be root|No such command|Status code: (?:401|403|404)\b|Problem: .*(?:nothing provides|conflicts with)`, "no such package, a conflict, an untrusted key or not root"),
	}
}

// apkRules are from apk-tools' messages; apk exits with the number of
// errors.
func apkRules() []ruleDef {
	return []ruleDef{
		retryOn("", `temporary error \(try again later\)|network error|DNS lookup error|Unable to lock database: (?:Resource temporarily unavailable|temporary error)|Failed to create .*: I/O error|connection refused|Operation timed out`, "the mirror failed, or another apk holds the database lock"),
		stopOn("", `unable to select packages|\(no such package\)|breaks: world|UNTRUSTED signature|Permission denied|Unable to lock database: Permission denied|is not an apk command|unrecognized option|BAD signature|trying to overwrite .* owned by|missing repository tags|Failed to open apk database`, "no such package, a conflict, an untrusted index or not root"),
	}
}

// brewRules are from Homebrew's "Error:" lines.
func brewRules() []ruleDef {
	return []ruleDef{
		stopOn("", `curl: \((?:1|3|4|37|60|77|78)\) |not found built-in|unsupported protocol version|SSL certificate problem`, "the curl Homebrew runs cannot fetch this: a protocol or feature it lacks, a malformed URL, a missing file or an untrusted certificate"),
		stopOn("", `No available formula|No formulae or casks found|No such keg|Unknown command|Invalid usage|No available cask|is not installed|returned error: `+httpStop+`\b|Repository not found|repository '.*' not found|Cannot install .* because|is unavailable: No available|No Cask with this name exists|Running Homebrew as root|are not writable by your user|has been disabled because|SHA256 mismatch|there is already an App at`, "no such formula or cask, or a usage error"),
		retryOn("", `Failed to download resource|Download failed|curl: \((?:6|7|18|28|35|52|56)\)|returned error: `+httpRetry+`\b|Another active Homebrew (?:update )?process is already in progress|has already locked|Operation too slow`, "the download failed, or another brew holds the lock"),
	}
}

// postgresRules are from psql(1) (exit 1 its own fatal error, 2 the
// connection went bad, 3 a script error with ON_ERROR_STOP), pg_isready(1)
// (1 rejecting connections, 2 no response, 3 no attempt made) and the
// server's FATAL and ERROR messages.
func postgresRules() []ruleDef {
	return []ruleDef{
		retryOn("", `the database system is (?:starting up|shutting down|in recovery mode|not yet accepting connections)|too many clients already|remaining connection slots are reserved|server closed the connection unexpectedly|could not connect to server|[Cc]onnection refused|Is the server running|rejecting connections|no response|timeout expired|could not translate host name .*: Temporary failure|canceling statement due to conflict with recovery|deadlock detected|could not serialize access|canceling statement due to lock timeout|could not obtain lock on (?:relation|row)|terminating connection due to administrator command`, "the server is starting, busy or unreachable, or a transaction conflicted"),
		stopOn("", `password authentication failed|no password supplied|role ".*" does not exist|database ".*" does not exist|no pg_hba\.conf entry|permission denied for|syntax error at or near|relation ".*" does not exist|column ".*" does not exist|function .* does not exist|invalid (?:connection option|option|integer value)|could not open file|^psql: error: [^ ]+: No such file or directory|already exists|violates (?:unique|foreign key|not-null|check) constraint|SSL error: certificate verify failed|server does not support SSL|is not permitted to log in|must be owner of|server version mismatch|text format dump|unsupported version \(.*\) in file header|extension ".*" is not available|could not open extension control file|could not extend file`, "refused login, missing object, invalid SQL or options"),
		stopOn("3", "", "psql: an error in a script run with ON_ERROR_STOP; pg_isready: no attempt made (invalid parameters)"),
		retryOn("2", "", "psql: the connection to the server went bad; pg_isready: no response"),
	}
}

// mysqlRules are from the MySQL and MariaDB clients' "ERROR nnnn (state)"
// lines: client errors 2002-2013 are connections; server errors 1040,
// 1205, 1213, timeouts and interrupted statements, and the read-only
// state of a failover are busy servers; any other server error is the
// statement's own and is met again.
func mysqlRules() []ruleDef {
	return []ruleDef{
		stopOn("", `--secure-file-priv option|ERROR 2061 \(|SSL connection error: .*certificate verify failed`, "LOAD DATA outside secure-file-priv, a password sent in clear, an untrusted certificate"),
		retryOn("", `ERROR (?:2002|2003|2006|2013|2026|1040|1053|1205|1213|1927|2055|1037|1038|1041|1043|1081|1152|1153|1158|1159|1160|1161|1180|1181|1184|1206|1290|1317|1614|1637|1836|1969|3024|3572|4031) \(|Can't connect to (?:local )?MySQL server|Lost connection to (?:MySQL )?server|MySQL server has gone away|Too many connections|Lock wait timeout exceeded|Deadlock found|Unknown MySQL server host .* \((?:-3|11)\)|Server shutdown in progress`, "the server is unreachable, busy, or a transaction conflicted"),
		stopOn("", `ERROR (?:1044|1045|1049|1050|1054|1062|1064|1091|1142|1146|1227|1251|1698|2059|1419) \(|Access denied for user|Unknown database|You have an error in your SQL syntax|doesn't exist|Duplicate entry|unknown option|unknown variable`, "refused login, missing object, invalid SQL or options"),
		stopOn("", `ERROR (?:1[0-9]{3}|3[0-9]{3}|4[0-9]{3}) \(`, "any other server error: constraints, data and schema errors the same statement meets again"),
	}
}

// redisRules are from the error replies of Redis (and Valkey) as
// redis-cli prints them, and its connection errors.
func redisRules() []ruleDef {
	return []ruleDef{
		retryOn("", `\bLOADING\b|\bBUSY\b|\bTRYAGAIN\b|\bCLUSTERDOWN\b|\bMASTERDOWN\b|\bREADONLY\b|Could not connect to Redis|Connection refused|Connection reset|\bMISCONF\b|\bNOREPLICAS\b|Error: Server closed the connection|\bOOM command not allowed|max number of clients reached`, "the server is loading, busy, failing over or unreachable"),
		stopOn("", `\bNOAUTH\b|\bWRONGPASS\b|\bNOPERM\b|ERR unknown command|ERR wrong number of arguments|\bWRONGTYPE\b|ERR syntax error|ERR invalid password|AUTH failed|Unrecognized option|ERR value is not|\bNOSCRIPT\b|\bEXECABORT\b|\bCROSSSLOT\b|\bMOVED \d+ `, "auth refused or an invalid command"),
	}
}

// ansibleRules are from ansible-playbook's documented exit codes (1 error,
// 2 host failures, 3 unreachable hosts, 4 parser error, 5 bad or
// incomplete options, 99 interrupted, 250 unexpected error) and
// ansible-galaxy's "HTTP Code" errors. Exit 4 also reports unreachable
// hosts, so the message decides it.
func ansibleRules() []ruleDef {
	return []ruleDef{
		stopOn("5", "", "bad or incomplete options"),
		stopOn("99", "", "the user interrupted the run"),
		stopOn("", `Permission denied \((?:publickey|password)|Host key verification failed|Invalid/incorrect password|Missing (?:sudo|become) password|Incorrect (?:sudo|become) password`, "the host or become refused the credentials (even when ansible calls it unreachable)"),
		retryOn("", `UNREACHABLE!|Failed to connect to the host via ssh|Connection timed out during banner exchange|HTTP Code: `+httpRetry+`\b|Unknown error when attempting to call Galaxy|Timeout \(\d+s\) waiting for privilege escalation prompt|Could not get lock /var/lib/dpkg`, "a host was unreachable, or Galaxy failed"),
		retryOn("", `Unexpected Exception, this is probably a bug: .*(?:timed out|[Tt]imeout|Connection (?:reset|refused|aborted)|Temporary failure in name resolution|Remote end closed connection|EOF occurred in violation of protocol|Network is unreachable|No route to host|HTTP Error (?:5[0-9][0-9]|429))`, "an unexpected exception whose message is a timeout or a failed connection"),
		stopOn("", `(?:ERROR!|\[ERROR\]:) .*(?:[Ss]yntax [Ee]rror|could not be found|conflicting action statements|is not a valid attribute|the role '.*' was not found|couldn't resolve module/action|Unexpected Exception|We were unable to read either as JSON nor YAML|Invalid|undefined variable|no action detected)|Syntax Error while loading YAML|HTTP Code: `+httpStop+`\b|Failed to find collection|Failed to resolve the requested dependencies|Vault password|no vault secrets|Decryption failed|Permission denied \(publickey`, "parser, role, module or vault error, or a Galaxy refusal"),
		stopOn("", `No package matching '.*' is available|Unsupported parameters for|missing required arguments: |The task includes an option with an undefined variable|leaves us with no hosts to target|value of \w+ must be one of`, "a task or a host pattern that is wrong: no such package, bad module arguments, an undefined variable"),
		retryOn("3", "", "hosts were unreachable"),
		stopOn("4", "", "parser error"),
	}
}

// composerRules are from Composer's documented exit codes (1 generic, 2
// dependency solving error) and its exception messages.
func composerRules() []ruleDef {
	return []ruleDef{
		stopOn("2", "", "the dependencies cannot be resolved"),
		retryOn("", `curl error (?:6|7|18|28|35|52|56) while downloading|could not be downloaded \(HTTP/[0-9.]+ (?:5[0-9][0-9]|429)|failed to open stream: (?:HTTP request failed|Connection refused|Connection timed out)|The "https?://.*" file could not be downloaded \(HTTP/[0-9.]+ `+httpRetry+`|zlib_decode\(\): data error|Content-Length mismatch`, "the download failed"),
		stopOn("", `Could not find a (?:matching )?version of package|could not be found in any version|Your requirements could not be resolved|does not match the expected JSON schema|is not a valid|Command ".*" is not defined|The "--\S+" option does not exist|file could not be downloaded \(HTTP/[0-9.]+ (?:401|403|404)|Invalid credentials|GitHub API limit|composer\.lock is not up to date|lock file is not up to date|could not find a composer\.json|requires PHP extension .* but it is missing|does not satisfy that requirement`, "no such package or version, a conflict, bad credentials or usage"),
	}
}

// bundlerRules are from Bundler's exit codes (rubygems/rubygems,
// bundler/lib/bundler/errors.rb) and gem's "ERROR:" lines.
func bundlerRules() []ruleDef {
	return []ruleDef{
		retryOn("17", "", "Bundler::HTTPError: the gem server could not be reached"),
		retryOn("26", "", "a resource was temporarily unavailable"),
		stopOn("4,6,7,10,13,14,15,16,18,19,20,21,22,23,25,31,37,38", "", "Gemfile, version conflict, missing gem, option, lockfile, security or permission error"),
		retryOn("", `Bundler::HTTPError|Net::OpenTimeout|Net::ReadTimeout|Gem::RemoteFetcher::FetchError.*(?:timed out|Connection reset|SocketError|5[0-9][0-9])|Errno::ECONNRESET|Errno::ECONNREFUSED|Errno::ETIMEDOUT|Could not fetch specs from .* due to underlying error|Too many connection resets`, "the gem server failed or could not be reached"),
		stopOn("", `Could not find gem|Could not find '.*' \(|Could not locate Gemfile|Could not find compatible versions|ERROR:  Could not find a valid gem|Bundler could not find compatible versions|Your bundle only supports platforms|frozen mode|You are trying to install in deployment mode|Gem::MissingSpecError|Failed to build gem native extension|Bad username or password|Gem::Ext::BuildError|to support your Ruby|You don't have write permissions for the`, "missing gem or version, a conflict, frozen lockfile or a build error"),
	}
}

// dotnetRules are from NuGet's NU codes and MSBuild's error lines as the
// dotnet CLI prints them.
func dotnetRules() []ruleDef {
	return []ruleDef{
		stopOn("", `error CS\d{4}:|error FS\d{4}:|error BC\d{5}:|error MSB1\d{3}:|error MSB4\d{3}:|error NETSDK1\d{3}:|Could not execute because the specified command or file was not found|A compatible \.NET SDK was not found|Response status code does not indicate success: `+httpStop+`\b|\((?:Unauthorized|Forbidden|Not Found|Not Acceptable)\)`, "compile or project error, no such SDK or command, or a feed that refused the request (4xx other than 408 and 429, or 501, 505)"),
		retryOn("", `error NU1301:|error NU1801:|Response status code does not indicate success: (?:5[0-9][0-9]|429)\b|The SSL connection could not be established|Unable to read data from the transport connection|An error occurred while sending the request|The operation was canceled|Name or service not known|Resource temporarily unavailable`, "the feed failed or could not be reached: a package it would have had is not missing"),
		stopOn("", `error NU110[0-3]:|error NU1605:|error NU1202:|error NU190[1-4]:|error NU3\d{3}:`, "missing or incompatible package, a downgrade, a vulnerable package or a signature error"),
	}
}

// condaRules are from conda's exception names (CondaHTTPError,
// PackagesNotFoundError, UnsatisfiableError) and libmamba's messages.
func condaRules() []ruleDef {
	return []ruleDef{
		stopOn("", `CondaSSLError|PackagesNotFoundError|ResolvePackageNotFound|UnsatisfiableError|LibMambaUnsatisfiableError|nothing provides|CondaValueError|EnvironmentLocationNotFound|Could not find conda environment|CondaHTTPError: HTTP (?:401|403|404)|DirectoryNotACondaEnvironmentError|invalid choice|CondaToSNonInteractiveError|Terms of Service have not been accepted|NotWritableError|EnvironmentFileNotFound|Could not solve for environment specs`, "missing or conflicting packages, bad environment or refused channel"),
		retryOn("", `CondaHTTPError: HTTP (?:000 CONNECTION FAILED|5[0-9][0-9]|429)|HTTP errors are often intermittent|ProxyError|Transport error|Download error \(\d+\)|Could not resolve host|Timeout was reached|ChecksumMismatchError.*partial`, "the channel failed or could not be reached"),
	}
}

// poetryRules are from Poetry's solver and installer messages.
func poetryRules() []ruleDef {
	return []ruleDef{
		retryOn("", `HTTPSConnectionPool|Read timed out|ConnectionError|Max retries exceeded|RemoteDisconnected|503 Server Error|502 Server Error|429 Client Error|Connection aborted`, "the index failed or could not be reached"),
		stopOn("", `version solving failed|doesn't match any versions|Could not find a matching version|pyproject\.toml changed significantly since poetry\.lock|poetry\.lock was last generated|Package .* not found|The command ".*" does not exist|The option ".*" does not exist|not a valid|No file/folder found for package|401 Client Error|403 Client Error|404 Client Error|is not supported by the project|could not find a pyproject\.toml|Invalid hashes`, "unsatisfiable requirements, a stale lock file, missing package or usage"),
	}
}

// uvRules are from uv's error chains ("error: ...", "Caused by: ...").
// rustls' "invalid peer certificate: UnknownIssuer" at the end of a chain
// that began with "client error (Connect)" is a proxy or a mirror whose
// certificate uv does not trust: it stops before the connection's words
// are weighed, as an untrusted certificate does for every program.
func uvRules() []ruleDef {
	return []ruleDef{
		stopOn("", `invalid peer certificate: UnknownIssuer|No solution found when resolving dependencies|there is no version of|requirements are unsatisfiable|is not available in the|HTTP status client error \((?:401|403|404|410)|Distribution not found at|needs to be updated, but .?--locked.? was provided|unexpected argument|unrecognized subcommand|No interpreter found for|failed to parse`, "unsatisfiable requirements, missing package or version, a stale lock file or usage"),
		retryOn("", `Request failed after \d+ retries|error sending request for url|HTTP status server error|client error \(Connect\)|operation timed out|dns error|Failed to download|Failed to fetch: `, "the index failed or could not be reached"),
	}
}

// registryRules are from the error codes of the OCI distribution spec as
// skopeo (containers/image), crane and regctl (go-containerregistry and
// regclient) print them.
func registryRules() []ruleDef {
	return []ruleDef{
		retryOn("", `(?i)toomanyrequests|\b(?:500|502|503|504) \((?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\)|unexpected EOF|TLS handshake timeout|i/o timeout|connection reset by peer|connection refused|http2: server sent GOAWAY|context deadline exceeded|UNAVAILABLE|pinging container registry .*: Get .*: dial tcp`, "the registry failed, asked to slow down, or the connection was cut"),
		stopOn("", `(?i)manifest unknown|MANIFEST_UNKNOWN|NAME_UNKNOWN|BLOB_UNKNOWN|name unknown|not found|unauthorized|DENIED|requested access to the resource is denied|authentication required|invalid reference format|could not parse reference|x509: |certificate signed by unknown authority|server gave HTTP response to HTTPS client|Source image rejected|unknown flag|unknown command|no image found in manifest list for|Invalid image name|expected colon-separated transport:reference`, "no such image, refused credentials, untrusted certificate or bad reference"),
	}
}

// helmfileRules are from helmfile's "in ./helmfile.yaml: ..." errors and
// the helm errors it passes on.
func helmfileRules() []ruleDef {
	return []ruleDef{
		stopOn("2", "", "helmfile diff --detailed-exitcode: changes present, not a failure to retry"),
		retryOn("", `another operation \(install/upgrade/rollback\) is in progress|Kubernetes cluster unreachable|connection refused|i/o timeout|TLS handshake timeout|context deadline exceeded|the server is currently unable to handle the request|failed to download .*: (?:Get|dial)|read: connection reset`, "the cluster or the chart repository is unreachable, or a release is locked"),
		stopOn("", helmPatchStop, "helm cannot build a patch: the chart's manifest does not fit the API's schema"),
		stopOn("", `chart ".*" (?:matching .* )?not found|no chart version found|no releases found that matches|failed to read .*\.yaml|parse error|template: |error converting YAML to JSON|could not find|repo .* not found|Error: UPGRADE FAILED: (?:cannot patch|template|rendered manifests contain)|unknown flag|is forbidden|Unauthorized|environment ".*" is not defined|unknown command ".*" for "helm"`, "missing chart or release, an invalid state file or template, or refused"),
	}
}

// argocdRules are from argo-cd's util/errors exit codes (11 connection
// failure, 12 API response such as authorization, 13 resource does not
// exist, 20 generic) and the gRPC codes it prints.
func argocdRules() []ruleDef {
	return []ruleDef{
		retryOn("11", "", "connection to the API server failed"),
		stopOn("12", "", "the API refused the request, such as authorization"),
		stopOn("13", "", "the resource does not exist"),
		retryOn("", `code = (?:Unavailable|DeadlineExceeded|ResourceExhausted|Aborted)\b|another operation is already in progress|transport is closing|connection refused`, "the API server is unavailable, busy, or an operation is running"),
		stopOn("", `code = (?:PermissionDenied|Unauthenticated|NotFound|InvalidArgument|AlreadyExists|FailedPrecondition|Unimplemented)\b|permission denied|token is expired|unknown flag|unknown command|server address unspecified|x509: `, "refused, not found or invalid"),
	}
}

// checksumRules are from the lines coreutils' sha256sum, md5sum, b2sum and
// cksum, and Perl's shasum, print with -c: "FILE: FAILED" for each file
// whose checksum does not match the list, then "WARNING: 1 computed
// checksum did NOT match". A checker run as the command itself read the
// file it was given: the list is stale or the file is not the one
// published, and a new run reads the same bytes. Inside a script the
// same lines may follow a download cut short or answered with an error
// page, which a rerun fixes; so they are no signature, and only a
// checker named as the command is judged by them. "FAILED open or read",
// a file the checker could not read, is left to the signatures.
func checksumRules() []ruleDef {
	return []ruleDef{
		stopOn("", `^[^\s:]+: FAILED$`, "a file whose checksum does not match the list: the list is stale or the file is not the one published"),
		stopOn("", `\bWARNING: \d+ computed checksums? did NOT match\b`, "the checker's count of the files that did not match"),
	}
}
