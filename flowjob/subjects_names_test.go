package flowjob

import (
	"strings"
	"testing"
)

func TestValidStreamName(t *testing.T) {
	for _, s := range []string{"JOBS", "jobs-2", "A_b_9", strings.Repeat("x", MaxStreamNameBytes)} {
		if !ValidStreamName(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"", "JOBS.X", "a b", "a*", "a>", "é", strings.Repeat("x", MaxStreamNameBytes+1)} {
		if ValidStreamName(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestValidSubjectPrefix(t *testing.T) {
	for _, p := range []string{"flowscript", "acme.flows", "a-b_c.d1", strings.Repeat("t", 256)} {
		if !ValidSubjectPrefix(p) {
			t.Errorf("%q refused", p)
		}
	}
	for _, p := range []string{"", ".", "a.", ".a", "a..b", "a.*", "a.>", "a b", "a\tb", strings.Repeat("t", 257)} {
		if ValidSubjectPrefix(p) {
			t.Errorf("%q accepted", p)
		}
	}
}
