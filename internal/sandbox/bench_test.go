package sandbox

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkExecuteCached: a whole run of the seed's cpf script — fresh
// locked-down runtime, cached program, call, serialization. Target: ≤ 100 µs.
func BenchmarkExecuteCached(b *testing.B) {
	benchmarkExecute(b, Request{Source: seedCPF, Inputs: []Input{in("cpf", "123.456.789-09")}}, "valido")
}

func BenchmarkExecuteCachedNome(b *testing.B) {
	benchmarkExecute(b, Request{Source: seedNome, Inputs: []Input{in("nome", "maria da silva")}}, "Maria Da Silva")
}

func benchmarkExecute(b *testing.B, req Request, want string) {
	l := Limits{}.WithDefaults()
	ctx := context.Background()
	for b.Loop() {
		if res := Execute(ctx, l, req); res.Output != want {
			b.Fatalf("got %q %v", res.Output, res.Err)
		}
	}
}

// BenchmarkCompileCold: assembling and compiling a source never seen before.
func BenchmarkCompileCold(b *testing.B) {
	i := 0
	for b.Loop() {
		i++
		if _, err := Compile(seedCPF+"\n// "+strconv.Itoa(i), []string{"cpf"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewRuntime: the per-job cost of a fresh locked-down runtime.
func BenchmarkNewRuntime(b *testing.B) {
	l := Limits{}.WithDefaults()
	for b.Loop() {
		if _, err := newVM(l); err != nil {
			b.Fatal(err)
		}
	}
}
