package webhook

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

const vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

var t0 = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)

func validTarget() Target {
	return Target{
		AccountID: 7,
		URL:       "https://hooks.example.com/pix",
		EventType: EventCashOut,
		Headers:   []Header{{Key: "X-Api-Key", Value: "k1"}},
	}
}

// violations returns the fields of err's violations, failing unless err is a
// KindInvalid *pix.Error with code INVALID_REQUEST.
func violations(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var pe *pix.Error
	if !errors.As(err, &pe) || pe.Kind != pix.KindInvalid || pe.Code != pix.CodeInvalidRequest {
		t.Fatalf("error %#v is not a KindInvalid INVALID_REQUEST *pix.Error", err)
	}
	var fields []string
	for _, v := range pe.Violations {
		if v.Message == "" {
			t.Errorf("violation of %s has no message", v.Field)
		}
		fields = append(fields, v.Field)
	}
	return fields
}

func TestValidateTarget(t *testing.T) {
	six := make([]Header, 6)
	for i := range six {
		six[i] = Header{Key: fmt.Sprintf("X-H%d", i), Value: "v"}
	}
	tests := []struct {
		name         string
		edit         func(*Target)
		requireHTTPS bool
		want         []string
	}{
		{name: "valid https", requireHTTPS: true},
		{name: "valid http without requireHTTPS", edit: func(t *Target) { t.URL = "http://127.0.0.1:8081/hook" }},
		{name: "http with requireHTTPS", edit: func(t *Target) { t.URL = "http://hooks.example.com/pix" }, requireHTTPS: true, want: []string{"url"}},
		{name: "upper-case scheme", edit: func(t *Target) { t.URL = "HTTPS://hooks.example.com/pix" }, requireHTTPS: true},
		{name: "empty url", edit: func(t *Target) { t.URL = "" }, want: []string{"url"}},
		{name: "relative url", edit: func(t *Target) { t.URL = "/hooks" }, want: []string{"url"}},
		{name: "ftp url", edit: func(t *Target) { t.URL = "ftp://example.com/x" }, want: []string{"url"}},
		{name: "no host", edit: func(t *Target) { t.URL = "https:///path" }, want: []string{"url"}},
		{name: "port without host", edit: func(t *Target) { t.URL = "https://:443/path" }, want: []string{"url"}},
		{name: "opaque", edit: func(t *Target) { t.URL = "https:example.com" }, want: []string{"url"}},
		{name: "unparsable", edit: func(t *Target) { t.URL = "https://exa mple.com:x/" }, want: []string{"url"}},
		{name: "empty event type", edit: func(t *Target) { t.EventType = "" }, want: []string{"eventType"}},
		{name: "unknown event type", edit: func(t *Target) { t.EventType = "CASH_OUT" }, want: []string{"eventType"}},
		{name: "five headers", edit: func(t *Target) { t.Headers = six[:5] }},
		{name: "no headers", edit: func(t *Target) { t.Headers = nil }},
		{name: "six headers", edit: func(t *Target) { t.Headers = six }, want: []string{"headers"}},
		{name: "empty header name", edit: func(t *Target) { t.Headers = []Header{{Key: "X-A", Value: "1"}, {Key: "", Value: "v"}} }, want: []string{"headers[1].key"}},
		{name: "header name with space", edit: func(t *Target) { t.Headers = []Header{{Key: "X A", Value: "v"}} }, want: []string{"headers[0].key"}},
		{name: "header name with colon", edit: func(t *Target) { t.Headers = []Header{{Key: "X-A:", Value: "v"}} }, want: []string{"headers[0].key"}},
		{name: "CR LF in header name", edit: func(t *Target) { t.Headers = []Header{{Key: "X-A\r\nX-B", Value: "v"}} }, want: []string{"headers[0].key"}},
		{name: "LF in header value", edit: func(t *Target) { t.Headers = []Header{{Key: "X-A", Value: "v\nX-B: w"}} }, want: []string{"headers[0].value"}},
		{name: "CR in header value", edit: func(t *Target) { t.Headers = []Header{{Key: "X-A", Value: "v\r"}} }, want: []string{"headers[0].value"}},
		{name: "NUL in header value", edit: func(t *Target) { t.Headers = []Header{{Key: "X-A", Value: "v\x00"}} }, want: []string{"headers[0].value"}},
		{name: "tab and empty header values", edit: func(t *Target) { t.Headers = []Header{{Key: "X-A", Value: "a\tb"}, {Key: "X-B", Value: ""}} }},
		{name: "valid secret", edit: func(t *Target) { t.Secret = vectorSecret }},
		{name: "generated secret", edit: func(t *Target) { t.Secret = NewSecret() }},
		{name: "secret without prefix", edit: func(t *Target) { t.Secret = strings.TrimPrefix(vectorSecret, "whsec_") }, want: []string{"secret"}},
		{name: "secret not base64", edit: func(t *Target) { t.Secret = "whsec_not*base64!" }, want: []string{"secret"}},
		{name: "secret too short", edit: func(t *Target) { t.Secret = "whsec_c2hvcnQ=" }, want: []string{"secret"}},
		{name: "secret too long", edit: func(t *Target) { t.Secret = "whsec_" + strings.Repeat("AAAA", 22) }, want: []string{"secret"}},
		{name: "every problem at once", edit: func(t *Target) {
			t.URL = "http://x.example"
			t.EventType = "nope"
			t.Headers = append(slices.Clone(six), Header{Key: "Host", Value: "x"})
			t.Secret = "whsec_"
		}, requireHTTPS: true, want: []string{"url", "eventType", "headers", "headers[6].key", "secret"}},
	}
	for _, b := range BlockedHeaders {
		for _, name := range []string{b, strings.ToUpper(b), strings.ToUpper(b[:1]) + b[1:]} {
			tests = append(tests, struct {
				name         string
				edit         func(*Target)
				requireHTTPS bool
				want         []string
			}{
				name: "blocked " + name,
				edit: func(t *Target) { t.Headers = []Header{{Key: "X-Ok", Value: "1"}, {Key: name, Value: "v"}} },
				want: []string{"headers[1].key"},
			})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := validTarget()
			if tt.edit != nil {
				tt.edit(&tg)
			}
			got := violations(t, ValidateTarget(tg, tt.requireHTTPS))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("violations = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateURL(t *testing.T) {
	if err := ValidateURL("https://a.example/x", true); err != nil {
		t.Fatalf("https: %v", err)
	}
	if err := ValidateURL("http://127.0.0.1:9/x", false); err != nil {
		t.Fatalf("http, requireHTTPS false: %v", err)
	}
	if got := violations(t, ValidateURL("http://a.example/x", true)); !slices.Equal(got, []string{"url"}) {
		t.Fatalf("http, requireHTTPS true: violations %q", got)
	}
}

func TestEventTypes(t *testing.T) {
	want := []string{"cash_in", "cash_out", "refund_in", "refund_out", "med_created", "med_accepted", "med_rejected"}
	if !slices.Equal(EventTypes, want) {
		t.Fatalf("EventTypes = %q, want %q", EventTypes, want)
	}
	for _, et := range EventTypes {
		tg := validTarget()
		tg.EventType = et
		if err := ValidateTarget(tg, true); err != nil {
			t.Errorf("%s: %v", et, err)
		}
	}
}

func target(id int64, url, eventType string, active bool, created time.Time) Target {
	return Target{ID: id, AccountID: 7, URL: url, EventType: eventType, Active: active, CreatedAt: created, UpdatedAt: created}
}

func TestRegister(t *testing.T) {
	now := t0.Add(time.Hour)
	reg := func(url, eventType string) Target {
		tg := validTarget()
		tg.URL, tg.EventType = url, eventType
		return tg
	}

	t.Run("adds up to three, rejects the fourth", func(t *testing.T) {
		var existing []Target
		for i := 1; i <= MaxActivePerType; i++ {
			got, isNew, err := Register(existing, reg(fmt.Sprintf("https://h%d.example/", i), EventCashOut), now)
			if err != nil || !isNew {
				t.Fatalf("registration %d: isNew=%v err=%v", i, isNew, err)
			}
			if !got.Active || got.ID != 0 || !got.CreatedAt.Equal(now) || !got.UpdatedAt.Equal(now) || got.AccountID != 7 {
				t.Fatalf("registration %d = %+v", i, got)
			}
			got.ID = int64(i)
			existing = append(existing, got)
		}
		_, _, err := Register(existing, reg("https://h4.example/", EventCashOut), now)
		if got := violations(t, err); !slices.Equal(got, []string{"url"}) {
			t.Fatalf("fourth: violations %q (err %v)", got, err)
		}
		if !strings.Contains(err.Error(), "at most 3 active URLs per event type") {
			t.Errorf("fourth: message %q", err.Error())
		}
		// Another event type and another account have their own limits.
		if _, isNew, err := Register(existing, reg("https://h4.example/", EventCashIn), now); err != nil || !isNew {
			t.Fatalf("other type: isNew=%v err=%v", isNew, err)
		}
		other := reg("https://h4.example/", EventCashOut)
		other.AccountID = 8
		if _, isNew, err := Register(existing, other, now); err != nil || !isNew {
			t.Fatalf("other account: isNew=%v err=%v", isNew, err)
		}
	})

	t.Run("re-registering a URL updates it and leaves the others", func(t *testing.T) {
		existing := []Target{
			target(1, "https://a.example/", EventCashOut, true, t0),
			target(2, "https://b.example/", EventCashOut, true, t0.Add(time.Second)),
			target(3, "https://c.example/", EventCashOut, true, t0.Add(2*time.Second)),
		}
		existing[1].Headers = []Header{{Key: "X-Old", Value: "1"}}
		before := slices.Clone(existing)
		in := reg("https://b.example/", EventCashOut)
		in.Headers = []Header{{Key: "X-New", Value: "2"}}
		in.Secret = vectorSecret
		got, isNew, err := Register(existing, in, now)
		if err != nil || isNew {
			t.Fatalf("isNew=%v err=%v", isNew, err)
		}
		if got.ID != 2 || !got.CreatedAt.Equal(existing[1].CreatedAt) || !got.UpdatedAt.Equal(now) || !got.Active ||
			got.Secret != vectorSecret || !slices.Equal(got.Headers, in.Headers) {
			t.Fatalf("updated target = %+v", got)
		}
		for i := range existing {
			if existing[i].ID != before[i].ID || existing[i].URL != before[i].URL || !slices.Equal(existing[i].Headers, before[i].Headers) ||
				existing[i].Secret != before[i].Secret || !existing[i].UpdatedAt.Equal(before[i].UpdatedAt) {
				t.Fatalf("existing[%d] changed: %+v", i, existing[i])
			}
		}
		in.Headers[0].Value = "mutated"
		if got.Headers[0].Value != "2" {
			t.Fatal("the result shares the input's header array")
		}
	})

	t.Run("re-registering without a secret keeps the one set", func(t *testing.T) {
		existing := []Target{target(1, "https://a.example/", EventCashOut, true, t0)}
		existing[0].Secret = vectorSecret
		got, _, err := Register(existing, reg("https://a.example/", EventCashOut), now)
		if err != nil || got.Secret != vectorSecret {
			t.Fatalf("secret %q err %v", got.Secret, err)
		}
	})

	t.Run("inactive targets do not count", func(t *testing.T) {
		existing := []Target{
			target(1, "https://a.example/", EventCashOut, true, t0),
			target(2, "https://b.example/", EventCashOut, false, t0),
			target(3, "https://c.example/", EventCashOut, true, t0),
			target(4, "https://d.example/", EventCashOut, false, t0),
		}
		got, isNew, err := Register(existing, reg("https://e.example/", EventCashOut), now)
		if err != nil || !isNew || !got.Active {
			t.Fatalf("third active: %+v isNew=%v err=%v", got, isNew, err)
		}
		existing = append(existing, got)
		// Reactivating an inactive URL counts against the limit, then is refused.
		if _, _, err := Register(existing, reg("https://b.example/", EventCashOut), now); !slices.Equal(violations(t, err), []string{"url"}) {
			t.Fatalf("reactivation over the limit: %v", err)
		}
	})

	t.Run("reactivates an inactive registration of the URL", func(t *testing.T) {
		existing := []Target{
			target(1, "https://a.example/", EventCashOut, true, t0),
			target(2, "https://b.example/", EventCashOut, false, t0),
		}
		got, isNew, err := Register(existing, reg("https://b.example/", EventCashOut), now)
		if err != nil || isNew || got.ID != 2 || !got.Active {
			t.Fatalf("got %+v isNew=%v err=%v", got, isNew, err)
		}
	})
}

func TestActiveFor(t *testing.T) {
	targets := []Target{
		target(5, "https://e.example/", EventCashOut, true, t0.Add(4*time.Second)),
		target(1, "https://a.example/", EventCashOut, true, t0.Add(2*time.Second)),
		target(9, "https://x.example/", EventCashIn, true, t0),
		target(2, "https://b.example/", EventCashOut, false, t0),
		target(4, "https://d.example/", EventCashOut, true, t0.Add(time.Second)),
		target(3, "https://c.example/", EventCashOut, true, t0.Add(time.Second)),
	}
	var ids []int64
	for _, tg := range ActiveFor(targets, EventCashOut) {
		ids = append(ids, tg.ID)
	}
	if want := []int64{3, 4, 1}; !slices.Equal(ids, want) {
		t.Fatalf("ActiveFor ids = %v, want %v (oldest first, capped at 3)", ids, want)
	}
	if got := ActiveFor(targets, EventMedCreated); len(got) != 0 {
		t.Fatalf("no targets of the type: %v", got)
	}
}

func FuzzValidateTarget(f *testing.F) {
	f.Add("https://hooks.example.com/pix", "cash_out", "X-Api-Key", "v", "", true, uint8(1))
	f.Add("http://127.0.0.1:1/x", "med_created", "host", "v", vectorSecret, false, uint8(6))
	f.Add("https://[::1]:443/a?b#c", "", "X-A\r\n", "v\n", "whsec_!!", true, uint8(0))
	f.Add("%zz", "cash_in", "", "", "whsec_", false, uint8(3))
	f.Fuzz(func(t *testing.T, rawURL, eventType, key, value, secret string, requireHTTPS bool, n uint8) {
		tg := Target{URL: rawURL, EventType: eventType, Secret: secret}
		for i := 0; i < int(n%8); i++ {
			tg.Headers = append(tg.Headers, Header{Key: key, Value: value})
		}
		err := ValidateTarget(tg, requireHTTPS)
		if err != nil {
			var pe *pix.Error
			if !errors.As(err, &pe) || pe.Kind != pix.KindInvalid || len(pe.Violations) == 0 {
				t.Fatalf("error %#v is not a KindInvalid *pix.Error with violations", err)
			}
			return
		}
		if ValidateURL(rawURL, requireHTTPS) != nil {
			t.Fatalf("target accepted with a URL ValidateURL refuses: %q", rawURL)
		}
		if len(tg.Headers) > MaxHeaders || !slices.Contains(EventTypes, eventType) || (secret != "" && !ValidSecret(secret)) {
			t.Fatalf("accepted an invalid target: %+v", tg)
		}
		if len(tg.Headers) > 0 && (key == "" || strings.ContainsAny(key+value, "\r\n")) {
			t.Fatalf("accepted an invalid header: %q: %q", key, value)
		}
	})
}
