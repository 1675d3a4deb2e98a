package pix

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies an error for transports. It is not part of the wire format.
// Do not reorder; add new kinds at the end.
type Kind uint8

const (
	KindInternal         Kind = iota // 500; message hidden from clients
	KindInvalid                      // 400
	KindUnauthorized                 // 401
	KindForbidden                    // 403
	KindNotFound                     // 404
	KindConflict                     // 409
	KindUnprocessable                // 422
	KindRateLimited                  // 429
	KindUpstream                     // 502
	KindUnavailable                  // 503
	KindTooLarge                     // 413
	KindNotImplemented               // 501
	KindMethodNotAllowed             // 405
	// KindUnavailableProvider is a 500 whose message is shown: the PIX provider
	// could not be reached (spec: 500 HTTP_ERROR on cash-in; retry).
	KindUnavailableProvider
)

// Error is an application error. Any other error reaching a transport is reported
// as KindInternal with a generic message; its text is logged, never returned.
type Error struct {
	Kind        Kind
	Code        Code
	Message     string         // English, technical (spec "Errors > Shapes")
	UserMessage string         // English, end-user; empty means the transport's default for Code
	Hint        string         // how to fix it; rendered in details.hint on the token route
	Violations  []Violation    // one per invalid field
	Details     map[string]any // extra machine-readable facts, e.g. existingTransactionId
	Err         error          // cause; never rendered
}

// Error returns the technical message.
func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if len(e.Violations) > 0 {
		return e.Violations[0].Field + ": " + e.Violations[0].Message
	}
	return string(e.Code)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind k and code c with a formatted message.
func Errorf(k Kind, c Code, format string, args ...any) *Error {
	return &Error{Kind: k, Code: c, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a KindInvalid error with code c listing violations; its message
// joins the violations, each naming its field.
func Invalid(c Code, vs ...Violation) *Error {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Field + " " + v.Message
	}
	return &Error{Kind: KindInvalid, Code: c, Message: strings.Join(parts, "; "), Violations: vs}
}

// WithHint sets the hint and returns e.
func (e *Error) WithHint(h string) *Error { e.Hint = h; return e }

// ErrorKind returns the kind of err; errors that are not *Error are KindInternal.
func ErrorKind(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// ErrorCode returns the code of err, or "" when err is not an *Error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Match reports whether err is an *Error whose Kind and Code equal want's, and
// whose Message equals want's when want's is not empty. For tests.
func Match(want *Error, err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	if want.Kind != e.Kind || (want.Code != "" && want.Code != e.Code) {
		return false
	}
	return want.Message == "" || want.Message == e.Message
}
