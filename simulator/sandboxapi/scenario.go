package sandboxapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/scenarios"
)

func (cp *ControlPlane) handleScenarios(*http.Request) (any, error) {
	type scenarioDTO struct {
		Name       string   `json:"name"`
		Summary    string   `json:"summary"`
		Operations []string `json:"operations"`
		Phase      string   `json:"phase"`
		Code       string   `json:"code"`
		Spec       string   `json:"spec"`
	}
	all := scenarios.All()
	out := make([]scenarioDTO, len(all))
	for i, sc := range all {
		ops := make([]string, len(sc.Operations))
		for j, o := range sc.Operations {
			ops[j] = string(o)
		}
		out[i] = scenarioDTO{Name: sc.Name, Summary: sc.Summary, Operations: ops, Phase: sc.Phase.String(), Code: string(sc.Code), Spec: sc.Spec}
	}
	return map[string]any{"header": scenarios.Header, "data": out}, nil
}
