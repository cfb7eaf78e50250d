package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/flowscript/flowscript/flowjob"
)

func init() {
	register(&Command{
		Name:    "templates",
		Summary: "list, get, create, update, delete and test script templates and read their versions (templates API)",
		Help:    templatesHelp,
		Run:     templatesCmd,
	})
}

const templatesHelp = `Usage:
  flowscript templates list [--name TEXT] [--limit N [--cursor CURSOR]] [--table]
  flowscript templates get ID
  flowscript templates create --name NAME [--description TEXT] --source FILE|-
  flowscript templates update ID --name NAME [--description TEXT] --source FILE|-
  flowscript templates versions ID [--version N]
  flowscript templates delete ID
  flowscript templates test --source FILE|- [--input name=value ...]

Talks to the templates API (cmd/templates-api) and prints its JSON answer on
stdout, one document per line: the template list, a template, the saved
template with its guardrail warnings, a template's versions or one version
with its source, {"id", "deleted": true}, or a test run's {"ok", "output" |
"error", "durationMs", "findings"}. The API validates a template before
saving it: a syntax error comes back with its line and column. update
stores the content as the template's next version; earlier versions stay
readable with versions ID --version N. Without --description, update keeps
the template's description: it reads the template first, and writes only if
nobody updated it in between (If-Match).

list prints every template, newest first, as one JSON array: it walks the
API's pages (200 templates each) for you. With --limit it prints one page
instead, and when more follow it tells on stderr the --cursor that
continues. versions ID prints every version (without sources), newest first.

Every subcommand takes:
  --url URL        the API's base (default $FLOWSCRIPT_API_URL, else
                   http://127.0.0.1:8081/api)
  --api-key KEY    an API key, sent as X-API-Key (default $FLOWSCRIPT_API_KEY)
  --token JWT      a bearer token (default $FLOWSCRIPT_TOKEN); give a key or a
                   token, not both. Prefer the variables: flags show in the
                   process list.
  --timeout D      how long the request may take (default 30s)

  --name TEXT      (list) only templates whose name contains TEXT, ignoring
                   case
  --limit N        (list) one page of at most N templates (1 to 200)
  --cursor CURSOR  (list) the page that starts at CURSOR, from the stderr of
                   the previous page (give the same --name)
  --table          (list) a table of id, name, version, update time and
                   description instead of JSON
  --version N      (versions) that version, with its source
  --input name=value  (test) an input of the script, in the order of
                   execute's parameters (repeatable)

Exit status: 0 on success, 1 when the API answers with an error (its JSON
error is printed on stderr), cannot be reached, or a test run fails; 2 for
a usage error.

Examples:
  export FLOWSCRIPT_API_KEY=dev-key-0123456789abcdef
  flowscript templates list --table
  flowscript templates create --name "Valida CPF" --description "11 digits" --source examples/cpf.js
  flowscript templates list --name cpf --table
  flowscript templates get 0190c5b2-7d1e-7c3a-9b1e-3f2a1c4d5e6f | jq -r .source
  flowscript templates update 0190c5b2-7d1e-7c3a-9b1e-3f2a1c4d5e6f --name "Valida CPF" --source examples/cpf.js
  flowscript templates versions 0190c5b2-7d1e-7c3a-9b1e-3f2a1c4d5e6f --version 1 | jq -r .source
  flowscript templates test --source examples/cpf.js --input cpf=123.456.789-09
  flowscript templates delete 0190c5b2-7d1e-7c3a-9b1e-3f2a1c4d5e6f
`

const defaultAPIURL = "http://127.0.0.1:8081/api"

// templatesOptions is the parsed command line of one templates subcommand.
type templatesOptions struct {
	sub         string
	api         apiClient
	timeout     time.Duration
	table       bool
	name        string
	description string
	// descriptionSet: --description was given (update keeps the
	// template's own otherwise).
	descriptionSet bool
	source         string
	inputs         []flowjob.InputVariable
	id             string
	nameFilter     string
	limit          int
	cursor         string
	version        int
}

// subcommand is one templates subcommand: its flags beyond the common
// ones, how many IDs it takes, and what it does.
type subcommand struct {
	flags func(fs *flag.FlagSet, o *templatesOptions)
	takes string // "ID" or "" for no argument
	run   func(ctx context.Context, env Env, o templatesOptions) int
}

var templatesSubcommands = map[string]subcommand{
	"list": {
		flags: func(fs *flag.FlagSet, o *templatesOptions) {
			fs.BoolVar(&o.table, "table", false, "")
			fs.StringVar(&o.nameFilter, "name", "", "")
			fs.IntVar(&o.limit, "limit", 0, "")
			fs.StringVar(&o.cursor, "cursor", "", "")
		},
		run: templatesList,
	},
	"get": {takes: "ID", run: templatesGet},
	"update": {
		takes: "ID",
		flags: func(fs *flag.FlagSet, o *templatesOptions) {
			fs.StringVar(&o.name, "name", "", "")
			fs.Func("description", "", func(s string) error {
				o.description, o.descriptionSet = s, true
				return nil
			})
			fs.StringVar(&o.source, "source", "", "")
		},
		run: templatesUpdate,
	},
	"versions": {
		takes: "ID",
		flags: func(fs *flag.FlagSet, o *templatesOptions) { fs.IntVar(&o.version, "version", 0, "") },
		run:   templatesVersions,
	},
	"delete": {takes: "ID", run: templatesDelete},
	"create": {
		flags: func(fs *flag.FlagSet, o *templatesOptions) {
			fs.StringVar(&o.name, "name", "", "")
			fs.StringVar(&o.description, "description", "", "")
			fs.StringVar(&o.source, "source", "", "")
		},
		run: templatesCreate,
	},
	"test": {
		flags: func(fs *flag.FlagSet, o *templatesOptions) {
			fs.StringVar(&o.source, "source", "", "")
			fs.Func("input", "", inputFlag(&o.inputs))
		},
		run: templatesTest,
	},
}

const subcommandNames = "list, get, create, update, versions, delete or test"

func templatesCmd(ctx context.Context, env Env, args []string) int {
	if len(args) == 0 {
		return usageError(env, "templates", "missing the subcommand: %s", subcommandNames)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		_, _ = fmt.Fprint(env.Stdout, templatesHelp)
		return ExitOK
	}
	sub, ok := templatesSubcommands[args[0]]
	if !ok {
		return usageError(env, "templates", "unknown subcommand %q: want %s", args[0], subcommandNames)
	}
	opts, code, ok := parseTemplates(env, args[0], sub, args[1:])
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	return sub.run(ctx, env, opts)
}

func parseTemplates(env Env, name string, sub subcommand, args []string) (o templatesOptions, code int, ok bool) {
	o.sub = name
	fs := flag.NewFlagSet("templates "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.api.base, "url", envOr(env, "FLOWSCRIPT_API_URL", defaultAPIURL), "")
	fs.StringVar(&o.api.apiKey, "api-key", env.Getenv("FLOWSCRIPT_API_KEY"), "")
	fs.StringVar(&o.api.token, "token", env.Getenv("FLOWSCRIPT_TOKEN"), "")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "")
	if sub.flags != nil {
		sub.flags(fs, &o)
	}
	positional, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = fmt.Fprint(env.Stdout, templatesHelp)
		return o, ExitOK, false
	}
	if err != nil {
		return o, usageError(env, "templates", "%s: %v", name, err), false
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var problem string
	switch {
	case sub.takes == "ID" && len(positional) != 1:
		problem = fmt.Sprintf("%s takes one template ID, got %d arguments", name, len(positional))
	case sub.takes == "" && len(positional) > 0:
		problem = fmt.Sprintf("%s takes no argument, got %q", name, positional[0])
	case (name == "create" || name == "update") && strings.TrimSpace(o.name) == "":
		problem = name + " needs --name"
	case (name == "create" || name == "update" || name == "test") && o.source == "":
		problem = name + " needs --source FILE (or - for standard input)"
	case set["limit"] && (o.limit < 1 || o.limit > maxPageSize):
		problem = fmt.Sprintf("--limit must be from 1 to %d, got %d", maxPageSize, o.limit)
	case set["cursor"] && !set["limit"]:
		problem = "--cursor continues a page: give --limit too (the same as for the previous page)"
	case set["version"] && o.version < 1:
		problem = fmt.Sprintf("--version must be 1 or more, got %d", o.version)
	case o.timeout <= 0:
		problem = fmt.Sprintf("--timeout must be positive, such as 30s, got %s", o.timeout)
	case o.api.apiKey != "" && o.api.token != "":
		problem = "give --api-key or --token, not both (check FLOWSCRIPT_API_KEY and FLOWSCRIPT_TOKEN)"
	}
	if problem == "" {
		if u, err := url.Parse(o.api.base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problem = fmt.Sprintf("--url must be the API's base URL such as %s, got %q", defaultAPIURL, o.api.base)
		}
	}
	if problem != "" {
		return o, usageError(env, "templates", "%s", problem), false
	}
	if len(positional) == 1 {
		o.id = positional[0]
	}
	o.api.base = strings.TrimSuffix(o.api.base, "/")
	return o, ExitOK, true
}

// maxPageSize is the API's largest page (templates.MaxPageSize): list
// walks the pages at this size.
const maxPageSize = 200

func templatesList(ctx context.Context, env Env, o templatesOptions) int {
	q := url.Values{}
	if o.nameFilter != "" {
		q.Set("name", o.nameFilter)
	}
	var raw []byte
	if o.limit > 0 {
		q.Set("limit", strconv.Itoa(o.limit))
		if o.cursor != "" {
			q.Set("cursor", o.cursor)
		}
		body, header, code := o.api.do(ctx, env, o.sub, http.MethodGet, "/script-templates?"+q.Encode(), nil)
		if code != ExitOK {
			return code
		}
		raw = body
		if next := header.Get("X-Next-Cursor"); next != "" {
			hint := fmt.Sprintf("--limit %d --cursor %s", o.limit, next)
			if o.nameFilter != "" {
				hint += " --name " + strconv.Quote(o.nameFilter)
			}
			_, _ = fmt.Fprintf(env.Stderr, "flowscript templates list: more templates follow: %s\n", hint)
		}
	} else {
		q.Set("limit", strconv.Itoa(maxPageSize))
		all, code := o.api.walk(ctx, env, o.sub, "/script-templates", q)
		if code != ExitOK {
			return code
		}
		raw = all
	}
	if !o.table {
		return printJSONLine(env, raw)
	}
	var list []struct {
		ID          string    `json:"id"`
		Name        string    `json:"name"`
		Description string    `json:"description"`
		Version     int       `json:"version"`
		UpdatedAt   time.Time `json:"updatedAt"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript templates list: the API's answer is not a template list: %v\n", err)
		return ExitFailed
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "ID\tNAME\tVERSION\tUPDATED\tDESCRIPTION")
	for _, t := range list {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", t.ID, oneLine(t.Name, 40), t.Version, t.UpdatedAt.UTC().Format(time.RFC3339), oneLine(t.Description, 60))
	}
	_ = tw.Flush()
	return ExitOK
}

func templatesUpdate(ctx context.Context, env Env, o templatesOptions) int {
	source, err := readAll(env, o.source, flowjob.MaxJobBytes, "the script")
	if err != nil {
		return usageError(env, "templates", "update: %v", err)
	}
	put := o.api
	if !o.descriptionSet { // PUT replaces the whole template: send its description back
		raw, header, code := o.api.do(ctx, env, o.sub, http.MethodGet, "/script-templates/"+url.PathEscape(o.id), nil)
		if code != ExitOK {
			return code
		}
		// Only over the version whose description this is: another
		// author's update in between is not overwritten with it.
		put.ifMatch = header.Get("ETag")
		var current struct {
			Description string `json:"description"`
		}
		if err := json.Unmarshal(raw, &current); err != nil {
			_, _ = fmt.Fprintf(env.Stderr, "flowscript templates update: the API's answer is not a template: %v\n", err)
			return ExitFailed
		}
		o.description = current.Description
	}
	body := map[string]string{"name": o.name, "description": o.description, "source": string(source)}
	raw, code := put.call(ctx, env, o.sub, http.MethodPut, "/script-templates/"+url.PathEscape(o.id), body)
	if code != ExitOK {
		return code
	}
	return printJSONLine(env, raw)
}

func templatesVersions(ctx context.Context, env Env, o templatesOptions) int {
	path := "/script-templates/" + url.PathEscape(o.id) + "/versions"
	if o.version > 0 {
		raw, code := o.api.call(ctx, env, o.sub, http.MethodGet, path+"/"+strconv.Itoa(o.version), nil)
		if code != ExitOK {
			return code
		}
		return printJSONLine(env, raw)
	}
	raw, code := o.api.walk(ctx, env, o.sub, path, url.Values{"limit": {strconv.Itoa(maxPageSize)}})
	if code != ExitOK {
		return code
	}
	return printJSONLine(env, raw)
}

func templatesGet(ctx context.Context, env Env, o templatesOptions) int {
	raw, code := o.api.call(ctx, env, o.sub, http.MethodGet, "/script-templates/"+url.PathEscape(o.id), nil)
	if code != ExitOK {
		return code
	}
	return printJSONLine(env, raw)
}

func templatesDelete(ctx context.Context, env Env, o templatesOptions) int {
	_, code := o.api.call(ctx, env, o.sub, http.MethodDelete, "/script-templates/"+url.PathEscape(o.id), nil)
	if code != ExitOK {
		return code
	}
	line, _ := flowjob.Marshal(map[string]any{"id": o.id, "deleted": true}) // cannot fail
	return printJSONLine(env, line)
}

func templatesCreate(ctx context.Context, env Env, o templatesOptions) int {
	source, err := readAll(env, o.source, flowjob.MaxJobBytes, "the script")
	if err != nil {
		return usageError(env, "templates", "create: %v", err)
	}
	body := map[string]string{"name": o.name, "description": o.description, "source": string(source)}
	raw, code := o.api.call(ctx, env, o.sub, http.MethodPost, "/script-templates", body)
	if code != ExitOK {
		return code
	}
	return printJSONLine(env, raw)
}

func templatesTest(ctx context.Context, env Env, o templatesOptions) int {
	source, err := readAll(env, o.source, flowjob.MaxJobBytes, "the script")
	if err != nil {
		return usageError(env, "templates", "test: %v", err)
	}
	inputs := o.inputs
	if inputs == nil {
		inputs = []flowjob.InputVariable{}
	}
	body := map[string]any{"source": string(source), "inputVariables": inputs}
	raw, code := o.api.call(ctx, env, o.sub, http.MethodPost, "/scripts/test", body)
	if code != ExitOK {
		return code
	}
	if code := printJSONLine(env, raw); code != ExitOK {
		return code
	}
	var res struct {
		OK bool `json:"ok"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || !res.OK {
		return ExitFailed
	}
	return ExitOK
}

// apiClient calls the templates API.
type apiClient struct {
	base   string
	apiKey string
	token  string
	// ifMatch, when set, is sent as If-Match: the write happens only while
	// the template is as it was read.
	ifMatch string
}

// call sends one request and returns the answer's body, or prints what
// went wrong and returns ExitFailed. An API error is printed as the API's
// JSON error, on stderr.
func (c apiClient) call(ctx context.Context, env Env, sub, method, path string, body any) ([]byte, int) {
	raw, _, code := c.do(ctx, env, sub, method, path, body)
	return raw, code
}

// walk reads every page of a list from path with query q, following
// X-Next-Cursor, and returns the items as one JSON array.
func (c apiClient) walk(ctx context.Context, env Env, sub, path string, q url.Values) ([]byte, int) {
	all := []json.RawMessage{}
	for pages := 0; ; pages++ {
		raw, header, code := c.do(ctx, env, sub, http.MethodGet, path+"?"+q.Encode(), nil)
		if code != ExitOK {
			return nil, code
		}
		var page []json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			_, _ = fmt.Fprintf(env.Stderr, "flowscript templates %s: the API's answer is not a list: %v\n", sub, err)
			return nil, ExitFailed
		}
		all = append(all, page...)
		next := header.Get("X-Next-Cursor")
		if next == "" {
			break
		}
		if next == q.Get("cursor") || len(page) == 0 {
			_, _ = fmt.Fprintf(env.Stderr, "flowscript templates %s: the API gave the same page again: is --url the templates API's base, such as %s?\n", sub, defaultAPIURL)
			return nil, ExitFailed
		}
		q.Set("cursor", next)
	}
	out, err := flowjob.Marshal(all)
	if err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript templates %s: encoding the list: %v\n", sub, err)
		return nil, ExitFailed
	}
	return out, ExitOK
}

// do is call that also returns the answer's header.
func (c apiClient) do(ctx context.Context, env Env, sub, method, path string, body any) ([]byte, http.Header, int) {
	fail := func(format string, args ...any) ([]byte, http.Header, int) {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript templates %s: %s\n", sub, fmt.Sprintf(format, args...))
		return nil, nil, ExitFailed
	}
	target := c.base + path
	resp, raw, err := c.roundTrip(ctx, method, target, body, 64<<20)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fail("%s %s: no answer within --timeout: is the templates API up?", method, target)
	case err != nil:
		return fail("%v", err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if len(raw) > 0 && !json.Valid(raw) {
			return fail("%s %s answered %s with a body that is not JSON: is --url the templates API's base, such as %s?", method, target, resp.Status, defaultAPIURL)
		}
		return raw, resp.Header, ExitOK
	}
	var apiErr struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &apiErr) != nil || apiErr.Error == nil {
		return fail("%s %s answered %s, not with the API's JSON error: is --url the templates API's base, such as %s?", method, target, resp.Status, defaultAPIURL)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "flowscript templates %s: the API answered %s\n", sub, resp.Status)
	b.Write(bytes.TrimSpace(raw))
	b.WriteByte('\n')
	if resp.StatusCode == http.StatusPreconditionFailed && c.ifMatch != "" {
		b.WriteString("The template changed after this command read it (another update came in between); nothing was written. Look at it with get, then run the update again.\n")
	}
	if resp.StatusCode == http.StatusUnauthorized && c.apiKey == "" && c.token == "" {
		b.WriteString("No credential was sent: set FLOWSCRIPT_API_KEY (or --api-key) or FLOWSCRIPT_TOKEN (or --token).\n")
	}
	_, _ = fmt.Fprint(env.Stderr, b.String())
	return nil, nil, ExitFailed
}

// roundTrip sends one request to target (a URL of the API) with the
// client's credential, body as JSON when not nil, and reads at most limit
// bytes of the answer. Redirects are not followed: the credential goes to
// the API only.
func (c apiClient) roundTrip(ctx context.Context, method, target string, body any, limit int64) (apiAnswer, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := flowjob.Marshal(body)
		if err != nil {
			return apiAnswer{}, nil, fmt.Errorf("encoding the request: %w", err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return apiAnswer{}, nil, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if c.ifMatch != "" {
		req.Header.Set("If-Match", c.ifMatch)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case c.apiKey != "":
		req.Header.Set("X-API-Key", c.apiKey)
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return apiAnswer{}, nil, err
		}
		return apiAnswer{}, nil, fmt.Errorf("%s %s: %w: is the templates API running there? Set --url or FLOWSCRIPT_API_URL", method, target, unwrapURLError(err))
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return apiAnswer{}, nil, fmt.Errorf("%s %s: reading the answer: %w", method, target, err)
	}
	return apiAnswer{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header}, raw, nil
}

// apiAnswer is what callers read of an answer besides its body.
type apiAnswer struct {
	StatusCode int
	Status     string
	Header     http.Header
}

// unwrapURLError drops the "Get URL:" wrapper the message already says.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// printJSONLine prints raw as one line of JSON.
func printJSONLine(env Env, raw []byte) int {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript templates: the API's answer is not JSON: %v\n", err)
		return ExitFailed
	}
	buf.WriteByte('\n')
	_, _ = env.Stdout.Write(buf.Bytes())
	return ExitOK
}

// oneLine cuts s to n runes on one line, for the table.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
