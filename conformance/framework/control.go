package framework

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// ControlRefusedPrefix starts the reason recorded for a check whose control
// was refused; the run's result, its JUnit and JSON reports and the coverage
// report count such checks as control refused.
const ControlRefusedPrefix = "control refused: "

// controlSnippet is how much of the control's request and answer bodies the
// reason keeps.
const controlSnippet = 300

// Control judges a check's control: the valid variant of the request the
// check refuses, sent to show that the target accepts it, so that a refusal
// of the invalid variant is the rule at work and not a refusal of everything.
// what names the control ("the same body without the fault"), sent is the
// request body it carried (nil when none) and r the target's answer.
//
// The control is accepted when r's status is one of want, or any 2xx status
// when want is empty. When it is not, the check ends as control refused
// (ginkgo.Skip with ControlRefusedPrefix, the control's request and the
// target's answer): neither a failure of the rule the check guards nor a
// pass. The run then fails, since the target deviates on the valid request.
func Control(what string, sent []byte, r *apiclient.Response, want ...int) {
	ginkgo.GinkgoHelper()
	if controlAccepted(r, want) {
		return
	}
	ginkgo.Skip(ControlRefusedPrefix + controlReason(what, sent, r, want))
}

func controlAccepted(r *apiclient.Response, want []int) bool {
	if r == nil {
		return false
	}
	if len(want) == 0 {
		return r.Status >= 200 && r.Status <= 299
	}
	return slices.Contains(want, r.Status)
}

// controlReason says which control was refused, what it sent, what the
// target answered and what the check expected, on one line.
func controlReason(what string, sent []byte, r *apiclient.Response, want []int) string {
	expected := "a 2xx status"
	if len(want) > 0 {
		s := make([]string, len(want))
		for i, w := range want {
			s[i] = fmt.Sprint(w)
		}
		expected = "status " + strings.Join(s, " or ")
	}
	if r == nil {
		return fmt.Sprintf("%s: no answer; want %s", what, expected)
	}
	req := r.Method + " " + r.Path
	if len(sent) > 0 {
		req += " " + oneLine(string(sent), controlSnippet)
	}
	answer := fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status))
	if len(r.Body) > 0 {
		answer += " " + oneLine(string(r.Body), controlSnippet)
	}
	return fmt.Sprintf("%s: %s answered %s; want %s", what, req, answer, expected)
}
