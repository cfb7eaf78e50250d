package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// slashSecret has the characters that escape differently from service to
// service: PHP's json_encode writes '/' as "\/", .NET percent-encodes in
// lower case, some encode only some characters.
const slashSecret = "AbC/dEf+GhI="

// echoForms are ways a service may echo the secret it received.
var echoForms = map[string]func(string) string{
	"plain":        func(s string) string { return s },
	"json-slash":   func(s string) string { return strings.ReplaceAll(s, "/", `\/`) },
	"json-u-lower": func(s string) string { return uEscape(s, "%04x", func(int) bool { return true }) },
	"json-u-upper": func(s string) string { return uEscape(s, "%04X", func(int) bool { return true }) },
	"json-mixed": func(s string) string {
		return strings.ReplaceAll(uEscape(s, "%04x", func(i int) bool { return i%3 == 1 }), "/", `\/`)
	},
	"pct-lower":   func(s string) string { return lowerHex.ReplaceAllStringFunc(url.QueryEscape(s), strings.ToLower) },
	"pct-upper":   url.QueryEscape,
	"pct-partial": strings.NewReplacer("+", "%2B", "=", "%3D").Replace,
	"pct-partial2": func(s string) string {
		return strings.NewReplacer("/", "%2F", "=", "%3D").Replace(s)
	},
	"pct-every-byte": func(s string) string {
		var b strings.Builder
		for i := range len(s) {
			f := "%%%02X"
			if i%2 == 0 {
				f = "%%%02x"
			}
			fmt.Fprintf(&b, f, s[i])
		}
		return b.String()
	},
	// percent-encoded inside a JSON string whose '%' are \u escapes.
	"json-of-pct": func(s string) string {
		return strings.ReplaceAll(url.QueryEscape(s), "%", `\u0025`)
	},
	// a JSON-escaped secret, percent-encoded (in a URL of a text body).
	"pct-of-json": func(s string) string {
		return strings.NewReplacer(`\`, "%5c", "/", "%2F").Replace(strings.ReplaceAll(s, "/", `\/`))
	},
}

// lowerHex finds the escapes whose hex digits .NET writes in lower case.
var lowerHex = regexp.MustCompile(`%[0-9A-F]{2}`)

// uEscape writes the characters i of s for which which(i) as \u escapes
// with hex format f.
func uEscape(s, f string, which func(int) bool) string {
	var b strings.Builder
	for i, c := range s {
		if which(i) {
			fmt.Fprintf(&b, `\u`+f, c)
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// echoServer answers the Authorization header it received, without its
// "Bearer ", in the form ?form= names, into ?body= (SECRET is replaced).
func echoServer(t *testing.T) *stub {
	return newStub(t, func(w http.ResponseWriter, r *http.Request) {
		form, ok := echoForms[r.URL.Query().Get("form")]
		if !ok {
			t.Errorf("unknown form %q", r.URL.Query().Get("form"))
			return
		}
		echo := form(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		for _, h := range strings.Split(r.URL.Query().Get("headers"), ",") {
			if h = strings.ReplaceAll(h, "SECRET", echo); validToken(h) { // a form with '/' or '\' is no header name
				w.Header().Set(h, strings.ReplaceAll(r.URL.Query().Get("value"), "SECRET", echo))
			}
		}
		_, _ = io.WriteString(w, r.URL.Query().Get("pad")+strings.ReplaceAll(r.URL.Query().Get("body"), "SECRET", echo))
	})
}

// slashClient calls base with slashSecret as a bearer token.
func slashClient(t *testing.T, base string, maxBytes int64) *Client {
	t.Helper()
	conn := crm(base)
	conn.Headers = map[string]Secret{"Authorization": {Env: "SLASH_TOKEN", Prefix: "Bearer "}}
	conn.MaxResponseBytes = maxBytes
	c, err := New(map[string]Connector{"crm": conn}, func(name string) string {
		if name == "SLASH_TOKEN" {
			return slashSecret
		}
		return ""
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func echo(t *testing.T, c *Client, query map[string]string) Response {
	t.Helper()
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Query: query})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// A service echoes the credential in a JSON body, escaped its own way: the
// body and json hold "[REDACTED]" where it was, and nothing else changes.
func TestEscapedEchoInJSONIsRedacted(t *testing.T) {
	c := slashClient(t, echoServer(t).URL, 0)
	for form := range echoForms {
		for _, tc := range []struct{ body, want string }{
			{`{"auth":"Bearer SECRET","n":1}`, `{"auth":"Bearer [REDACTED]","n":1}`},
			{`{"SECRET":{"Bearer SECRET":["x","SECRET"]}}`, `{"[REDACTED]":{"Bearer [REDACTED]":["x","[REDACTED]"]}}`},
		} {
			resp := echo(t, c, map[string]string{"form": form, "body": tc.body})
			if resp.Body != tc.want || string(resp.JSON) != tc.want {
				t.Errorf("%s: body %s, json %s; want %s", form, resp.Body, resp.JSON, tc.want)
			}
			assertNoSecret(t, form, resp, slashSecret)
		}
	}
}

// The same forms in a text body (a URL with the credential in its query)
// and in response headers, names included (which arrive in another case).
func TestEscapedEchoInTextAndHeadersIsRedacted(t *testing.T) {
	c := slashClient(t, echoServer(t).URL, 0)
	for form := range echoForms {
		resp := echo(t, c, map[string]string{"form": form, "body": "next=https://x.example/?t=SECRET&a=1\n",
			"headers": "X-Echo,X-Leak-SECRET", "value": "Bearer SECRET"})
		if want := "next=https://x.example/?t=[REDACTED]&a=1\n"; resp.Body != want || resp.JSON != nil {
			t.Errorf("%s: body %q, json %s; want %q", form, resp.Body, resp.JSON, want)
		}
		if got := resp.Headers["x-echo"]; got != "Bearer [REDACTED]" {
			t.Errorf("%s: x-echo = %q", form, got)
		}
		if name := "x-leak-" + echoForms[form](slashSecret); validToken(name) { // a form with '/' or '=' is no header name
			if got, ok := resp.Headers["x-leak-[REDACTED]"]; !ok || got != "Bearer [REDACTED]" {
				t.Errorf("%s: headers %q", form, resp.Headers)
			}
		}
		assertNoSecret(t, form, resp, slashSecret)
	}
}

// A script that moves the cut over an escaped echo (padding the response
// until the cap falls inside it) reads no piece of it: the body ends
// before the echo, whatever escape the cut falls in.
func TestCutBodyHidesAPieceOfAnEscapedSecret(t *testing.T) {
	const limit = 200
	c := slashClient(t, echoServer(t).URL, limit)
	for form, encode := range echoForms {
		for _, tmpl := range []string{"Bearer SECRET\n", `"Bearer SECRET"}`} {
			head, _, _ := strings.Cut(tmpl, "SECRET")
			enc := encode(slashSecret)
			for k := 1; k < len(enc); k++ { // the cut falls after k bytes of the echo
				pad := strings.Repeat("x", limit-len(head)-k)
				resp := echo(t, c, map[string]string{"form": form, "body": tmpl, "pad": pad})
				if !resp.Truncated || resp.Body != pad+head {
					t.Fatalf("%s, cut after %q: body ends %q", form, enc[:k], resp.Body[len(pad):])
				}
			}
		}
	}
}

// assertNoSecret fails when secret is anywhere in what the script gets, as
// it is or decoded: every string and key of json, the body and each header
// name (in either case) and value, JSON-unescaped and percent-decoded.
func assertNoSecret(t *testing.T, what string, resp Response, secret string) {
	t.Helper()
	check := func(where, s string, fold bool) {
		t.Helper()
		for _, d := range decodings(s) {
			if strings.Contains(d, secret) || fold && strings.Contains(strings.ToLower(d), strings.ToLower(secret)) {
				t.Errorf("%s: %s holds the secret: %q decodes to %q", what, where, s, d)
			}
		}
	}
	if resp.JSON != nil {
		var v any
		if err := json.Unmarshal(resp.JSON, &v); err != nil {
			t.Fatalf("%s: json %s: %v", what, resp.JSON, err)
		}
		walkStrings(v, func(s string) { check("json", s, false) })
	}
	check("body", resp.Body, false)
	for name, value := range resp.Headers {
		check("a header name", name, true)
		check("header "+name, value, false)
	}
}

// decodings are s, percent-decoded, JSON-unescaped and both, in either
// order (a decoding that does not apply leaves s as it is).
func decodings(s string) []string {
	out := []string{s}
	for _, d := range []string{pctDecode(s), jsonUnescape(s)} {
		out = append(out, d, pctDecode(d), jsonUnescape(d))
	}
	return out
}

// pctDecode decodes each valid %XX (either case) and keeps the rest.
func pctDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if v, ok := unhex2(s[i+1:]); ok {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// jsonUnescape reads s as the inside of a JSON string, the way
// encoding/json does; s when it is not one.
func jsonUnescape(s string) string {
	var out string
	if json.Unmarshal([]byte(`"`+s+`"`), &out) != nil {
		return s
	}
	return out
}

func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case map[string]any:
		for k, e := range v {
			f(k)
			walkStrings(e, f)
		}
	}
}

// randomEncoding writes each character of s in one of the forms a service
// may use (chosen by rng): as it is, a JSON escape in either case (a
// surrogate pair beyond U+FFFF), %XX of its UTF-8 bytes in either case,
// '+' for a space, or an escape of the other kind's escape. The last is in
// one order for the whole of s (JSON-escaped percent-encoding, or
// percent-encoded JSON escapes): a text that takes three decodings (JSON,
// percent, JSON again) is not in the class redacted.
func randomEncoding(rng *rand.Rand, s string) string {
	hexCase := func(f string) string {
		if rng.IntN(2) == 0 {
			return strings.ToUpper(f)
		}
		return f
	}
	pct := func(c rune) string {
		var b strings.Builder
		for _, x := range []byte(string(c)) {
			b.WriteString(hexCase(fmt.Sprintf("%%%02x", x)))
		}
		return b.String()
	}
	jsonU := func(c rune) string {
		if r1, r2 := utf16.EncodeRune(c); r1 != utf8.RuneError {
			return `\u` + hexCase(fmt.Sprintf("%04x", r1)) + `\u` + hexCase(fmt.Sprintf("%04x", r2))
		}
		return `\u` + hexCase(fmt.Sprintf("%04x", c))
	}
	jsonFirst := rng.IntN(2) == 0
	var b strings.Builder
	for _, c := range s {
		choice := rng.IntN(7)
		if choice == 4 && !jsonFirst {
			choice = 5
		} else if choice == 5 && jsonFirst {
			choice = 4
		}
		switch choice {
		case 0, 1:
			b.WriteRune(c)
		case 2:
			b.WriteString(jsonU(c))
		case 3:
			b.WriteString(pct(c))
		case 4: // JSON then percent: %XX with its '%' (and maybe a digit) as \u escapes
			b.WriteString(strings.ReplaceAll(pct(c), "%", `\u0025`))
		case 5: // percent then JSON: a \u escape with its '\' as %5C
			b.WriteString(strings.ReplaceAll(jsonU(c), `\`, hexCase("%5c")))
		default:
			switch c {
			case '/':
				b.WriteString(`\/`)
			case ' ':
				b.WriteString("+")
			default:
				b.WriteRune(c)
			}
		}
	}
	return b.String()
}

var redactSecrets = []string{slashSecret, "clé 🔑/x+y=", "aXaXaXb"}

// Every random encoding of a secret is replaced, whole, by one marker, and
// the text around it keeps its bytes, escapes included.
func TestRedactRandomEncodings(t *testing.T) {
	r := newRedactor(redactSecrets, false)
	rng := rand.New(rand.NewPCG(1, 2))
	const pre, post = `{"a":"x\ny%20z \u00e9 `, ` q\"r%2F\u0041%"}`
	for i := range 3000 {
		secret := redactSecrets[i%len(redactSecrets)]
		enc := randomEncoding(rng, secret)
		if got, want := r.redact(pre+enc+post), pre+redacted+post; got != want {
			t.Fatalf("%q: redact(%q) = %q, want %q", secret, enc, got, want)
		}
		if got, want := r.redact(enc+enc), redacted+redacted; got != want {
			t.Fatalf("%q: redact(%q) = %q, want %q", secret, enc+enc, got, want)
		}
	}
}

// A cut anywhere inside any encoding of a secret loses the whole piece of
// the encoding, and nothing in front of it.
func TestTrimPartialRandomEncodings(t *testing.T) {
	r := newRedactor(redactSecrets, false)
	rng := rand.New(rand.NewPCG(3, 4))
	const pre = `{"a":"x\ny%20z \u00e9 `
	for i := range 600 {
		secret := redactSecrets[i%len(redactSecrets)]
		enc := randomEncoding(rng, secret)
		for k := 1; k < len(enc); k++ {
			if got := r.trimPartial(pre + enc[:k]); got != pre {
				t.Fatalf("%q: trimPartial(…%q) = …%q", secret, enc[:k], strings.TrimPrefix(got, pre))
			}
		}
	}
}

func TestRedactEdges(t *testing.T) {
	r := newRedactor([]string{"s3cr3t", ""}, false)
	for in, want := range map[string]string{
		"":                           "",
		"no secret here":             "no secret here",
		"s3cr3ts3cr3t":               redacted + redacted,
		`\u0073\u0033cr3t`:           redacted,
		`%73%33%63%72%33%74 %7`:      redacted + " %7",
		`\u0073 3cr3t \`:             `\u0073 3cr3t \`,
		`\\u0073\u0033cr3t`:          `\\u0073\u0033cr3t`, // "\" then "u0073": not the secret
		`\\\u0073\u0033cr3t`:         `\\` + redacted,
		`\ud83d\ude00s3cr3t\ud83d`:   `\ud83d\ude00` + redacted + `\ud83d`,
		`%2573%33cr3t`:               `%2573%33cr3t`, // encoded twice: one decoding gives "%73" + "3cr3t"
		"S3CR3T":                     "S3CR3T",
		"s3cr3" + "\\" + "u0074 and": redacted + " and",
	} {
		if got := r.redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
	names := newRedactor([]string{"AbC/dEf"}, true)
	if got := names.redact("x-abc%2fdef-y"); got != "x-"+redacted+"-y" {
		t.Errorf("names.redact = %q", got)
	}
	if got := newRedactor(nil, false).trimPartial("abc%"); got != "abc%" {
		t.Errorf("trimPartial without secrets = %q", got)
	}
}

// Many echoes and many escapes in a large body: the result is right and
// the work linear (each form is decoded once, matches mapped in one pass).
func TestRedactLargeBody(t *testing.T) {
	r := newRedactor([]string{slashSecret}, false)
	var in, want strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&in, `{"i":%d,"t":"line\nline\u00e9 50%%","a":"Bearer AbC\/dEf%%2bGhI="},`, i)
		fmt.Fprintf(&want, `{"i":%d,"t":"line\nline\u00e9 50%%","a":"Bearer %s"},`, i, redacted)
	}
	if got := r.redact(in.String()); got != want.String() {
		t.Fatal("a large body is not redacted as expected")
	}
}

// BenchmarkRedact is the redaction of a 1 MiB JSON body: plain (no '\' or
// '%': one search per secret), with escapes but no secret (two forms
// decoded), and with escapes and a secret every 100 bytes.
func BenchmarkRedact(b *testing.B) {
	r := newRedactor([]string{slashSecret, testToken}, false)
	for _, tc := range []struct{ name, item string }{
		{"plain", `{"id":42,"name":"Ana","tags":["a","b"],"note":"hello"},`},
		{"escaped", `{"id":42,"name":"Ana\n","tags":["a\/b"],"u":"x%20y"},`},
		{"echoes", `{"id":42,"a":"Bearer AbC\/dEf%2bGhI=","u":"x%20y"},`},
	} {
		body := strings.Repeat(tc.item, (1<<20)/len(tc.item))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				_ = r.redact(body)
			}
		})
	}
}

// BenchmarkTrimPartial is the check at the end of a cut 1 MiB body.
func BenchmarkTrimPartial(b *testing.B) {
	r := newRedactor([]string{slashSecret, testToken}, false)
	body := strings.Repeat(`{"id":42,"name":"Ana\n","u":"x%20y"},`, (1<<20)/37) + `"Bearer AbC\/dE`
	b.ReportAllocs()
	for b.Loop() {
		_ = r.trimPartial(body)
	}
}
