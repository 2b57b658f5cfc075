package exitcodes

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// maxExitCode is the largest exit status a process can report.
const maxExitCode = 255

// wantItem says what a good exit list item looks like, for error messages.
const wantItem = "want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout"

// ExitList is a parsed --retry-on-exit or --stop-on-exit value: exit codes,
// ranges of codes, signal names and the word timeout. The zero value is
// empty and matches nothing.
type ExitList struct {
	items []exitItem
}

// exitItem is one comma-separated item of an ExitList.
type exitItem struct {
	// text is the item as shown in rules: "2", "100-110", "SIGKILL",
	// "timeout".
	text string
	// lo and hi bound a code range; both are -1 for a signal or timeout.
	lo, hi int
	// sig is the signal of a signal item, else 0.
	sig syscall.Signal
	// timeout marks the item "timeout".
	timeout bool
}

// ParseExitList reads a comma-separated list of exit codes (0-255), ranges
// of codes written low-high ("100-110"), signal names in any case with or
// without the SIG prefix ("SIGKILL", "kill") and the word "timeout". Spaces
// around items are ignored. Errors are lowercase, name the bad item and say
// what would be right.
func ParseExitList(s string) (ExitList, error) {
	if strings.TrimSpace(s) == "" {
		return ExitList{}, errors.New("empty list: " + wantItem)
	}
	var l ExitList
	for i, raw := range strings.Split(s, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			return ExitList{}, fmt.Errorf("item %d is empty: remove the extra comma, or %s", i+1, wantItem)
		}
		item, err := parseExitItem(raw)
		if err != nil {
			return ExitList{}, err
		}
		l.items = append(l.items, item)
	}
	return l, nil
}

// parseExitItem reads one trimmed item of an exit list.
func parseExitItem(s string) (exitItem, error) {
	if strings.EqualFold(s, "timeout") {
		return exitItem{text: "timeout", lo: -1, hi: -1, timeout: true}, nil
	}
	if lo, hi, ok := strings.Cut(s, "-"); ok && isDigits(strings.TrimSpace(lo)) && isDigits(strings.TrimSpace(hi)) {
		l, err := parseCode(strings.TrimSpace(lo))
		if err != nil {
			return exitItem{}, err
		}
		h, err := parseCode(strings.TrimSpace(hi))
		if err != nil {
			return exitItem{}, err
		}
		if l > h {
			return exitItem{}, fmt.Errorf("range %q runs backwards: write it low-high, as %d-%d", shorten(s, 40), h, l)
		}
		return exitItem{text: fmt.Sprintf("%d-%d", l, h), lo: l, hi: h}, nil
	}
	if isDigits(s) {
		c, err := parseCode(s)
		if err != nil {
			return exitItem{}, err
		}
		return exitItem{text: strconv.Itoa(c), lo: c, hi: c}, nil
	}
	if isSignalWord(s) {
		if sig, err := ParseSignal(s); err == nil {
			return exitItem{text: SignalName(sig), lo: -1, hi: -1, sig: sig}, nil
		}
	}
	if len(s) > 1 && s[0] == '-' && isDigits(s[1:]) {
		return exitItem{}, fmt.Errorf("exit code %s out of range: want 0-255", shorten(s, 40))
	}
	if strings.Contains(s, "-") && strings.Trim(s, "0123456789- ") == "" {
		return exitItem{}, fmt.Errorf("bad range %q: write it low-high with codes 0-255, as 100-110", shorten(s, 40))
	}
	return exitItem{}, fmt.Errorf("unknown item %q: %s", shorten(s, 40), wantItem)
}

// parseCode reads a string of digits as an exit code 0-255.
func parseCode(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n > maxExitCode {
		return 0, fmt.Errorf("exit code %s out of range: want 0-255", shorten(s, 40))
	}
	return n, nil
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isSignalWord reports whether s could name a signal: ASCII letters and
// digits, starting with a letter.
func isSignalWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= 'a' && c <= 'z') && !(i > 0 && s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return s != ""
}

// Empty reports whether the list has no items.
func (l ExitList) Empty() bool { return len(l.items) == 0 }

// String returns the list in canonical form, such as "1,75,100-110,SIGKILL,timeout".
func (l ExitList) String() string {
	texts := make([]string, len(l.items))
	for i, it := range l.items {
		texts[i] = it.text
	}
	return strings.Join(texts, ",")
}

// Match reports whether e is in the list and returns the item that matched,
// as written in canonical form. A timed-out attempt matches only
// "timeout". A signal item matches a process killed by that signal and an
// exit status of 128 plus its number reported by a shell. A code matches
// the exit status, which is 128+n for a process killed by signal n.
func (l ExitList) Match(e Exit) (item string, ok bool) {
	for _, it := range l.items {
		switch {
		case it.timeout:
			if e.TimedOut {
				return it.text, true
			}
		case e.TimedOut:
			// The attempt ended because retry stopped it: only "timeout"
			// speaks about that.
		case it.sig != 0:
			if e.Signal == it.sig || (e.Signal == 0 && e.Code == 128+int(it.sig)) {
				return it.text, true
			}
		case e.Code >= it.lo && e.Code <= it.hi:
			return it.text, true
		}
	}
	return "", false
}

// lists reports whether code is written in the list as a single code, not
// only covered by a range.
func (l ExitList) lists(code int) bool {
	for _, it := range l.items {
		if it.lo == code && it.hi == code && it.sig == 0 && !it.timeout {
			return true
		}
	}
	return false
}
