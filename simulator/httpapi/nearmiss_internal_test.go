package httpapi

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// nearMissTestIndex is the contract's route table with a control plane's
// kind of rows (literals, variables, a workspace copy, a page).
func nearMissTestIndex() *nearMissIndex {
	routes := (&Server{}).routeTable()
	for _, p := range []string{"/_sandbox/clock", "/_sandbox/accounts/{id}/token", "/_sandbox/workspaces/{workspace}/accounts/{id}/settings"} {
		routes = append(routes, &Route{Method: http.MethodPost, Path: p}, &Route{Method: http.MethodGet, Path: p})
	}
	return newNearMissIndex(routes, []Page{{Path: "/_sandbox/console/{asset}"}})
}

// nearMissWorkBound is the most work a search may do on the index: every
// route aligned with the longest path compared, every segment compared with
// every literal once.
func nearMissWorkBound(x *nearMissIndex) int {
	longest := 0
	for _, rt := range x.routes {
		longest = max(longest, len(rt.segs))
	}
	return len(x.routes)*(nearMissSegments+1)*(longest+1) + nearMissSegments*len(x.literals)
}

// TestNearMiss_ArbitraryPaths: whatever the path and method, the search
// does not panic, does at most nearMissWorkBound's work (none beyond the
// path bounds), names at most nearMissShown routes (all of them only when
// the path fits), each one a route of the index with a difference, and
// quotes at most nearMissTextLimit bytes of a segment.
func TestNearMiss_ArbitraryPaths(t *testing.T) {
	x := nearMissTestIndex()
	bound := nearMissWorkBound(x)
	long := strings.Repeat("a", nearMissPathLimit)
	table := []struct {
		method, path string
		none         bool // beyond the bounds (or not a path): no work, no near miss
	}{
		{"GET", "", true}, {"GET", "*", true}, {"GET", "api/med", true},
		{"GET", "/" + long, true}, {"GET", strings.Repeat("/api", nearMissSegments+1), true},
		{"GET", "/" + long[:nearMissPathLimit-1], false},
		{"GET", strings.Repeat("/", nearMissSegments), false},
		{"GET", strings.Repeat("/api/pix", nearMissSegments/2), false},
		{"GET", "/api/" + strings.Repeat("é", 200), false},
		{"POST", "/api/pix/" + strings.Repeat("cash-out", 6), false},
		{"GET", "/api/med/\x00\x1b[31m/\xff\xfe", false},
		{"GET", "/api/pix/cash-out\u200b", false},
		{"POST", "/", false}, {"GET", "/", false}, {"", "/api/med", false}, {"get", "/api/med", false},
		{"M\x00\xff" + strings.Repeat("X", 300), "/api/medd", false},
		{"GET", "/_sandbox/workspaces/w/accounts/1/setting", false},
		{"GET", "/{txid}/{id}", false}, {"GET", "/cob/{txid}", false}, {"GET", "/%2e%2e/cob", false},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"api", "pix", "cash-out", "cashout", "", "cob", "_sandbox", "public", "x", "é", "\x00", "%", "{id}", "accounts", "balances", "devolucao", "med", "..", "."}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(nearMissSegments + 3) {
			b.WriteString("/" + alphabet[rng.IntN(len(alphabet))])
		}
		method := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "BREW"}[rng.IntN(7)]
		table = append(table, struct {
			method, path string
			none         bool
		}{method, b.String(), b.Len() == 0 || strings.Count(b.String(), "/") > nearMissSegments})
	}
	for _, c := range table {
		misses, work := x.search(c.method, c.path)
		if c.none && (misses != nil || work != 0) {
			t.Errorf("%q %q: beyond the bounds, yet %d near misses and %d work", c.method, cut(c.path), len(misses), work)
		}
		if work > bound {
			t.Errorf("%q %q: work %d, over the bound %d", c.method, cut(c.path), work, bound)
		}
		fits := len(misses) > 0 && misses[0].fits
		if len(misses) > nearMissShown && !fits {
			t.Errorf("%q %q: %d near misses", c.method, cut(c.path), len(misses))
		}
		for _, m := range misses {
			if m.fits != fits || len(m.Differences) == 0 || !x.has(m.Method, m.Route) {
				t.Errorf("%q %q: near miss %+v", c.method, cut(c.path), m)
			}
			for _, d := range m.Differences {
				if !utf8.ValidString(d) || strings.ContainsAny(d, "\x00\x1b") || len(d) > 4*nearMissTextLimit+len(c.method)+64 {
					t.Errorf("%q %q: difference %q", c.method, cut(c.path), d)
				}
			}
		}
	}
}

// TestNearMiss_Bounds: a path beyond the bounds is not compared; the index
// holds every route of the table (nearMissRoutes is above its size) and no
// more than nearMissRoutes.
func TestNearMiss_Bounds(t *testing.T) {
	x := nearMissTestIndex()
	if len(x.routes) != len((&Server{}).routeTable())+6+1+2 {
		t.Errorf("the index holds %d routes", len(x.routes))
	}
	many := make([]*Route, 2*nearMissRoutes)
	for i := range many {
		many[i] = &Route{Method: http.MethodGet, Path: "/r/" + strings.Repeat("x", i%50)}
	}
	if n := len(newNearMissIndex(many, nil).routes); n != nearMissRoutes {
		t.Errorf("an index of %d routes holds %d, want %d", len(many), n, nearMissRoutes)
	}
	// The costliest path: as many segments as any route is still aligned
	// with, each a typo away from a literal.
	longest := 0
	for _, rt := range x.routes {
		longest = max(longest, len(rt.segs))
	}
	path := strings.Repeat("/accounts", longest+nearMissMaxCost)
	if _, work := x.search("GET", path); work == 0 || work > nearMissWorkBound(x) {
		t.Errorf("the costliest path: work %d, bound %d", work, nearMissWorkBound(x))
	}
}

// TestNearMiss_Ranking: the cheapest near misses only, the request's method
// first, at most nearMissShown; a path that fits names every method it fits.
func TestNearMiss_Ranking(t *testing.T) {
	x := nearMissTestIndex()
	for _, c := range []struct {
		method, path string
		want         []string
	}{
		{"POST", "/api/pix/cashout", []string{"POST /api/pix/cash-out"}},
		{"GET", "/api/webhook", []string{"GET /api/webhooks"}},
		{"PUT", "/api/webhook", []string{"POST /api/webhooks", "GET /api/webhooks"}},
		{"DELETE", "/cob/x", []string{"PUT /cob/{txid}", "GET /cob/{txid}", "PATCH /cob/{txid}"}},
		{"DELETE", "/_sandbox/clock", []string{"POST /_sandbox/clock", "GET /_sandbox/clock"}},
		{"GET", "/cobs/x", []string{"GET /cob/{txid}"}},
		{"GET", "/api/pix/cash", nil},
		{"GET", "/foo", nil},
		{"GET", "/api", nil},
		{"GET", "/_sandbox/console/nope.js", nil},
	} {
		var got []string
		for _, m := range x.find(c.method, c.path) {
			got = append(got, m.Method+" "+m.Route)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, got, c.want)
		}
	}
}

func (x *nearMissIndex) has(method, path string) bool {
	for _, rt := range x.routes {
		if rt.method == method && rt.path == path {
			return true
		}
	}
	return false
}

func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// BenchmarkNearMiss: the search on the contract's table for a near and a far
// path.
func BenchmarkNearMiss(b *testing.B) {
	x := nearMissTestIndex()
	for _, p := range []string{"/api/pix/cashout", strings.Repeat("/abcdefgh", nearMissSegments)} {
		b.Run(p[:min(len(p), 20)], func(b *testing.B) {
			for b.Loop() {
				x.find(http.MethodPost, p)
			}
		})
	}
}
