package exitcodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseRetryAfterReadsSecondsDurationsAndDates(t *testing.T) {
	t.Parallel()
	now := time.Date(1994, 11, 6, 8, 49, 7, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want time.Duration
		ok   bool
	}{
		{"whole seconds", "30", 30 * time.Second, true},
		{"zero seconds", "0", 0, true},
		{"decimal seconds", "1.5", 1500 * time.Millisecond, true},
		{"decimal with nanoseconds and beyond", "0.1234567891", 123456789 * time.Nanosecond, true},
		{"surrounding spaces and CR", " 120\r", 2 * time.Minute, true},
		{"quoted", `"5"`, 5 * time.Second, true},
		{"go duration", "2m", 2 * time.Minute, true},
		{"compound go duration", "1m30s", 90 * time.Second, true},
		{"milliseconds duration", "250ms", 250 * time.Millisecond, true},
		{"micro sign duration", "5µs", 5 * time.Microsecond, true},
		{"IMF-fixdate ahead", "Sun, 06 Nov 1994 08:49:37 GMT", 30 * time.Second, true},
		{"RFC 850 date ahead", "Sunday, 06-Nov-94 08:49:37 GMT", 30 * time.Second, true},
		{"asctime date ahead", "Sun Nov  6 08:49:37 1994", 30 * time.Second, true},
		{"date in the past means no wait", "Sun, 06 Nov 1994 08:00:00 GMT", 0, true},
		{"date far ahead is capped", "Fri, 31 Dec 9999 23:59:59 GMT", MaxRetryAfter, true},
		{"huge seconds are capped", "99999999999999999999999999", MaxRetryAfter, true},
		{"seconds just under the cap", "86399", MaxRetryAfter - time.Second, true},
		{"huge duration is capped", "9999999999999h", MaxRetryAfter, true},
		{"duration over the cap is capped", "25h", MaxRetryAfter, true},
		{"negative seconds are rejected", "-5", 0, false},
		{"negative duration is rejected", "-2m", 0, false},
		{"plus sign is rejected", "+5", 0, false},
		{"empty is rejected", "", 0, false},
		{"garbage is rejected", "soon", 0, false},
		{"exponent is rejected", "1e3", 0, false},
		{"unit without number is rejected", "ms", 0, false},
		{"two dots are rejected", "1..5s", 0, false},
		{"date without zone is rejected", "Sun, 06 Nov 1994 08:49:37", 0, false},
		{"NaN is rejected", "NaN", 0, false},
		{"Inf is rejected", "Inf", 0, false},
		{"a long value is rejected", "1" + string(make([]byte, 100)), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseRetryAfter(tt.in, now)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseMillisReadsWholeMillisecondsOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1500", 1500 * time.Millisecond, true},
		{"0", 0, true},
		{"'250'", 250 * time.Millisecond, true},
		{"99999999999999999999", MaxRetryAfter, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, ok := parseMillis(tt.in)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}
