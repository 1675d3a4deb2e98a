package framework

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

func TestVersionOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a tag and a clean revision", debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}}, "v1.4.0 (commit 0123456789ab)"},
		{"a modified tree", debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) (commit abc+dirty)"},
		{"no version and no revision", debug.BuildInfo{}, "(devel)"},
	} {
		if got := versionOf(&tt.bi); got != tt.want {
			t.Errorf("%s: versionOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTargetVersion(t *testing.T) {
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"a version in GET /healthz", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "nginx")
			if r.URL.Path == "/healthz" {
				_, _ = w.Write([]byte(`{"status":"ok","version":"pixsandbox v1.4.0 (commit abc)"}`))
				return
			}
			http.NotFound(w, r)
		}, "pixsandbox v1.4.0 (commit abc)"},
		{"no health route: the Server header of GET /", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "psp-gateway/2.3")
			http.NotFound(w, r)
		}, "Server: psp-gateway/2.3"},
		{"a health route without a version: its Server header", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "mock/0.1")
			_, _ = w.Write([]byte(`{"status":"ok","version":42}`))
		}, "Server: mock/0.1"},
		{"nothing said", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Server"] = nil
			http.NotFound(w, r)
		}, ""},
	} {
		srv := httptest.NewServer(tt.handler)
		client := apiclient.NewClient(srv.URL, 5*time.Second)
		probe, err := client.Do(context.Background(), http.MethodGet, "/", "", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := targetVersion(context.Background(), client, probe); got != tt.want {
			t.Errorf("%s: targetVersion = %q, want %q", tt.name, got, tt.want)
		}
		srv.Close()
	}
	if orUnknown("") == "" || orUnknown("v1") != "v1" {
		t.Error("orUnknown")
	}
}
