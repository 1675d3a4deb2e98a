package sandboxapi

import "net/http"

func (cp *ControlPlane) handleBanks(*http.Request) (any, error) {
	type bankDTO struct {
		ISPB string `json:"ispb"`
		Name string `json:"name"`
		Code string `json:"code"`
	}
	var out []bankDTO
	for _, b := range cp.sandbox.Banks() {
		out = append(out, bankDTO{ISPB: b.ISPB, Name: b.Name, Code: b.Code})
	}
	return map[string]any{"data": out}, nil
}
