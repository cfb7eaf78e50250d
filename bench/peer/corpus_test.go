package main

import (
	"context"
	"testing"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// BenchmarkCorpus runs each script of the corpus in this process (a fresh
// runtime per run, the program cached), to profile what the peer benchmark
// measures without the worker pool around it:
//
//	go test ./bench/peer -run '^$' -bench 'Corpus/regex' -cpuprofile /tmp/cpu.prof
func BenchmarkCorpus(b *testing.B) {
	l := sandbox.Limits{}.WithDefaults()
	for _, e := range corpus() {
		req := sandbox.Request{Source: e.source(), Inputs: []sandbox.Input{{Name: e.inputName, Value: e.input}}}
		b.Run(e.name, func(b *testing.B) {
			for b.Loop() {
				if res := sandbox.Execute(context.Background(), l, req); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
