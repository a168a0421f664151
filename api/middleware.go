package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// instrument wraps a route's handler: it counts and times the request under
// the route's name, writes one log line, and turns a panic into a 500
// (logged with the panic value) instead of a dropped connection.
func (s *Server) instrument(route string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				err := fmt.Errorf("panic: %v", p)
				if rec.status == 0 {
					writeError(rec, s.log, err)
				} else {
					s.log.Error("internal error", "err", err)
				}
			}
			d := time.Since(start)
			s.m.requests.WithLabelValues(route, strconv.Itoa(rec.status)).Inc()
			s.m.requestTime.WithLabelValues(route).Observe(d.Seconds())
			if s.cfg.Server.AccessLog {
				s.log.Info("request", "method", r.Method, "route", route, "path", r.URL.Path,
					"status", rec.status, "bytes", rec.bytes, "duration_us", d.Microseconds(), "remote", r.RemoteAddr)
			}
		}()
		h(rec, r)
	})
}
