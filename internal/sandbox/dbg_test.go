package sandbox

import (
	"testing"

	"github.com/dop251/goja"
)

func BenchmarkPieces(b *testing.B) {
	l := Limits{}.WithDefaults()
	b.Run("goja.New", func(b *testing.B) {
		for b.Loop() {
			_ = goja.New()
		}
	})
	b.Run("newVM", func(b *testing.B) {
		for b.Loop() {
			_, _ = newVM(l)
		}
	})
	b.Run("newVM+host", func(b *testing.B) {
		for b.Loop() {
			v, _ := newVM(l)
			_ = v.installHost(&hostState{}, true)
		}
	})
	b.Run("jsonparse", func(b *testing.B) {
		for b.Loop() {
			v := &vm{rt: goja.New()}
			v.json = v.rt.Get("JSON").ToObject(v.rt)
			_ = v.installJSONParse()
		}
	})
}
