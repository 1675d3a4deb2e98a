package httpapi

import (
	"reflect"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
)

// Every request body of the contract's routes decodes on strictjson's fast
// path when it is well formed; a field of a type that decodes itself (time.Time,
// json.Number) would send every request of its route down the strict walk.
func TestRequestBodies_TakeTheFastPath(t *testing.T) {
	for _, v := range []any{tokenRequest{}, cashInRequest{}, cashOutRequest{}, cobRequest{}, refundBody{},
		refundInBody{}, transferRequest{}, registerRequest{}, map[string]any{}} {
		if !strictjson.FastPath(reflect.TypeOf(v)) {
			t.Errorf("%T cannot take strictjson's fast path", v)
		}
	}
}
