package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// shape is one of the spec's three error shapes (spec "Errors > Shapes").
type shape int

const (
	// minimalShape: statusCode, message, error. Every route but the ones below,
	// and the control plane.
	minimalShape shape = iota
	// tokenShape: statusCode, timestamp, path, method, code, message, userMessage,
	// details{hint, violations}, errorId. POST /api/auth/token.
	tokenShape
	// extendedShape: statusCode, timestamp, path (/public/...), method, code,
	// message (string or one string per invalid field), userMessage, errorId, error;
	// business errors add errorCode and details. POST /api/pix/cash-out and cash-in.
	extendedShape
)

// kindStatus is the default HTTP status of each error kind.
var kindStatus = map[pix.Kind]int{
	pix.KindInternal:            http.StatusInternalServerError,
	pix.KindInvalid:             http.StatusBadRequest,
	pix.KindUnauthorized:        http.StatusUnauthorized,
	pix.KindForbidden:           http.StatusForbidden,
	pix.KindNotFound:            http.StatusNotFound,
	pix.KindConflict:            http.StatusConflict,
	pix.KindUnprocessable:       http.StatusUnprocessableEntity,
	pix.KindRateLimited:         http.StatusTooManyRequests,
	pix.KindUpstream:            http.StatusBadGateway,
	pix.KindUnavailable:         http.StatusServiceUnavailable,
	pix.KindTooLarge:            http.StatusRequestEntityTooLarge,
	pix.KindNotImplemented:      http.StatusNotImplemented,
	pix.KindMethodNotAllowed:    http.StatusMethodNotAllowed,
	pix.KindUnavailableProvider: http.StatusInternalServerError,
}

// userMessages are the default end-user messages (the token and extended shapes'
// userMessage), by code.
var userMessages = map[pix.Code]string{
	pix.CodePubCertHeaderMissing:           "Your client certificate was not sent.",
	pix.CodePubCertMalformedPEM:            "Your client certificate could not be read.",
	pix.CodePubRequestBodyInvalid:          "The request is invalid.",
	pix.CodePubCertNotYetValid:             "Your client certificate is not valid yet.",
	pix.CodePubCertExpired:                 "Your client certificate has expired.",
	pix.CodePubCertNotRegistered:           "Your client certificate is not registered.",
	pix.CodePubInvalidCredentials:          "Invalid credentials.",
	pix.CodePubCertNotAuthorizedForAccount: "Your client certificate is not authorized for this account.",
	pix.CodePubAuthUpstreamError:           "Authentication failed unexpectedly. Please try again later.",
	pix.CodePubAuthUpstreamUnavailable:     "Authentication is temporarily unavailable. Please try again shortly.",
	pix.CodeHTTPError:                      "The request could not be processed.",
	pix.CodePixInsufficientBalance:         "Insufficient balance.",
	pix.CodePixTransactionLimitExceeded:    "The amount is above the per-transaction limit.",
	pix.CodePixDailyLimitExceeded:          "The daily limit has been reached.",
	pix.CodePixNightLimitExceeded:          "The amount is above the night-time limit.",
	pix.CodePixInvalidAmount:               "The amount is invalid.",
	pix.CodePixInvalidPixKey:               "The PIX key is invalid.",
	pix.CodePixDuplicateExternalID:         "This externalId has already been used.",
	pix.CodeProviderExpirationBelowMinimum: "The expiration time is below the provider's minimum.",
	pix.CodeSandboxUnknownScenario:         "The sandbox scenario is not recognised.",
	pix.CodeNotFound:                       "Not found.",
	pix.CodeUnauthorized:                   "Your session is invalid or has expired. Please sign in again.",
	pix.CodeInvalidRequest:                 "The request is invalid.",
	pix.CodeNotImplemented:                 "This operation is not available yet.",
	pix.CodeInternal:                       "Something went wrong. Please try again later.",
	pix.CodeAdminTokenRequired:             "The sandbox control plane needs an admin token.",
	pix.CodeTaxIDMismatch:                  "The document does not match the key holder.",
	pix.CodeInvalidTaxID:                   "The CPF or CNPJ is invalid.",
	pix.CodeBlockedAccount:                 "The destination account is blocked.",
	pix.CodeAccountClosed:                  "The destination account is closed.",
	pix.CodeOrderRejected:                  "The destination bank rejected the payment.",
	pix.CodePaymentExpired:                 "The payment expired before it was processed. Please try again.",
	pix.CodeSettlementTimeout:              "The destination bank did not answer in time. Please try again.",
	pix.CodeDictKeyNotFound:                "The PIX key was not found.",
	pix.CodeIspbDenied:                     "Payments to this institution are not allowed.",
	pix.CodeIdempotencyKeyMissing:          "The request needs an idempotency key.",
	pix.CodeIdempotencyKeyConflict:         "This idempotency key was already used for a different request.",
	pix.CodeTransactionNotSettleable:       "The transaction is no longer pending.",
	pix.CodeRefundNotAReceipt:              "Only received payments can be refunded.",
	pix.CodeRefundExceedsBalance:           "The refund is above what is left to refund.",
	pix.CodeRefundDeadlineExpired:          "The refund period has ended.",
	pix.CodeRefundIDConflict:               "This refund id was already used with another value.",
	pix.CodeRateLimited:                    "Too many requests. Please wait a moment.",
}

// transportCodes are codes of the HTTP layer. On the extended shape they are all
// reported as code HTTP_ERROR; any other code is a business code, reported in both
// code and errorCode. Gap G-04 (docs/spec-gaps.md).
var transportCodes = map[pix.Code]bool{
	pix.CodeHTTPError: true, pix.CodeUnauthorized: true, pix.CodeInvalidRequest: true, pix.CodeNotFound: true,
	pix.CodeInternal: true, pix.CodeNotImplemented: true, pix.CodeAdminTokenRequired: true,
}

// statusClientClosed is the status recorded for a request its client abandoned.
const statusClientClosed = 499

// asError turns any error into a *pix.Error; unknown errors become KindInternal
// with their text hidden.
func asError(err error) *pix.Error {
	var e *pix.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, errRequestTooLarge) {
		return &pix.Error{Kind: pix.KindTooLarge, Code: pix.CodeInvalidRequest, Message: "request body exceeds 1 MiB"}
	}
	return &pix.Error{Kind: pix.KindInternal, Code: pix.CodeInternal, Err: err}
}

// writeError renders err in rt's shape. It is the only place that picks an error
// status or shape.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, rt *Route, err error) int {
	e := asError(err)
	status := kindStatus[e.Kind]
	if st, ok := rt.overrides[e.Code]; ok {
		status = st
	}
	if status == 0 {
		status = http.StatusInternalServerError
	}
	reqID := requestID(r.Context())
	msg := e.Message
	if e.Kind == pix.KindInternal && errors.Is(e.Err, context.Canceled) && r.Context().Err() != nil {
		// The client hung up: nothing failed here. 499 (as nginx names it) keeps
		// it out of the 5xx counts; nobody reads the body.
		s.log.Info("client closed the request", "request_id", reqID, "route", rt.Path)
		status, msg = statusClientClosed, "client closed the request"
	} else if e.Kind == pix.KindInternal {
		s.log.Error("internal error", "request_id", reqID, "route", rt.Path, "error", e.Err)
		msg = "internal error; quote errorId " + reqID + " when reporting it"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	code := e.Code
	if rt.shape == tokenShape && e.Kind == pix.KindTooLarge {
		code = pix.CodePubRequestBodyInvalid
	}
	user := e.UserMessage
	if user == "" {
		user = userMessages[code]
	}

	var body any
	switch rt.shape {
	case tokenShape:
		violations := make([]violationDTO, 0, len(e.Violations))
		for _, v := range e.Violations {
			violations = append(violations, violationDTO{Field: v.Field, Message: v.Message})
		}
		body = tokenErrorDTO{
			StatusCode: status, Timestamp: formatTime(s.nowOf(r)), Path: r.URL.Path, Method: r.Method,
			Code: string(code), Message: msg, UserMessage: user,
			Details: tokenErrorDetails{Hint: e.Hint, Violations: violations}, ErrorID: reqID,
		}
	case extendedShape:
		dto := extendedErrorDTO{
			StatusCode: status, Timestamp: formatTime(s.nowOf(r)), Path: publicPath(r.URL.Path), Method: r.Method,
			Code: string(pix.CodeHTTPError), Message: msg, UserMessage: user, ErrorID: reqID, Error: http.StatusText(status),
		}
		if len(e.Violations) > 0 {
			msgs := make([]string, len(e.Violations))
			for i, v := range e.Violations {
				msgs[i] = v.Field + " " + v.Message
			}
			dto.Message = msgs
		}
		if !transportCodes[code] && e.Kind != pix.KindTooLarge {
			dto.Code, dto.ErrorCode = string(code), string(code)
			if len(e.Details) > 0 {
				dto.Details = e.Details
			}
		}
		body = dto
	case minimalShape:
		body = minimalErrorDTO{StatusCode: status, Message: msg, Error: http.StatusText(status)}
	}
	if n, ok := e.Details["retryAfterSeconds"].(int); ok && status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(max(n, 1)))
	}
	if status == http.StatusUnauthorized && rt.shape != tokenShape {
		w.Header().Set("WWW-Authenticate", `Bearer realm="pixsandbox"`)
	}
	writeJSON(w, status, body)
	return status
}

// publicPath is the /public/... form of a route path that the extended shape
// carries (spec "Errors > Shapes" item 2). Gap G-05: the prefix is added to the
// path as requested, e.g. /public/api/pix/cash-out.
func publicPath(p string) string {
	if strings.HasPrefix(p, "/public/") {
		return p
	}
	return "/public" + p
}

type violationDTO struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type tokenErrorDetails struct {
	Hint       string         `json:"hint"`
	Violations []violationDTO `json:"violations"`
}

type tokenErrorDTO struct {
	StatusCode  int               `json:"statusCode"`
	Timestamp   string            `json:"timestamp"`
	Path        string            `json:"path"`
	Method      string            `json:"method"`
	Code        string            `json:"code"`
	Message     string            `json:"message"`
	UserMessage string            `json:"userMessage"`
	Details     tokenErrorDetails `json:"details"`
	ErrorID     string            `json:"errorId"`
}

type extendedErrorDTO struct {
	StatusCode  int            `json:"statusCode"`
	Timestamp   string         `json:"timestamp"`
	Path        string         `json:"path"`
	Method      string         `json:"method"`
	Code        string         `json:"code"`
	ErrorCode   string         `json:"errorCode,omitempty"`
	Message     any            `json:"message"`
	UserMessage string         `json:"userMessage"`
	ErrorID     string         `json:"errorId"`
	Error       string         `json:"error"`
	Details     map[string]any `json:"details,omitempty"`
}

type minimalErrorDTO struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	Error      string `json:"error"`
}
