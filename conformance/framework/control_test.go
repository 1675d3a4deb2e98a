package framework

import (
	"net/http"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// controlEnds reports whether Control ended the check (ginkgo.Skip panics to
// leave the spec).
func controlEnds(r *apiclient.Response, want ...int) (ended bool) {
	defer func() { ended = recover() != nil }()
	Control("the control", []byte(`{"valor":"0.01"}`), r, want...)
	return false
}

// Control lets an accepted control pass (any 2xx by default, or one of the
// statuses given) and ends the check otherwise; the reason names the
// control's request and the target's answer.
func TestControl(t *testing.T) {
	answer := func(status int) *apiclient.Response {
		return &apiclient.Response{Status: status, Method: http.MethodPut, Path: "/pix/E1/devolucao/D1", Body: []byte(`{"title":"Devolucao Invalida",` + "\n" + `"detail":"partial refunds are not supported"}`)}
	}
	for _, tt := range []struct {
		status int
		want   []int
		ended  bool
	}{
		{http.StatusCreated, nil, false},
		{http.StatusOK, nil, false},
		{http.StatusBadRequest, nil, true},
		{http.StatusOK, []int{http.StatusCreated}, true},
		{http.StatusCreated, []int{http.StatusOK, http.StatusCreated}, false},
	} {
		if got := controlEnds(answer(tt.status), tt.want...); got != tt.ended {
			t.Errorf("status %d, want %v: ended %v, want %v", tt.status, tt.want, got, tt.ended)
		}
	}
	if !controlEnds(nil) {
		t.Error("a control without an answer does not end the check")
	}
	reason := ControlRefusedPrefix + controlReason("the same refund without the fault", []byte(`{"valor":"0.01"}`), answer(http.StatusBadRequest), nil)
	want := `control refused: the same refund without the fault: PUT /pix/E1/devolucao/D1 {"valor":"0.01"} answered 400 Bad Request {"title":"Devolucao Invalida", "detail":"partial refunds are not supported"}; want a 2xx status`
	if reason != want {
		t.Errorf("reason\n%s\nwant\n%s", reason, want)
	}
	if got := controlReason("GET", nil, &apiclient.Response{Status: 500, Method: "GET", Path: "/api/med?status=OPEN"}, []int{200}); got != "GET: GET /api/med?status=OPEN answered 500 Internal Server Error; want status 200" {
		t.Errorf("reason without bodies = %q", got)
	}
}

// A check whose control was refused is its own verdict: counted apart (and
// among the checks that ran), listed in the summary with its control, its
// own state in the JSON result and the coverage, a failure of type "control
// refused" in JUnit, and the run does not pass.
func TestBuildResult_ControlRefused(t *testing.T) {
	saved := coverageItems
	t.Cleanup(func() { coverageItems = saved })
	coverageItems = []CoverageItem{
		{Kind: KindRoute, Name: "PUT /pix/{e2eid}/devolucao/{id}", Checks: mustRE(`^PUT /pix`)},
		{Kind: KindRoute, Name: "PUT /cob/{txid}", Checks: mustRE(`^PUT /cob`)},
		{Kind: KindErrorCode, Name: "cob 400", Checks: mustRE(`^PUT /cob rejects with 400`)},
	}
	refused := ControlRefusedPrefix + `the same refund without the fault: PUT /pix/E1/devolucao/D2 {"valor":"0.01"} answered 400 Bad Request {"detail":"partial refunds are not supported"}; want a 2xx status`
	report := types.Report{SuiteDescription: SuiteDescription, SpecReports: []types.SpecReport{
		spec("PUT /pix rejects with 400 a body with natureza MED_FRAUDE", types.SpecStateSkipped, refused, "res:refund", "spec"),
		spec("PUT /pix rejects with 400 a body with valor 10.5", types.SpecStatePassed, "", "res:refund", "spec"),
		spec("PUT /cob rejects with 400 a devedor", types.SpecStateSkipped, ControlRefusedPrefix+"devedor", "res:cob", "spec"),
		spec("PUT /cob rejects with 409", types.SpecStateFailed, "want 409, got 200", "res:cob", "spec"),
	}}
	res := BuildResult(report, "http://t", "", "")
	if res.ControlRefused != 2 || res.Ran != 4 || res.Passed != 1 || res.Failed != 1 || res.Skipped != 0 {
		t.Fatalf("counts = %+v", res)
	}
	if c := res.Checks[0]; c.State != CheckControlRefused || c.Reason != refused || c.Resource != "refund" {
		t.Errorf("check = %+v, want control refused with the control's request and answer", c)
	}
	if res.OK(Config{}) {
		t.Fatal("a run with a refused control passes")
	}
	if probs := strings.Join(res.problems(Config{}), "; "); !strings.Contains(probs, "2 checks ended control refused") {
		t.Errorf("problems = %q", probs)
	}
	sum := res.Summary()
	for _, want := range []string{
		"ran 4, passed 1, failed 1, control refused 2, skipped 0",
		"\n  control refused: PUT /pix rejects with 400 a body with natureza MED_FRAUDE: the same refund without the fault: PUT /pix/E1/devolucao/D2 {\"valor\":\"0.01\"} answered 400",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}

	// Coverage: a refused control is its own status, below a failure.
	status := map[string]string{}
	for _, it := range res.Coverage.Items {
		status[it.Name] = it.Status
	}
	if status["PUT /pix/{e2eid}/devolucao/{id}"] != StatusControlRefused || status["PUT /cob/{txid}"] != StatusFailed || status["cob 400"] != StatusControlRefused {
		t.Errorf("coverage statuses = %v", status)
	}
	if it := res.Coverage.Items[0]; len(it.ControlRefused) != 1 || len(it.Checks) != 2 {
		t.Errorf("coverage item = %+v, want one control refused among two checks", it)
	}
	if s := res.Coverage.Summary(); !strings.Contains(s, "1 control refused") || !strings.Contains(s, "PUT /pix/{e2eid}/devolucao/{id}: control refused (PUT /pix rejects with 400 a body with natureza MED_FRAUDE)") {
		t.Errorf("coverage summary:\n%s", s)
	}
	var md strings.Builder
	if err := res.Coverage.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| kind | checked | failed | control refused | skipped | not checked |") || !strings.Contains(md.String(), "CONTROL REFUSED: ") {
		t.Errorf("coverage Markdown:\n%s", md.String())
	}

	// JUnit: a failure of its own type, not a skip.
	doc := junitOf(t, report, "")
	if doc.Failures != 3 || doc.Disabled != 0 || doc.TestSuites[0].Failures != 3 || doc.TestSuites[0].Skipped != 0 {
		t.Errorf("JUnit counts: failures %d (suite %d), disabled %d, skipped %d; want 3 failures, nothing skipped",
			doc.Failures, doc.TestSuites[0].Failures, doc.Disabled, doc.TestSuites[0].Skipped)
	}
	c := doc.TestSuites[0].TestCases[0]
	if c.Skipped != nil || c.Failure == nil || c.Failure.Type != CheckControlRefused || !strings.HasPrefix(c.Failure.Message, "control refused: the same refund") {
		t.Errorf("JUnit case %q: skipped %+v, failure %+v; want a failure of type control refused", c.Name, c.Skipped, c.Failure)
	}
}
