package deployments

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/telemetry"
)

const dashboardFile = "flowscript-dashboard.json"

// targetLabels are added by Prometheus (instance, job) or by Kubernetes
// service discovery and prometheus-adapter (namespace, pod) to every
// series; queries may use them on any metric.
var targetLabels = []string{"instance", "job", "namespace", "pod"}

// histogramSuffixes are the series Prometheus shows for one histogram.
var histogramSuffixes = []string{"_bucket", "_sum", "_count"}

// exportedSeries is what the executor's /metrics shows: each series name
// with its label names, and each metric's TYPE.
type exportedSeries struct {
	labels map[string][]string // series name → label names
	types  map[string]string   // metric name → counter, gauge, histogram
}

// scrapeExported builds the executor's metrics as the code does
// (telemetry.Setup + NewMetrics), records one of each, and reads the
// Prometheus text the admin port would serve.
func scrapeExported(t *testing.T) exportedSeries {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := telemetry.Setup(ctx, telemetry.Config{
		ServiceName: "flowscript-executor",
		Getenv:      func(string) string { return "" },
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("telemetry.Setup: %v", err)
	}
	defer func() {
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("telemetry shutdown: %v", err)
		}
	}()
	m, err := telemetry.NewMetrics(p.MeterProvider())
	if err != nil {
		t.Fatalf("telemetry.NewMetrics: %v", err)
	}
	m.JobFinished(ctx, telemetry.OutcomeFailed, "SCRIPT_ERROR")
	m.SandboxDuration(ctx, "SCRIPT_ERROR", 12*time.Millisecond)
	m.JobLatency(ctx, 40*time.Millisecond)
	m.InFlight(ctx, 1)
	m.WorkerRestarted(ctx, "crash")
	m.DeadLettered(ctx, "invalid_job")
	m.PullFailed(ctx, "disconnected")
	m.LeftoversRemoved(ctx, 2)
	reg, err := m.ObservePending(func(context.Context) (int64, error) { return 3, nil }, time.Minute)
	if err != nil {
		t.Fatalf("ObservePending: %v", err)
	}
	defer func() {
		if err := reg.Unregister(); err != nil {
			t.Errorf("unregistering the pending callback: %v", err)
		}
	}()

	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	ex := exportedSeries{labels: map[string][]string{}, types: map[string]string{}}
	labelName := regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)="`)
	sc := bufio.NewScanner(rec.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				ex.types[f[0]] = f[1]
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		seen := ex.labels[name]
		if before, _, ok := strings.Cut(rest, "}"); ok {
			for _, m := range labelName.FindAllStringSubmatch(before, -1) {
				if !slices.Contains(seen, m[1]) {
					seen = append(seen, m[1])
				}
			}
		}
		ex.labels[name] = seen
	}
	return ex
}

// baseName strips a histogram series suffix.
func baseName(series string) string {
	for _, s := range histogramSuffixes {
		if b, ok := strings.CutSuffix(series, s); ok {
			return b
		}
	}
	return series
}

// The code exports every name of telemetry.MetricNames under exactly that
// name (histograms with their three series), and nothing else of its own.
func TestExportedMetricNames(t *testing.T) {
	ex := scrapeExported(t)
	for _, name := range telemetry.MetricNames {
		typ, ok := ex.types[name]
		if !ok {
			t.Errorf("/metrics has no metric %s", name)
			continue
		}
		series := []string{name}
		if typ == "histogram" {
			series = nil
			for _, s := range histogramSuffixes {
				series = append(series, name+s)
			}
		}
		for _, s := range series {
			if _, ok := ex.labels[s]; !ok {
				t.Errorf("/metrics has no series %s (%s %s)", s, typ, name)
			}
		}
	}
	for series := range ex.labels {
		if strings.HasPrefix(series, "flowscript_") && !slices.Contains(telemetry.MetricNames, baseName(series)) {
			t.Errorf("/metrics shows %s, which is not in telemetry.MetricNames", series)
		}
	}
}

// checkQuery holds one query of a dashboard, rule or adapter to the
// exported names and labels. It returns the metric names it uses.
func checkQuery(t *testing.T, ex exportedSeries, where, query string, parse func(string) (promQuery, error)) []string {
	t.Helper()
	q, err := parse(query)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return nil
	}
	if len(q.metrics()) == 0 {
		t.Errorf("%s: the query %q reads no metric", where, query)
	}
	groupable := slices.Clone(targetLabels)
	for _, s := range q.selectors {
		if s.metric == "" {
			t.Errorf("%s: a selector without a metric name in %q", where, query)
			continue
		}
		labels, ok := ex.labels[s.metric]
		switch {
		case !slices.Contains(telemetry.MetricNames, baseName(s.metric)):
			t.Errorf("%s: %s is not in telemetry.MetricNames %v", where, s.metric, telemetry.MetricNames)
			continue
		case !ok:
			t.Errorf("%s: /metrics has no series %s (a histogram's series end in _bucket, _sum or _count; counters already end in _total)", where, s.metric)
			continue
		}
		groupable = append(groupable, labels...)
		for _, m := range s.matchers {
			if !slices.Contains(labels, m.label) && !slices.Contains(targetLabels, m.label) {
				t.Errorf("%s: %s has no label %s (it has %v)", where, s.metric, m.label, labels)
			}
			if m.label == telemetry.LabelOutcome && (m.op == "=" || m.op == "!=") && !slices.Contains(outcomes, m.value) {
				t.Errorf("%s: outcome %q is none of the code's outcomes %v", where, m.value, outcomes)
			}
		}
	}
	for _, g := range q.grouping {
		if !slices.Contains(groupable, g) {
			t.Errorf("%s: groups by %s, a label none of its metrics has", where, g)
		}
	}
	return q.metrics()
}

var outcomes = []string{
	telemetry.OutcomeSucceeded, telemetry.OutcomeFailed, telemetry.OutcomeDeadLettered,
	telemetry.OutcomeRetried, telemetry.OutcomeInterrupted, telemetry.OutcomeSuspended,
}

// dashboard is the part of Grafana's JSON the tests read; everything else
// is walked generically.
type dashboard struct {
	UID        string `json:"uid"`
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name    string          `json:"name"`
			Type    string          `json:"type"`
			Query   json.RawMessage `json:"query"`
			Current struct {
				Value any `json:"value"`
			} `json:"current"`
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type panel struct {
	ID         int             `json:"id"`
	Type       string          `json:"type"`
	Title      string          `json:"title"`
	Datasource json.RawMessage `json:"datasource"`
	Targets    []struct {
		Expr       string          `json:"expr"`
		Datasource json.RawMessage `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row's
}

func loadDashboard(t *testing.T) (dashboard, []panel) {
	t.Helper()
	var d dashboard
	if err := json.Unmarshal(readFile(t, filepath.Join("grafana", dashboardFile)), &d); err != nil {
		t.Fatalf("parsing %s: %v", dashboardFile, err)
	}
	var flat []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			flat = append(flat, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return d, flat
}

// dashboardDefaultDatasource is the uid the dashboard's datasource
// variable starts on.
func dashboardDefaultDatasource(t *testing.T) string {
	t.Helper()
	d, _ := loadDashboard(t)
	for _, v := range d.Templating.List {
		if v.Type == "datasource" {
			return fmt.Sprint(v.Current.Value)
		}
	}
	t.Fatalf("%s has no datasource variable", dashboardFile)
	return ""
}

// The dashboard shows every metric the executor exports, under the
// exported names and labels, through its datasource variable.
func TestDashboardUsesTheExportedMetrics(t *testing.T) {
	ex := scrapeExported(t)
	d, panels := loadDashboard(t)
	if d.UID == "" || d.Title == "" {
		t.Error("the dashboard needs a uid and a title (provisioning keys on the uid)")
	}
	dsVar := ""
	used := map[string]bool{}
	for _, v := range d.Templating.List {
		switch v.Type {
		case "datasource":
			dsVar = v.Name
		case "query":
			var q struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(v.Query, &q); err != nil {
				if err := json.Unmarshal(v.Query, &q.Query); err != nil {
					t.Fatalf("variable %s: query is neither a string nor {query}: %v", v.Name, err)
				}
			}
			for _, m := range checkQuery(t, ex, "variable "+v.Name, q.Query, parseGrafanaQuery) {
				used[m] = true
			}
		}
	}
	if dsVar == "" {
		t.Fatal("the dashboard has no datasource variable: it would be tied to one Grafana's datasource uid")
	}
	wantDS := `"${` + dsVar + `}"`
	ids := map[int]bool{}
	quantiles := map[string]bool{}
	for _, p := range panels {
		if ids[p.ID] {
			t.Errorf("panel id %d is used twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for i, target := range p.Targets {
			where := fmt.Sprintf("panel %q query %d", p.Title, i)
			if !strings.Contains(string(target.Datasource), wantDS) && !strings.Contains(string(p.Datasource), wantDS) {
				t.Errorf("%s: datasource %s, want the variable ${%s}", where, target.Datasource, dsVar)
			}
			for _, m := range checkQuery(t, ex, where, target.Expr, parsePromQL) {
				used[m] = true
			}
			if strings.Contains(target.Expr, "histogram_quantile(") {
				q, _ := parsePromQL(target.Expr)
				for _, m := range q.metrics() {
					if strings.HasSuffix(m, "_bucket") && slices.Contains(q.grouping, "le") {
						quantiles[baseName(m)] = true
					}
				}
			}
		}
	}
	for _, name := range telemetry.MetricNames {
		if !used[name] && !used[name+"_bucket"] && !used[name+"_sum"] && !used[name+"_count"] {
			t.Errorf("the dashboard shows nothing of %s", name)
		}
		if ex.types[name] == "histogram" && !quantiles[name] {
			t.Errorf("the dashboard has no percentiles of %s: histogram_quantile over sum by (le) of %s_bucket", name, name)
		}
	}
}

// The alert rules read exported metrics, and each says how bad it is.
func TestAlertRulesUseTheExportedMetrics(t *testing.T) {
	ex := scrapeExported(t)
	var rules struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	decodeYAML(t, filepath.Join("prometheus", "flowscript-alerts.yml"), &rules)
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			n++
			checkQuery(t, ex, "alert "+r.Alert, r.Expr, parsePromQL)
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s needs a severity label, a summary and a description", r.Alert)
			}
		}
	}
	if n == 0 {
		t.Fatal("flowscript-alerts.yml has no rules")
	}
}

// prometheus-adapter turns the exported pending gauge into the external
// metric the HPA reads.
func TestAdapterRulesUseTheExportedMetrics(t *testing.T) {
	ex := scrapeExported(t)
	for i, r := range adapterRules(t) {
		where := fmt.Sprintf("prometheus-adapter rule %d", i)
		metrics := checkQuery(t, ex, where+" seriesQuery", r.SeriesQuery, parsePromQL)
		if len(metrics) != 1 {
			t.Errorf("%s: seriesQuery %q should select one metric", where, r.SeriesQuery)
			continue
		}
		// The adapter fills in the series and the label matchers.
		q := strings.NewReplacer("<<.Series>>", metrics[0], "<<.LabelMatchers>>", `namespace="flowscript"`, "<<.GroupBy>>", "namespace").Replace(r.MetricsQry)
		if strings.Contains(q, "<<") {
			t.Errorf("%s: metricsQuery %q uses a template this test does not know", where, r.MetricsQry)
		}
		checkQuery(t, ex, where+" metricsQuery", q, parsePromQL)
		re, err := regexp.Compile(r.Name.Matches)
		if err != nil || !re.MatchString(metrics[0]) {
			t.Errorf("%s: name.matches %q does not match %s", where, r.Name.Matches, metrics[0])
		}
		if !slices.Contains(telemetry.MetricNames, r.Name.As) {
			t.Errorf("%s: exposes %q, which is not in telemetry.MetricNames", where, r.Name.As)
		}
	}
}
