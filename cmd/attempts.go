package cmd

// The two flags that set the attempt limit, --attempts and --forever: the
// later of the two wins, as for any flag given twice.

import "strconv"

// attemptsValue is --attempts: a count that also replaces an earlier
// --forever, so that the later of the two wins, as for any flag.
type attemptsValue struct {
	countValue
	forever *bool
}

func (v attemptsValue) Set(s string) error {
	if err := v.countValue.Set(s); err != nil {
		return err
	}
	*v.forever = false
	return nil
}

// foreverValue is --forever: no attempt limit, on purpose. It sets the
// attempts to 0, replacing an earlier --attempts.
type foreverValue struct {
	forever  *bool
	attempts *int
}

func (v foreverValue) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return &UsageError{Flag: "--forever", Value: s, Want: "want true or false, or no value"}
	}
	*v.forever = on
	if on {
		*v.attempts = 0
	}
	return nil
}

func (v foreverValue) String() string {
	return strconv.FormatBool(v.forever != nil && *v.forever)
}

func (foreverValue) Type() string { return "bool" }

// IsBoolFlag lets --forever stand alone, without =true.
func (foreverValue) IsBoolFlag() bool { return true }
