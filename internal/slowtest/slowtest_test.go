package slowtest

import (
	"testing"
)

func TestSlowTestsRunOnlyWhenAskedForAndNeverWithShort(t *testing.T) {
	for _, tc := range []struct {
		slow, long string
		want       bool
	}{
		{"1", "", !testing.Short()},
		{"", "1", !testing.Short()},
		{"", "", false},
		{"0", "", false},
		{"yes", "", false},
	} {
		t.Setenv(Env, tc.slow)
		t.Setenv("RETRY_LONG_TESTS", tc.long)
		if got := Enabled(); got != tc.want {
			t.Errorf("%s=%q RETRY_LONG_TESTS=%q: Enabled() = %v, want %v", Env, tc.slow, tc.long, got, tc.want)
		}
	}
}

func TestOnlySkipsWhenSlowTestsAreOff(t *testing.T) {
	t.Setenv(Env, "")
	t.Setenv("RETRY_LONG_TESTS", "")
	ran := false
	t.Run("slow", func(t *testing.T) {
		Only(t, "takes a minute")
		ran = true
	})
	if ran {
		t.Error("the slow test ran without " + Env)
	}
}
