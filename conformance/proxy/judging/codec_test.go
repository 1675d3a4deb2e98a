package judging

import (
	"bufio"
	"bytes"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// sameItem reports whether b carries what the rules read of a.
func sameItem(a, b Item) bool {
	x, y := a.Ex, b.Ex
	return a.Delivery == b.Delivery && a.Failed == b.Failed &&
		x.Seq == y.Seq && x.RequestID == y.RequestID && x.Method == y.Method && x.Path == y.Path && x.RawQuery == y.RawQuery &&
		reflect.DeepEqual(x.ReqHeader, y.ReqHeader) && reflect.DeepEqual(x.ReqBody, y.ReqBody) && x.ReqUnjudged == y.ReqUnjudged &&
		x.Status == y.Status && reflect.DeepEqual(x.RespHeader, y.RespHeader) && reflect.DeepEqual(x.RespBody, y.RespBody) &&
		x.RespUnjudged == y.RespUnjudged && x.Start.Equal(y.Start) && x.End.Equal(y.End) && x.Alone == y.Alone
}

func TestItem_RoundTrip(t *testing.T) {
	start := time.Date(2026, 3, 2, 12, 0, 0, 123456789, time.UTC)
	for _, it := range []Item{
		{Ex: &contract.Exchange{}},
		{Ex: &contract.Exchange{Seq: 1 << 40, RequestID: "req-1", Method: "PUT", Path: "/cob/a b", RawQuery: "x=1&y=%20",
			ReqHeader: http.Header{"Authorization": {"Bearer t"}, "X-Many": {"1", "2", ""}, "X-None": {}}, ReqBody: []byte(`{"a":1}`),
			Status: 201, RespHeader: http.Header{}, RespBody: []byte{}, Start: start, End: start.Add(time.Millisecond), Alone: true}},
		{Ex: &contract.Exchange{Method: "POST", Path: "/hooks", ReqUnjudged: "the body is over 1 MiB", RespUnjudged: "gzip"}, Delivery: true,
			Failed: "dial tcp: connection refused"},
		{Ex: &contract.Exchange{Start: time.Unix(-5, 0)}},
	} {
		got, err := decodeItem(appendItem(nil, it))
		if err != nil {
			t.Fatalf("%+v: %v", it.Ex, err)
		}
		if !sameItem(it, got) {
			t.Errorf("round trip of %+v (%+v) gave %+v (%+v)", it, *it.Ex, got, *got.Ex)
		}
		if (it.Ex.ReqBody == nil) != (got.Ex.ReqBody == nil) || (it.Ex.RespHeader == nil) != (got.Ex.RespHeader == nil) {
			t.Errorf("nil and empty not told apart: %+v gave %+v", *it.Ex, *got.Ex)
		}
	}
}

func TestItem_Malformed(t *testing.T) {
	full := appendItem(nil, Item{Ex: &contract.Exchange{Method: "GET", Path: "/x", ReqHeader: http.Header{"A": {"b"}}, Status: 200}})
	for i := range len(full) {
		if _, err := decodeItem(full[:i]); err == nil {
			t.Errorf("a frame cut at %d of %d decoded", i, len(full))
		}
	}
	if _, err := decodeItem(append(full, 0)); err == nil {
		t.Error("a frame with a byte too many decoded")
	}
}

func TestResult_RoundTrip(t *testing.T) {
	j := New(Config{})
	found := []contract.Finding{{Rule: "state.refund-over-original", Kind: contract.KindState, Exchange: 7, Related: []uint64{3},
		Message: "m", Time: time.Date(2026, 3, 2, 12, 0, 0, 5, time.UTC)}}
	for _, kind := range []byte{answerFindings, answerFindingsSizes, answerSizes} {
		want := found
		if kind == answerSizes {
			want = []contract.Finding{}
		}
		b, err := appendResult(nil, kind, want, j)
		if err != nil {
			t.Fatal(err)
		}
		got, s, answers, err := decodeResult(b)
		if err != nil || !reflect.DeepEqual(got, want) || (s != nil) != (kind != answerFindings) || answers != (kind != answerSizes) {
			t.Fatalf("kind %d: got %+v, %+v, %v, %v", kind, got, s, answers, err)
		}
		if s != nil && (s.Model == nil || s.Model["cobs"] != 0) {
			t.Errorf("sizes %+v", s)
		}
		if _, _, _, err := decodeResult(append(b, '0')); kind == answerFindings && err == nil {
			t.Errorf("kind %d: a byte too many decoded", kind)
		}
	}
	if _, _, _, err := decodeResult([]byte{answerSizes, 1}); err == nil {
		t.Error("findings in a frame of sizes alone decoded")
	}
}

// TestServe_Answers: a judging process answers every item in order,
// with the sizes when it waits for more (at most every sizesEvery), and
// ends with its input, after the sizes alone.
func TestServe_Answers(t *testing.T) {
	var in bytes.Buffer
	in.Write(appendFrame(nil, []byte(`{"upstream":"http://up"}`)))
	for _, it := range []Item{
		{Ex: &contract.Exchange{Seq: 1, Method: "GET", Path: "/accounts/balances", Status: 200, RespBody: []byte(`{"data":[]}`)}},
		{Ex: &contract.Exchange{Seq: 2, Method: "GET", Path: "/accounts/balances"}, Failed: "refused"},
	} {
		in.Write(appendFrame(nil, appendItem(nil, it)))
	}
	var out bytes.Buffer
	if err := Serve(&in, &out); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(&out)
	var rules [][]string
	var sized []bool
	last := false // the last frame is the sizes alone
	for {
		frame, err := readFrame(r, nil)
		if err != nil {
			break
		}
		found, s, answers, err := decodeResult(frame)
		if err != nil {
			t.Fatal(err)
		}
		if last = !answers && s != nil; last {
			continue
		}
		var ids []string
		for _, f := range found {
			ids = append(ids, f.Rule)
		}
		rules, sized = append(rules, ids), append(sized, s != nil)
	}
	if !last || len(rules) != 2 || sized[0] || !sized[1] || len(rules[0]) == 0 || !slices.Contains(rules[1], "upstream.unreachable") || slices.Contains(rules[0], "upstream.unreachable") {
		t.Fatalf("answers %v (sizes %v), the sizes alone last: %v", rules, sized, last)
	}
	if err := Serve(bytes.NewReader([]byte{5, '{'}), &out); err == nil {
		t.Error("a cut configuration was taken")
	}
}

// FuzzDecodeItem: any frame decodes or fails without a panic, and what
// decodes encodes back to a frame that decodes the same.
func FuzzDecodeItem(f *testing.F) {
	f.Add(appendItem(nil, Item{Ex: &contract.Exchange{Method: "GET", Path: "/x", ReqHeader: http.Header{"A": {"b"}}, Status: 200, RespBody: []byte("{}")}}))
	f.Add(appendItem(nil, Item{Ex: &contract.Exchange{}, Delivery: true, Failed: "x"}))
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := decodeItem(b)
		if err != nil {
			return
		}
		again, err := decodeItem(appendItem(nil, it))
		if err != nil || !sameItem(it, again) {
			t.Fatalf("%q decoded to %+v, which did not survive a round trip (%v)", b, *it.Ex, err)
		}
	})
}

// FuzzDecodeResult: any answer frame decodes or fails without a panic.
func FuzzDecodeResult(f *testing.F) {
	j := New(Config{})
	b, _ := appendResult(nil, answerFindingsSizes, []contract.Finding{{Rule: "r", Message: "m"}}, j)
	f.Add(b)
	f.Add([]byte{answerFindings, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _, _ = decodeResult(b)
	})
}
