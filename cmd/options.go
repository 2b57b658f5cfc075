package cmd

import (
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"retry/exitcodes"
	"retry/policy"
)

// Options holds the root command's flags as the user gave them.
type Options struct {
	Attempts  int
	Deadline  time.Duration
	Timeout   time.Duration
	Signal    string
	KillAfter time.Duration

	Fast      int
	FastDelay time.Duration
	FastMax   time.Duration
	SlowDelay time.Duration
	SlowMax   time.Duration
	Jitter    string
	Seed      uint64
	SeedSet   bool

	Quiet   bool
	Verbose bool
}

// defaultOptions returns the built-in defaults, the same as policy.Default.
func defaultOptions() Options {
	p := policy.Default()
	return Options{
		Attempts:  p.Attempts,
		Signal:    "TERM",
		KillAfter: 5 * time.Second,
		Fast:      p.Fast,
		FastDelay: p.FastDelay,
		FastMax:   p.FastMax,
		SlowDelay: p.SlowDelay,
		SlowMax:   p.SlowMax,
		Jitter:    p.Jitter.String(),
	}
}

// bind registers the policy and run flags on fs, writing into o.
func (o *Options) bind(fs *pflag.FlagSet) {
	fs.VarP(countValue{&o.Attempts, "attempts"}, "attempts", "n", "total attempts, the first included; 0 means no count limit (then --deadline must end it)")
	fs.VarP(durationValue{&o.Deadline, "deadline"}, "deadline", "d", "total time for all attempts and waits (default none)")
	fs.VarP(durationValue{&o.Timeout, "timeout"}, "timeout", "t", "time limit of one attempt (default none); cut to the time left before the deadline")
	fs.StringVarP(&o.Signal, "signal", "s", o.Signal, "signal sent to the attempt's process group when its time is up")
	fs.VarP(durationValue{&o.KillAfter, "kill-after"}, "kill-after", "k", "grace period after --signal before SIGKILL")

	fs.Var(countValue{&o.Fast, "fast"}, "fast", "retries in the fast phase, for blips")
	fs.Var(durationValue{&o.FastDelay, "fast-delay"}, "fast-delay", "base wait of the fast phase")
	fs.Var(durationValue{&o.FastMax, "fast-max"}, "fast-max", "longest wait of the fast phase")
	fs.Var(durationValue{&o.SlowDelay, "slow-delay"}, "slow-delay", "base wait of the slow phase, for outages")
	fs.Var(durationValue{&o.SlowMax, "slow-max"}, "slow-max", "longest wait of the slow phase")
	fs.StringVar(&o.Jitter, "jitter", o.Jitter, "how waits are drawn: full (uniform in [0, bound]), equal ([bound/2, bound]) or none")
	fs.Var(seedValue{&o.Seed, &o.SeedSet}, "seed", "seed for every random choice, to make waits repeatable")

	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "print only the give-up line")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "print each attempt with the full command and its duration")
}

// Plan is everything the run needs, checked and converted.
type Plan struct {
	Args      []string
	Policy    policy.Policy
	Timeout   time.Duration
	Signal    syscall.Signal
	KillAfter time.Duration
}

// plan checks the options and the command and builds the Plan. Every error
// is a *UsageError naming the flag.
func (o *Options) plan(args []string) (Plan, error) {
	if len(args) == 0 || args[0] == "" {
		return Plan{}, &UsageError{Flag: "COMMAND", Want: "missing; give the command to run after the flags, as in retry -n 3 -- curl -fsS URL"}
	}
	sig, err := exitcodes.ParseSignal(o.Signal)
	if err != nil {
		return Plan{}, &UsageError{Flag: "--signal", Value: o.Signal, Err: err}
	}
	jitter, err := policy.ParseJitter(o.Jitter)
	if err != nil {
		return Plan{}, &UsageError{Flag: "--jitter", Value: o.Jitter, Want: "want full, equal or none"}
	}
	if o.Quiet && o.Verbose {
		return Plan{}, &UsageError{Flag: "--quiet", Want: "cannot be used with --verbose; pick one"}
	}
	if o.Attempts == 0 && o.Deadline == 0 {
		return Plan{}, &UsageError{Flag: "--attempts", Value: "0", Want: "0 retries without end; give --deadline too, such as --deadline 10m"}
	}
	return Plan{
		Args: args,
		Policy: policy.Policy{
			Attempts:  o.Attempts,
			Deadline:  o.Deadline,
			Fast:      o.Fast,
			FastDelay: o.FastDelay,
			FastMax:   o.FastMax,
			SlowDelay: o.SlowDelay,
			SlowMax:   o.SlowMax,
			Jitter:    jitter,
		},
		Timeout:   o.Timeout,
		Signal:    sig,
		KillAfter: o.KillAfter,
	}, nil
}
