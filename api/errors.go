package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/gpusearch/gpusearch/query"
)

// httpError is an error that knows the status it answers with. Its message
// is shown to the client, so it says what was wrong with the request.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) error {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

// badParam is a 400 about a request parameter or a limit.
func badParam(format string, args ...any) error {
	return errorf(http.StatusBadRequest, format, args...)
}

// statusOf maps an error to the status and message of its answer: the
// status an httpError carries; 413 for a body over max_body_bytes; 408 for
// a body not received within server.read_timeout; 503 when the GPU is not
// there; 500 for anything else, which is a server fault and is shown as
// such without internal detail.
func statusOf(err error) (int, string) {
	var he *httpError
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he.status, he.msg
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is over the limit max_body_bytes=%d", mb.Limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, "request body not received within the limit read_timeout"
	case errors.Is(err, query.ErrNoGPU):
		return http.StatusServiceUnavailable, "engine gpu unavailable: " + err.Error()
	}
	return http.StatusInternalServerError, "internal error"
}

// writeError answers err as JSON {"error": ...}, logging server faults.
func writeError(w http.ResponseWriter, log *slog.Logger, err error) {
	status, msg := statusOf(err)
	if status >= 500 && status != http.StatusServiceUnavailable {
		log.Error("internal error", "err", err)
	}
	w.Header().Set("Cache-Control", cacheNever)
	writeJSON(w, status, ErrorResponse{Error: msg})
}
