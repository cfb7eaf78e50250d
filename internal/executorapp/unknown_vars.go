package executorapp

import (
	"regexp"
	"slices"
	"strings"
)

// ownPrefixes begin only the executor's own variables: any other name
// that begins with one is taken for a misspelling.
var ownPrefixes = []string{"SANDBOX_", "CONTINUATION_", "KV_", "EXECUTOR_", "JOBS_", "RESULTS_", "DLQ_", "FAILURES_", "FAILURE_", "NATS_", "EMBEDDED_NATS_", "CAPABILITIES_"}

// serviceLink matches the variables Kubernetes sets for each Service of
// the namespace (FOO_SERVICE_HOST, FOO_PORT_4222_TCP_ADDR, …): a Service
// named executor or nats would otherwise read as a misspelling.
var serviceLink = regexp.MustCompile(`_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$`)

// unknownVariable is a variable of the environment the executor does not
// read although it looks like one it does, and the name it likely meant
// ("" when none is close).
type unknownVariable struct{ name, meant string }

// unknownVariables finds, in environ (os.Environ's form), the names that
// begin like the executor's own or are a letter or two from one of known,
// but are none of them: SANDBOX_TIMEOUT for SANDBOX_TIMEOUT_MS, NATS_ULR
// for NATS_URL. Such a variable is ignored, and a limit an operator meant
// to set silently keeps its default; Main warns about each.
func unknownVariables(environ []string, known []string) []unknownVariable {
	var out []unknownVariable
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || slices.Contains(known, name) || serviceLink.MatchString(name) {
			continue
		}
		meant, distance := closest(name, known)
		own := slices.ContainsFunc(ownPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
		if !own && distance > 2 {
			continue
		}
		if distance > 2 && !strings.HasPrefix(meant, name) && !strings.HasPrefix(name, meant) {
			meant = ""
		}
		out = append(out, unknownVariable{name, meant})
	}
	return out
}

// closest returns the name of known nearest to name in edit distance.
func closest(name string, known []string) (string, int) {
	best, bestD := "", 1<<30
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best, bestD
}

// editDistance is the Levenshtein distance between two ASCII names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
