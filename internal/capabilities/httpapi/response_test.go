package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// A 100 MB response is cut at the cap, and reading it allocates about the
// cap, not the response.
func TestHugeResponseIsCutAtTheCap(t *testing.T) {
	const total = 100 << 20
	chunk := bytes.Repeat([]byte(`{"a":1}`), 4096)
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(total))
		}
		for sent := 0; sent < total; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the client stopped reading
			}
		}
	})
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})
	for _, query := range []map[string]string{nil, {"length": "1"}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Query: query})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Truncated || len(resp.Body) != DefaultMaxResponseBytes || resp.JSON != nil {
			t.Fatalf("truncated=%v body=%d bytes json=%d bytes", resp.Truncated, len(resp.Body), len(resp.JSON))
		}
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("query %v: %d KiB allocated for a %d MiB response cut at %d KiB", query, allocated>>10, total>>20, DefaultMaxResponseBytes>>10)
		if allocated > 16*DefaultMaxResponseBytes { // generous: the stub runs in this process too
			t.Fatalf("%d bytes allocated", allocated)
		}
	}
}

func TestCutKeepsUTF8(t *testing.T) {
	s := newStub(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, strings.Repeat("é", 10)) })
	conn := crm(s.URL)
	conn.MaxResponseBytes = 5
	c := newClient(t, map[string]Connector{"crm": conn})
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	if err != nil || resp.Body != "éé" || !resp.Truncated {
		t.Fatalf("Do = %+v, %v", resp, err)
	}
}

func TestReadCapped(t *testing.T) {
	for _, tc := range []struct {
		size, limit, announced int
		truncated              bool
	}{
		{0, 10, -1, false}, {0, 10, 0, false}, {10, 10, -1, false}, {10, 10, 10, false}, {11, 10, -1, true},
		{11, 10, 11, true}, {100000, 99999, -1, true}, {100000, 100000, -1, false}, {5, 1, 3, true},
	} {
		data := bytes.Repeat([]byte("x"), tc.size)
		got, truncated, err := readCapped(iotest.OneByteReader(bytes.NewReader(data)), int64(tc.limit), int64(tc.announced))
		if err != nil || truncated != tc.truncated || len(got) != min(tc.size, tc.limit) {
			t.Errorf("%+v: %d bytes, truncated %v, %v", tc, len(got), truncated, err)
		}
	}
	if _, _, err := readCapped(iotest.ErrReader(io.ErrUnexpectedEOF), 10, -1); err == nil {
		t.Error("a read error is lost")
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	s := newStub(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte{'a', 0xff, 'b'}) })
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	if err != nil || resp.Body != "a\uFFFDb" {
		t.Fatalf("Do = %+v, %v", resp, err)
	}
}

// A compressed body is decoded by the client and the cap counts decoded
// bytes: a small gzip bomb costs the cap, not its expansion.
func TestGzipBombIsCutAtTheCap(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(make([]byte, 4<<20))
	_ = zw.Close()
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding = %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(zipped.Bytes())
	})
	conn := crm(s.URL)
	conn.MaxResponseBytes = 4096
	c := newClient(t, map[string]Connector{"crm": conn})
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	if err != nil || !resp.Truncated || len(resp.Body) != 4096 {
		t.Fatalf("Do = truncated %v, %d bytes, %v", resp.Truncated, len(resp.Body), err)
	}
}
