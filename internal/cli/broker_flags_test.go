package cli

import (
	"strings"
	"testing"
)

// --nats takes what NATS_URL takes: one URL or a comma-separated list, and
// names the bad URL without its password.
func TestBrokerFlagsNATSList(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want string // "" for accepted
	}{
		{"nats://a:4222", ""},
		{"nats://a:4222, nats://b:4223,nats://c:4224", ""},
		{"nats://a:4222, nats//b:4223", `--nats must be a URL or a comma-separated list of them, such as nats://127.0.0.1:4222: URL 2 of 2 ("nats//b:4223") has no scheme`},
		{"nats://u:s3cret@a:42x2", `"nats://xxxxx@a:42x2" is not a URL`},
	} {
		b := brokerFlags{url: tc.url, subjectPrefix: "flowscript", resultsStream: "RESULTS"}
		err := b.check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("--nats %q refused: %v", tc.url, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("--nats %q: %v, want an error containing %q", tc.url, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("--nats %q: the error shows the password: %v", tc.url, err)
		}
	}
}
