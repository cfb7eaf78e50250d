package deployments

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A small PromQL reader: enough to find the metric selectors, their label
// matchers and the grouping labels of the queries in deployments/, so the
// tests can hold them to the names the code exports. It is not a parser:
// it trusts Prometheus to judge the syntax and only refuses what it cannot
// read.

type matcher struct {
	label, op, value string
}

type promSelector struct {
	metric   string // "" for a bare {…}
	matchers []matcher
}

type promQuery struct {
	selectors []promSelector
	grouping  []string // labels of by, without, on, ignoring, group_left, group_right
}

// aggregations may be followed by a by/without clause before their
// parenthesis, so they are not recognised by the parenthesis alone.
var aggregations = []string{
	"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
	"bottomk", "topk", "quantile", "limitk", "limit_ratio",
}

var groupingWords = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}

var operatorWords = []string{"and", "or", "unless", "bool", "offset", "atan2", "inf", "nan"}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func parsePromQL(q string) (promQuery, error) {
	var out promQuery
	i := 0
	lastMetric := -1 // index in out.selectors of a metric name just read
	skipSpace := func() {
		for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
			i++
		}
	}
	readString := func() (string, error) {
		quote := q[i]
		var b strings.Builder
		for i++; i < len(q); i++ {
			switch {
			case q[i] == '\\' && quote != '`' && i+1 < len(q):
				i++
				b.WriteByte(q[i])
			case q[i] == quote:
				i++
				return b.String(), nil
			default:
				b.WriteByte(q[i])
			}
		}
		return "", fmt.Errorf("unclosed string in %q", q)
	}
	readIdent := func() string {
		start := i
		for i < len(q) && isIdentPart(q[i]) {
			i++
		}
		return q[start:i]
	}
	for {
		skipSpace()
		if i >= len(q) {
			return out, nil
		}
		c := q[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			if _, err := readString(); err != nil {
				return out, err
			}
			lastMetric = -1
		case c == '#':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '[':
			end := strings.IndexByte(q[i:], ']')
			if end < 0 {
				return out, fmt.Errorf("unclosed [ in %q", q)
			}
			i += end + 1
			lastMetric = -1
		case c == '{':
			sel := promSelector{}
			idx := lastMetric
			if idx < 0 {
				out.selectors = append(out.selectors, sel)
				idx = len(out.selectors) - 1
			}
			i++
			for {
				skipSpace()
				if i >= len(q) {
					return out, fmt.Errorf("unclosed { in %q", q)
				}
				if q[i] == '}' {
					i++
					break
				}
				if q[i] == ',' {
					i++
					continue
				}
				if !isIdentStart(q[i]) {
					return out, fmt.Errorf("want a label name at %q in %q", q[i:], q)
				}
				var m matcher
				m.label = readIdent()
				skipSpace()
				for _, op := range []string{"!=", "=~", "!~", "="} {
					if strings.HasPrefix(q[i:], op) {
						m.op = op
						i += len(op)
						break
					}
				}
				if m.op == "" {
					return out, fmt.Errorf("want =, !=, =~ or !~ after %s in %q", m.label, q)
				}
				skipSpace()
				if i >= len(q) || (q[i] != '"' && q[i] != '\'' && q[i] != '`') {
					return out, fmt.Errorf("want a quoted value for %s in %q", m.label, q)
				}
				v, err := readString()
				if err != nil {
					return out, err
				}
				m.value = v
				out.selectors[idx].matchers = append(out.selectors[idx].matchers, m)
			}
			lastMetric = -1
		case isIdentStart(c):
			word := readIdent()
			skipSpace()
			nextParen := i < len(q) && q[i] == '('
			lastMetric = -1
			switch {
			case slices.Contains(groupingWords, word):
				if !nextParen {
					continue // group_left without labels
				}
				end := strings.IndexByte(q[i:], ')')
				if end < 0 {
					return out, fmt.Errorf("unclosed %s( in %q", word, q)
				}
				for _, l := range strings.Split(q[i+1:i+end], ",") {
					if l = strings.TrimSpace(l); l != "" {
						out.grouping = append(out.grouping, l)
					}
				}
				i += end + 1
			case slices.Contains(operatorWords, strings.ToLower(word)):
			case slices.Contains(aggregations, word) || nextParen:
				// a function or an aggregation
			default:
				out.selectors = append(out.selectors, promSelector{metric: word})
				lastMetric = len(out.selectors) - 1
			}
		case c >= '0' && c <= '9' || c == '.':
			for i < len(q) && (isIdentPart(q[i]) || q[i] == '.') {
				i++
			}
			lastMetric = -1
		case c == '$':
			// A Grafana variable: $name, ${name}, $__rate_interval.
			i++
			if i < len(q) && q[i] == '{' {
				end := strings.IndexByte(q[i:], '}')
				if end < 0 {
					return out, fmt.Errorf("unclosed ${ in %q", q)
				}
				i += end + 1
			} else {
				readIdent()
			}
			lastMetric = -1
		default:
			i++
			lastMetric = -1
		}
	}
}

func (q promQuery) metrics() []string {
	var names []string
	for _, s := range q.selectors {
		if s.metric != "" {
			names = append(names, s.metric)
		}
	}
	return names
}

// labelValuesQuery is Grafana's label_values(metric, label) or
// label_values(label).
var labelValuesQuery = regexp.MustCompile(`^\s*label_values\(\s*(?:(.+?)\s*,\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)

// parseGrafanaQuery reads a Grafana template variable query.
func parseGrafanaQuery(s string) (promQuery, error) {
	m := labelValuesQuery.FindStringSubmatch(s)
	if m == nil {
		return parsePromQL(s)
	}
	q, err := parsePromQL(m[1])
	if err != nil {
		return q, err
	}
	q.grouping = append(q.grouping, m[2])
	return q, nil
}

func TestParsePromQL(t *testing.T) {
	for _, tc := range []struct {
		q        string
		metrics  []string
		labels   []string // matcher labels, in order
		grouping []string
	}{
		{
			q:        `sum by (outcome) (rate(flowscript_jobs_total{instance=~"$instance"}[$__rate_interval]))`,
			metrics:  []string{"flowscript_jobs_total"},
			labels:   []string{"instance"},
			grouping: []string{"outcome"},
		},
		{
			q:        `histogram_quantile(0.95, sum(rate(lat_bucket[5m])) by (le))`,
			metrics:  []string{"lat_bucket"},
			grouping: []string{"le"},
		},
		{
			q:       `sum(rate(a{code!="", outcome="x}y"}[5m])) / sum(rate(b [1m] offset 1h)) > 0.5`,
			metrics: []string{"a", "b"},
			labels:  []string{"code", "outcome"},
		},
		{
			q:        `x and on(instance) y unless z{reason=~"crash|protocol"}`,
			metrics:  []string{"x", "y", "z"},
			labels:   []string{"reason"},
			grouping: []string{"instance"},
		},
		{
			q:       `max(pending) > 500`,
			metrics: []string{"pending"},
		},
		{
			q:       `{__name__="m"}`,
			labels:  []string{"__name__"},
			metrics: nil,
		},
	} {
		got, err := parsePromQL(tc.q)
		if err != nil {
			t.Errorf("parsePromQL(%q): %v", tc.q, err)
			continue
		}
		var labels []string
		for _, s := range got.selectors {
			for _, m := range s.matchers {
				labels = append(labels, m.label)
			}
		}
		if !slices.Equal(got.metrics(), tc.metrics) || !slices.Equal(labels, tc.labels) || !slices.Equal(got.grouping, tc.grouping) {
			t.Errorf("parsePromQL(%q) = metrics %q labels %q grouping %q; want %q %q %q",
				tc.q, got.metrics(), labels, got.grouping, tc.metrics, tc.labels, tc.grouping)
		}
	}
	for _, bad := range []string{`x{a="b"`, `x{a}`, `x{a="b}`, `rate(x[5m)`} {
		if _, err := parsePromQL(bad); err == nil {
			t.Errorf("parsePromQL(%q) accepted it", bad)
		}
	}
	q, err := parseGrafanaQuery(`label_values(flowscript_jobs_in_flight, instance)`)
	if err != nil || !slices.Equal(q.metrics(), []string{"flowscript_jobs_in_flight"}) || !slices.Equal(q.grouping, []string{"instance"}) {
		t.Errorf("parseGrafanaQuery(label_values) = %+v, %v", q, err)
	}
}
