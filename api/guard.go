package api

import (
	"net"
	"net/http"
	"strings"
)

// apiCSP is the Content-Security-Policy of every answer but the page: a
// JSON or text answer loads nothing, and no page may frame it.
const apiCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Cache-Control values: answers that depend only on the request and the
// served index may be kept by the client (never by a shared cache, the
// query being the user's) but must be checked again, since a reload can
// change them; the rest (errors, statistics, admin) are never stored.
const (
	cacheRevalidate = "private, no-cache"
	cacheNever      = "no-store"
)

// guard wraps the router: every answer carries the security headers, and
// a request whose headers are over max_header_bytes (431), whose Host is
// not one the server answers to (421) or whose declared body is over
// max_body_bytes (413) is refused before routing. Bodies are capped at
// max_body_bytes on every route.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer") // page URLs hold the query
		h.Set("Content-Security-Policy", apiCSP)
		h.Set("Cache-Control", cacheNever)
		if err := s.admit(r); err != nil {
			s.instrument("refused", func(w http.ResponseWriter, r *http.Request) { writeError(w, s.log, err) }).ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.Server.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// admit checks what can be checked before routing: the size of the
// headers, the Host, the declared body length.
func (s *Server) admit(r *http.Request) error {
	lim := s.cfg.Server
	if n := headerBytes(r); n > lim.MaxHeaderBytes {
		return errorf(http.StatusRequestHeaderFieldsTooLarge,
			"request line and headers are %d bytes, over the limit max_header_bytes=%d", n, lim.MaxHeaderBytes)
	}
	if !s.hosts.allows(r.Host) {
		return errorf(http.StatusMisdirectedRequest,
			"host %q is not served here: the server answers to its configured names only (server.hosts)", r.Host)
	}
	if r.ContentLength > lim.MaxBodyBytes {
		return errorf(http.StatusRequestEntityTooLarge,
			"request body is %d bytes, over the limit max_body_bytes=%d", r.ContentLength, lim.MaxBodyBytes)
	}
	return nil
}

// headerBytes is about the size of a request's line and headers as sent.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + len("Host: ") + len(r.Host) + 6
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// hostPolicy says which Host headers a server answers. A page that DNS
// rebinding brought to the server's address still sends its own name, so
// answering only the server's names keeps such pages out.
type hostPolicy struct {
	any   bool            // "*": no check
	anyIP bool            // any IP address (non-loopback binds)
	names map[string]bool // normalised by hostname
}

// newHostPolicy allows localhost, the loopback addresses, the listen
// address's host and the extra names; on a non-loopback bind also any IP
// address, which a rebinding page cannot send (its Host is a name).
func newHostPolicy(addr string, extra []string) hostPolicy {
	p := hostPolicy{anyIP: !isLoopback(addr), names: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}}
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		p.names[hostname(host)] = true
	}
	for _, n := range extra {
		if n == "*" {
			p.any = true
		}
		p.names[hostname(n)] = true
	}
	return p
}

// allows reports whether a request's Host is served. An empty Host (an
// HTTP/1.0 client) comes from no browser and is served.
func (p hostPolicy) allows(host string) bool {
	if p.any || host == "" {
		return true
	}
	h := hostname(host)
	return p.names[h] || p.anyIP && net.ParseIP(h) != nil
}

// hostname is a Host value's name without port, IPv6 brackets, trailing
// dot or upper case.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// isLoopback reports whether a HOST:PORT address names a loopback host.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
