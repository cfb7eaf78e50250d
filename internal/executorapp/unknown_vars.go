package executorapp

import (
	"regexp"
	"slices"
	"strings"
)

// ownPrefix begins only the sandbox's variables (the executor's and the
// templates API's alike): any other name that begins with it is taken for
// a misspelling. The executor's other prefixes (NATS_, KV_, …) are shared
// with the NATS tools' variables and with connector secrets of the
// capabilities policy, so only a name close to a known one is reported.
const ownPrefix = "SANDBOX_"

// serviceLink matches the variables Kubernetes sets for each Service of
// the namespace (FOO_SERVICE_HOST, FOO_PORT_4222_TCP_ADDR, …): a Service
// named executor or nats would otherwise read as a misspelling.
var serviceLink = regexp.MustCompile(`_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$`)

// unknownVariable is a variable of the environment the executor does not
// read although it looks like one it does, and the name it likely meant
// ("" when none is close).
type unknownVariable struct{ name, meant string }

// unknownVariables finds, in environ (os.Environ's form), the names that
// look like one of known but are none of them: a letter or two off
// (NATS_ULR for NATS_URL), the start or the end of one (SANDBOX_TIMEOUT
// for SANDBOX_TIMEOUT_MS, MAX_PARALLEL for SANDBOX_MAX_PARALLEL), or a
// SANDBOX_ name. Such a variable is ignored, and a limit an operator meant
// to set silently keeps its default: Main warns about each.
func unknownVariables(environ []string, known []string) []unknownVariable {
	var out []unknownVariable
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || slices.Contains(known, name) || serviceLink.MatchString(name) {
			continue
		}
		meant, distance := closest(name, known)
		if distance > 2 {
			meant = partOf(name, known)
		}
		if meant == "" && !strings.HasPrefix(name, ownPrefix) {
			continue
		}
		out = append(out, unknownVariable{name, meant})
	}
	return out
}

// partOf returns the known name that name begins (SANDBOX_TIMEOUT of
// SANDBOX_TIMEOUT_MS) or ends (MAX_PARALLEL of SANDBOX_MAX_PARALLEL), a
// whole number of its words and two of them at least; "" if none.
func partOf(name string, known []string) string {
	if !strings.Contains(name, "_") {
		return ""
	}
	for _, k := range known {
		if strings.HasPrefix(k, name+"_") || strings.HasSuffix(k, "_"+name) {
			return k
		}
	}
	return ""
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
