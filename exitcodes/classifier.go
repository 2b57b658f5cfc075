package exitcodes

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Config is what a Classifier is built from: the user's rules, already
// parsed, and the presets to apply.
type Config struct {
	// RetryOnExit lists the endings that are transient (--retry-on-exit).
	RetryOnExit ExitList
	// StopOnExit lists the endings that are terminal (--stop-on-exit).
	StopOnExit ExitList
	// RetryIf are patterns that make a failure transient when an output
	// line matches (--retry-if).
	RetryIf []*regexp.Regexp
	// StopIf are patterns that make a failure terminal when an output line
	// matches (--stop-if).
	StopIf []*regexp.Regexp
	// RetryAfter are patterns whose first capture group, in a matching
	// output line, is a wait that ParseRetryAfter reads (--retry-after).
	RetryAfter []*regexp.Regexp
	// Presets are the names of the presets to apply, as SelectPresets
	// returns them.
	Presets []string
	// Signatures turns on the cross-tool signatures (see SignaturesFor):
	// messages such as "HTTP 404" or "connection refused" that mean the
	// same whatever program printed them.
	Signatures bool
}

// Classifier judges attempts by the user's rules, then the presets, then
// the signatures, then the default table; see the package comment for the
// precedence. It is immutable and safe for concurrent use; each attempt
// gets its own Scan.
//
// Building one costs the same whatever presets it names: the presets'
// and signatures' rules are laid out when an attempt first fails or
// prints, and their patterns compiled when output first arrives, so that
// a command that succeeds silently never pays for them.
type Classifier struct {
	retryOnExit, stopOnExit ExitList
	// user holds the user's patterns, already compiled; they take the
	// first slots of a Scan.
	user []source
	// Indexes into user (and the sources), by role.
	retryIf, stopIf, retryAfter []int
	presetNames                 []string
	signaturesOn                bool
	lazy                        *lazyState
}

// source is one pattern before it is compiled: the user's arrive
// compiled, the built-in ones as text.
type source struct {
	re      *regexp.Regexp // nil for a built-in pattern
	text    string
	capture bool // a wait pattern, whose first group is kept
	// need, when set, replaces the literals found in the pattern as its
	// prefilter: every match contains one of them.
	need []string
	// tier is the signature's tier, 0 for other patterns.
	tier sigTier
	// join is set for the rules of a preset whose program wraps its
	// diagnostics in a box (see Scan.joinBox).
	join bool
}

// lazyState is what a Classifier builds on first use, once.
type lazyState struct {
	rulesOnce sync.Once
	// sources holds every pattern, each with a slot in a Scan: the
	// user's, then the presets', then the signatures'.
	sources    []source
	presets    []activePreset
	signatures []activeSig

	matchOnce sync.Once
	matchers  []matcher
	// For MayMatch: the literals some pattern requires, searched for all
	// at once; anyLine is set when a pattern requires none.
	search  *multiSearch // the literals of l.matchers, sought as they are or folded
	anyLine bool
	// joins is set when some pattern is also sought across a wrapped
	// box line (matcher.join).
	joins bool
}

// activeSig is one cross-tool signature with its pattern's index.
type activeSig struct {
	tier sigTier
	m    int
	desc string
}

// activePreset is a preset with its patterns' indexes into the sources.
type activePreset struct {
	name  string
	rules []activeRule
	hints []activeHint
}

// activeRule is one preset rule: it applies when the exit status is in
// exit (or exit is empty) and, if it has a pattern, a line matched it.
type activeRule struct {
	class Class
	exit  ExitList
	m     int // index into the sources, or -1 when the exit status alone decides
	desc  string
}

// activeHint is a preset pattern whose first group is a wait.
type activeHint struct {
	m      int
	millis bool // the value counts milliseconds, not ParseRetryAfter's forms
}

// New builds a Classifier. It fails when a preset name is unknown or a
// RetryAfter pattern has no capture group (a *PatternError).
func New(cfg Config) (*Classifier, error) {
	c := &Classifier{retryOnExit: cfg.RetryOnExit, stopOnExit: cfg.StopOnExit, signaturesOn: cfg.Signatures, lazy: &lazyState{}}
	add := func(src source) int {
		c.user = append(c.user, src)
		return len(c.user) - 1
	}
	for _, re := range cfg.StopIf {
		c.stopIf = append(c.stopIf, add(source{re: re, text: re.String()}))
	}
	for _, re := range cfg.RetryIf {
		c.retryIf = append(c.retryIf, add(source{re: re, text: re.String()}))
	}
	for _, re := range cfg.RetryAfter {
		if re.NumSubexp() < 1 {
			return nil, &PatternError{Pattern: re.String(), Err: errors.New(`no capture group: want the wait in parentheses, as "Retry-After: (\S+)"`)}
		}
		c.retryAfter = append(c.retryAfter, add(source{re: re, text: re.String(), capture: true}))
	}
	table := presetTable()
	for _, name := range cfg.Presets {
		if _, ok := findPreset(table, name); !ok {
			return nil, unknownPreset(table, name)
		}
		if !slices.Contains(c.presetNames, name) {
			c.presetNames = append(c.presetNames, name)
		}
	}
	return c, nil
}

// rules returns the presets' and signatures' rules, laying them out on
// the first call. Their exit lists and patterns are constants that the
// tests parse and compile, so this cannot fail.
func (c *Classifier) rules() *lazyState {
	l := c.lazy
	l.rulesOnce.Do(func() {
		l.sources = slices.Clone(c.user)
		add := func(src source) int {
			l.sources = append(l.sources, src)
			return len(l.sources) - 1
		}
		table := presetTable()
		for _, name := range c.presetNames {
			def, _ := findPreset(table, name)
			p := activePreset{name: def.name}
			for _, r := range def.rules() {
				ar := activeRule{class: r.class, m: -1, desc: r.desc}
				if r.exit != "" {
					l, err := ParseExitList(r.exit)
					if err != nil {
						panic(fmt.Sprintf("preset %s: exit %q: %v", def.name, r.exit, err))
					}
					ar.exit = l
				}
				if r.match != "" {
					ar.m = add(source{text: r.match, join: def.boxed})
				}
				p.rules = append(p.rules, ar)
			}
			for _, h := range commonHints() {
				p.hints = append(p.hints, activeHint{m: add(source{text: h.match, capture: true}), millis: h.millis})
			}
			l.presets = append(l.presets, p)
		}
		if c.signaturesOn {
			for _, d := range signatureTable() {
				l.signatures = append(l.signatures, activeSig{tier: d.tier, m: add(source{text: d.match, need: d.need, tier: d.tier}), desc: d.desc})
			}
		}
	})
	return l
}

// compiled returns the state with every pattern compiled, compiling them
// on the first call.
func (c *Classifier) compiled() *lazyState {
	l := c.rules()
	l.matchOnce.Do(func() {
		l.matchers = make([]matcher, len(l.sources))
		for i, src := range l.sources {
			re := src.re
			if re == nil {
				re = regexp.MustCompile(src.text)
			}
			if len(src.need) > 0 {
				// A signature names its literals: the analysis of its
				// regexp, which costs as much as compiling it, is skipped.
				l.matchers[i] = matcher{re: re, need: exactLiterals(src.need)}
				l.matchers[i].setRare()
			} else {
				l.matchers[i] = newMatcher(re)
			}
			l.matchers[i].capture = src.capture
			l.matchers[i].goesOn, l.matchers[i].stop = src.tier == sigGoesOn, src.tier == sigStop || src.tier == sigErrorLine
			l.matchers[i].once = src.tier == sigUnsure
			l.matchers[i].join = src.join
			l.joins = l.joins || src.join
		}
		l.buildSkip()
	})
	return l
}

// buildSkip prepares MayMatch: one search for every literal that some
// pattern requires, on the text as it is and on the text folded.
func (l *lazyState) buildSkip() {
	// A line with escape sequences may hold a literal only once they are
	// taken out (Scan.Line): every such line is fed to Line.
	raw, folded := [][]byte{{esc}}, [][]byte(nil)
	if l.joins {
		// A phrase split over two box lines may hold none of the
		// literals on either line: every line of a box, and the corners
		// that close and open one, is fed to Line.
		for _, c := range boxChars() {
			raw = append(raw, []byte(c))
		}
	}
	for i := range l.matchers {
		m := &l.matchers[i]
		if m.need == nil {
			l.anyLine = true
			return
		}
		for _, l := range m.need {
			if l.fold {
				folded = append(folded, l.b)
			} else {
				raw = append(raw, l.b)
			}
		}
	}
	l.search = newMixedSearch(raw, folded)
	l.anyLine = len(raw)+len(folded) > 0 && l.search == nil
}

// NeedsOutput reports whether any rule reads output lines, so that the
// runner adds a pipe only when it must.
func (c *Classifier) NeedsOutput() bool {
	return len(c.user) > 0 || len(c.presetNames) > 0 || c.signaturesOn
}

// Signatures reports whether the cross-tool signatures are on.
func (c *Classifier) Signatures() bool { return c.signaturesOn }

// Presets returns the names of the presets the Classifier applies.
func (c *Classifier) Presets() []string { return slices.Clone(c.presetNames) }

// Scan remembers, for one attempt, what the output said that can decide
// its class: for each pattern, whether it matched, the last text it
// matched, its last MaxLines lines and, for wait patterns, the last wait.
// Its memory is bounded by the number of patterns, whatever the volume of
// output. Line may be called from several goroutines, such as the copiers
// of stdout and stderr.
type Scan struct {
	c    *Classifier
	mu   sync.Mutex
	seq  uint64
	hits []hit
	// line is the current line as it is sought.
	line sought
	// box is the tail of the previous line when it was a box line with
	// text, and joined the join of that and the current line (joinBox).
	box    []byte
	joined sought
	// plain is the current line without its escape sequences, when it
	// has any (stripEscapes).
	plain []byte
}

// sought is a text the patterns are sought in, with what their
// prefilters need of it: its bigram set, and its folded form and that
// form's bigram set, made for the first pattern that folds.
type sought struct {
	text, folded       []byte
	isFolded           bool
	grams, foldedGrams gramSet
}

// reset makes text the one sought, its buffers kept.
func (t *sought) reset(text []byte) {
	t.text, t.isFolded = text, false
	t.grams.fill(text)
}

// find returns where m matches the text, nil when it does not.
func (t *sought) find(m *matcher) []int {
	if m.fold && !t.isFolded {
		t.folded = foldLine(t.folded, t.text)
		t.foldedGrams.fill(t.folded)
		t.isFolded = true
	}
	if !m.mayMatch(t.text, t.folded, &t.grams, &t.foldedGrams) {
		return nil
	}
	return m.find(t.text)
}

// hit is what a Scan keeps for one pattern.
type hit struct {
	seq   uint64 // the last line that matched, counting from 1; 0 for none
	text  string // the text the last match covered, shortened
	value string // the first group of the last match, for wait patterns
	lines [MaxLines]seqLine
}

// seqLine is an output line, shortened, with its place in the output.
type seqLine struct {
	seq  uint64
	text string
}

// NewScan returns an empty Scan for one attempt.
func (c *Classifier) NewScan() *Scan {
	return &Scan{c: c}
}

// Line scans one output line; a trailing newline is ignored. The runner
// cuts lines to a bounded length before calling it; Line keeps at most
// MaxLineChars characters of any line it stores.
func (s *Scan) Line(line []byte) {
	if s == nil || !s.c.NeedsOutput() {
		return
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes.IndexByte(line, esc) >= 0 {
		s.plain = stripEscapes(s.plain[:0], line)
		line = s.plain
	}
	s.seq++
	stored := ""
	l := s.c.compiled()
	matchers := l.matchers
	if s.hits == nil {
		s.hits = make([]hit, len(matchers))
	}
	s.line.reset(line)
	goesOn := false // the line goes on to say what the program does about a missing thing
	for i := range matchers {
		m := &matchers[i]
		if goesOn && m.stop || m.once && s.hits[i].seq > 0 {
			continue
		}
		loc := s.line.find(m)
		if loc == nil {
			continue
		}
		goesOn = goesOn || m.goesOn
		s.record(i, line, loc, &stored)
	}
	if l.joins {
		s.joinBox(line, matchers)
	}
}

// record keeps what matcher i matched at loc in line (stored is line as a
// Verdict carries it, made on the first call for the line).
func (s *Scan) record(i int, line []byte, loc []int, stored *string) {
	m := &s.c.lazy.matchers[i]
	h := &s.hits[i]
	h.seq = s.seq
	if m.capture {
		if len(loc) >= 4 && loc[2] >= 0 {
			h.value = string(line[loc[2]:min(loc[3], loc[2]+maxHintBytes)])
		}
		return
	}
	h.text = shorten(string(line[loc[0]:min(loc[1], loc[0]+4*maxMatchChars)]), maxMatchChars)
	if *stored == "" {
		*stored = cutLine(line)
	}
	copy(h.lines[:], h.lines[1:])
	h.lines[MaxLines-1] = seqLine{s.seq, *stored}
}

// joinBox seeks the patterns of presets whose programs wrap their
// diagnostics in a box (terraform's and OpenTofu's "│ ", see boxText)
// across the join of the previous box line and this one, so that a phrase
// the wrapping split ("does not have a" / "provider named") is seen whole.
// Only a match that spans the join counts: one within either line is the
// per-line pass's. An empty box line ends a paragraph, and any other line
// ends the box: neither is joined to what follows.
func (s *Scan) joinBox(line []byte, matchers []matcher) {
	text, ok := boxText(line)
	if !ok || len(text) == 0 {
		s.box = s.box[:0]
		return
	}
	if len(s.box) > 0 {
		s.joined.reset(append(append(append(s.joined.text[:0], s.box...), ' '), text...))
		stored := ""
		for i := range matchers {
			m := &matchers[i]
			if !m.join {
				continue
			}
			if loc := s.joined.find(m); loc != nil && loc[0] < len(s.box) && loc[1] > len(s.box)+1 {
				s.record(i, s.joined.text, loc, &stored)
			}
		}
	}
	// The previous line's tail is all a wrapped phrase needs.
	s.box = append(s.box[:0], text[max(0, len(text)-maxBoxTail):]...)
}

// maxBoxTail is the most bytes of a box line kept to join to the next.
const maxBoxTail = 256

// boxChars are the rule and corners terraform and OpenTofu draw around a
// diagnostic (internal/command/format/diagnostic.go): "╷" opens it, "│ "
// starts each of its lines, "╵" closes it.
func boxChars() []string { return []string{"│", "╷", "╵"} }

// boxText returns the text of a line inside a diagnostic box, without the
// rule and trailing blanks, and whether the line is in a box at all. The
// line comes without its escapes (Scan.Line): terraform colours the rule,
// "\x1b[31m│\x1b[0m ", unless -no-color.
func boxText(line []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("│"))
	if !ok {
		return nil, false
	}
	rest = bytes.TrimPrefix(rest, []byte(" "))
	return bytes.TrimRight(rest, " \t"), true
}

// Classify judges one attempt from how it ended and what its Scan saw (s
// may be nil when no output was scanned); now dates a Retry-After given
// as an HTTP-date. A transient verdict carries the last wait the output
// asked for, if any.
func (c *Classifier) Classify(e Exit, s *Scan, now time.Time) Verdict {
	if s != nil && s.c != c {
		s = nil // a Scan from another Classifier has other patterns
	}
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.hits == nil {
			s = nil // no line was scanned
		}
	}
	v := c.judge(e, s)
	if v.Class == Transient {
		v.Hint, v.HasHint = c.hint(s, now)
		v.Throttled = !v.HasHint && Throttled(v.Lines)
	}
	return v
}

// judge applies the precedence of the package comment.
func (c *Classifier) judge(e Exit, s *Scan) Verdict {
	plain := e.Start == Started && !e.TimedOut && e.Signal == 0
	if plain && e.Code == 0 {
		return Verdict{Class: Success}
	}
	if code, ok := couldNotStart(e); ok {
		if c.retryOnExit.lists(code) {
			return Verdict{Class: Transient, Rule: "--retry-on-exit " + strconv.Itoa(code)}
		}
		return Classify(e)
	}
	if e.Signal == syscall.SIGPIPE || (plain && e.Code == 128+int(syscall.SIGPIPE)) {
		return Classify(e)
	}
	if item, ok := c.stopOnExit.Match(e); ok {
		return Verdict{Class: Terminal, Rule: "--stop-on-exit " + item}
	}
	if v, ok := c.userPatterns(s, c.stopIf, Terminal, "--stop-if"); ok {
		return v
	}
	if item, ok := c.retryOnExit.Match(e); ok {
		return Verdict{Class: Transient, Rule: "--retry-on-exit " + item}
	}
	if v, ok := c.userPatterns(s, c.retryIf, Transient, "--retry-if"); ok {
		return v
	}
	if e.TimedOut {
		return Classify(e)
	}
	if !c.retryOnExit.Empty() || len(c.retryIf) > 0 {
		return Verdict{Class: Terminal, Rule: "no --retry-on-exit or --retry-if rule matched"}
	}
	if e.Start == Started && e.Signal == 0 {
		if v, ok := c.presetVerdict(e, s); ok {
			return v
		}
	}
	d := Classify(e)
	shellSignal := e.Code > 128 && e.Code < 128+65 // a shell's 128+n: a death by signal
	if d.Class == Transient && d.Rule == "" && e.Signal == 0 && !shellSignal {
		if v, ok := c.signatureVerdict(s); ok {
			return v
		}
	}
	return d
}

// couldNotStart reports whether e says the program could not be run
// (exit 126 or 127, from the runner or from a shell), and which code.
func couldNotStart(e Exit) (int, bool) {
	switch {
	case e.Start == ProgramMissing:
		return NotFound, true
	case e.Start == ProgramNotExecutable:
		return NotExecutable, true
	case e.Start == Started && !e.TimedOut && e.Signal == 0 && (e.Code == NotFound || e.Code == NotExecutable):
		return e.Code, true
	}
	return 0, false
}

// userPatterns returns a verdict of class when one of the patterns (indexes
// into matchers) matched a line, naming the one that matched last.
func (c *Classifier) userPatterns(s *Scan, idx []int, class Class, flag string) (Verdict, bool) {
	if s == nil {
		return Verdict{}, false
	}
	best := -1
	for _, i := range idx {
		if s.hits[i].seq > 0 && (best < 0 || s.hits[i].seq > s.hits[best].seq) {
			best = i
		}
	}
	if best < 0 {
		return Verdict{}, false
	}
	return Verdict{
		Class: class,
		Rule:  flag + " " + quote(shorten(c.user[best].text, 60)),
		Lines: s.lines(idx),
	}, true
}

// presetVerdict applies the presets: within a preset the first rule that
// applies decides; across presets, terminal beats transient.
func (c *Classifier) presetVerdict(e Exit, s *Scan) (Verdict, bool) {
	var transient *Verdict
	for _, p := range c.rules().presets {
		for _, r := range p.rules {
			if !c.applies(r, e, s) {
				continue
			}
			v := Verdict{Class: r.class}
			if r.m < 0 {
				v.Rule = fmt.Sprintf("%s preset, exit %d (%s)", p.name, e.Code, r.desc)
			} else {
				v.Rule = fmt.Sprintf("%s preset, %s", p.name, quote(s.hits[r.m].text))
				var same []int
				for _, o := range p.rules {
					if o.class == r.class && o.m >= 0 && c.applies(o, e, s) {
						same = append(same, o.m)
					}
				}
				v.Lines = s.lines(same)
			}
			if v.Class == Terminal {
				return v, true
			}
			if transient == nil {
				transient = &v
			}
			break
		}
	}
	if transient != nil {
		return *transient, true
	}
	return Verdict{}, false
}

// signatureVerdict applies the cross-tool signatures. When a runtime
// reported the error that ended the program (a sigDeath line), the output
// from the last such line on is judged first; then, or when that part
// decides nothing, the whole output. Within what is judged, an explicit
// "try again later" beats a sure terminal signature, which beats a
// transient one, which beats the other terminal ones; among signatures of one tier, the one matched last
// names the rule.
func (c *Classifier) signatureVerdict(s *Scan) (Verdict, bool) {
	if s == nil || !c.signaturesOn {
		return Verdict{}, false
	}
	var death uint64
	for _, g := range c.rules().signatures {
		if g.tier == sigDeath {
			death = max(death, s.hits[g.m].seq)
		}
	}
	if death > 0 {
		if v, ok := c.signaturesFrom(s, death); ok {
			return v, true
		}
	}
	if v, ok := c.signaturesFrom(s, 1); ok {
		return v, true
	}
	return c.errorLineVerdict(s)
}

// errorLineVerdict is the last word of the signatures: a static problem
// named on an error line (sigErrorLine) is terminal when no line carried
// the vocabulary of a failure that passes (sigUnsure).
func (c *Classifier) errorLineVerdict(s *Scan) (Verdict, bool) {
	best := -1
	var same []int
	for _, g := range c.rules().signatures {
		switch {
		case g.tier == sigUnsure && s.hits[g.m].seq > 0:
			return Verdict{}, false
		case g.tier == sigErrorLine && s.hits[g.m].seq > 0:
			same = append(same, g.m)
			if best < 0 || s.hits[g.m].seq > s.hits[best].seq {
				best = g.m
			}
		}
	}
	if best < 0 {
		return Verdict{}, false
	}
	return Verdict{Class: Terminal, Rule: "error line " + quote(s.hits[best].text), Lines: s.lines(same)}, true
}

// signaturesFrom judges by the signatures that matched line from or a
// later one.
func (c *Classifier) signaturesFrom(s *Scan, from uint64) (Verdict, bool) {
	for _, tier := range []sigTier{sigRetryLater, sigStopSure, sigRetry, sigStop} {
		best := -1
		var same []int
		for _, g := range c.rules().signatures {
			if g.tier != tier || s.hits[g.m].seq < from {
				continue
			}
			same = append(same, g.m)
			if best < 0 || s.hits[g.m].seq > s.hits[best].seq {
				best = g.m
			}
		}
		if best < 0 {
			continue
		}
		class := Terminal
		if tier == sigRetry || tier == sigRetryLater {
			class = Transient
		}
		return Verdict{Class: class, Rule: "signature " + quote(s.hits[best].text), Lines: s.lines(same)}, true
	}
	return Verdict{}, false
}

// applies reports whether rule r holds for e and what s saw.
func (c *Classifier) applies(r activeRule, e Exit, s *Scan) bool {
	if !r.exit.Empty() {
		if _, ok := r.exit.Match(e); !ok {
			return false
		}
	}
	if r.m >= 0 {
		return s != nil && s.hits[r.m].seq > 0
	}
	return true
}

// hint returns the last wait the output asked for: the user's
// --retry-after patterns first, then the presets' built-in ones.
func (c *Classifier) hint(s *Scan, now time.Time) (time.Duration, bool) {
	if s == nil {
		return 0, false
	}
	if i := s.latest(c.retryAfter); i >= 0 {
		if d, ok := ParseRetryAfter(s.hits[i].value, now); ok {
			return d, true
		}
	}
	var best *activeHint
	for _, p := range c.rules().presets {
		for i, h := range p.hints {
			if s.hits[h.m].seq > 0 && (best == nil || s.hits[h.m].seq > s.hits[best.m].seq) {
				best = &p.hints[i]
			}
		}
	}
	switch {
	case best == nil:
		return 0, false
	case best.millis:
		return parseMillis(s.hits[best.m].value)
	}
	return ParseRetryAfter(s.hits[best.m].value, now)
}

// latest returns the index among idx of the pattern that matched last, or
// -1 when none matched.
func (s *Scan) latest(idx []int) int {
	best := -1
	for _, i := range idx {
		if s.hits[i].seq > 0 && (best < 0 || s.hits[i].seq > s.hits[best].seq) {
			best = i
		}
	}
	return best
}

// lines returns the last MaxLines distinct lines matched by the patterns
// idx, oldest first.
func (s *Scan) lines(idx []int) []string {
	var all []seqLine
	for _, i := range idx {
		for _, l := range s.hits[i].lines {
			if l.seq > 0 && !slices.ContainsFunc(all, func(o seqLine) bool { return o.seq == l.seq }) {
				all = append(all, l)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(a, b seqLine) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	all = all[max(0, len(all)-MaxLines):]
	out := make([]string, len(all))
	for i, l := range all {
		out[i] = l.text
	}
	return out
}

// find returns the location of m's first match in line (with its groups
// when m.capture is set), or nil.
func (m *matcher) find(line []byte) []int {
	if m.capture {
		return m.re.FindSubmatchIndex(line)
	}
	return m.re.FindIndex(line)
}

// MayMatch reports whether some line of text (one or more whole lines)
// could match one of the classifier's output patterns: false means none
// can, so a scanner may pass over those lines without feeding them to
// Line. It is one substring search per required literal over all of
// text, far cheaper than judging its lines one by one.
func (c *Classifier) MayMatch(text []byte) bool {
	if !c.NeedsOutput() {
		return false
	}
	l := c.compiled()
	return l.anyLine || (l.search != nil && l.search.in(text))
}

// MayMatch is the classifier's MayMatch, for the scanner of an attempt.
func (s *Scan) MayMatch(text []byte) bool {
	return s != nil && s.c.MayMatch(text)
}
