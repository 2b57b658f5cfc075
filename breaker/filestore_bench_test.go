package breaker

import (
	"context"
	"testing"
	"time"
)

// BenchmarkFileStoreUpdate measures one read-modify-write of a circuit
// record in a state directory, lock taken and released: with no other
// process, about the time the lock is held (docs/benchmarks.md).
func BenchmarkFileStoreUpdate(b *testing.B) {
	s, err := openFiles(b.TempDir(), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	br, err := New(s, Default(), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	p := Permit{Verdict: Allow, Status: Status{Key: "bench"}}
	for b.Loop() {
		if _, err := br.Record(ctx, p, Failure); err != nil {
			b.Fatal(err)
		}
	}
}
