package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/gpusearch/gpusearch/config"
)

// adminTokenHash reads the admin token (server.admin_token, or the file
// server.admin_token_file) and returns its SHA-256; nil when the admin
// route is off. Only the hash is kept: comparing hashes takes the same
// time whatever the token's length.
func adminTokenHash(c config.Server) ([]byte, error) {
	if !c.AdminReload {
		return nil, nil
	}
	tok := c.AdminToken
	if c.AdminTokenFile != "" {
		b, err := os.ReadFile(c.AdminTokenFile)
		if err != nil {
			return nil, fmt.Errorf("server.admin_token_file: %w", err)
		}
		if tok = strings.TrimSpace(string(b)); tok == "" {
			return nil, fmt.Errorf("server.admin_token_file %s is empty", c.AdminTokenFile)
		}
	}
	if len(tok) < config.MinAdminToken {
		return nil, fmt.Errorf("the admin token is %d bytes: want at least %d", len(tok), config.MinAdminToken)
	}
	sum := sha256.Sum256([]byte(tok))
	return sum[:], nil
}

// checkAdmin admits an admin request, or says why not: the admin route is
// off (403); the request comes from a page of another origin (403); it
// lacks the token (401, with WWW-Authenticate set on w); its body is not
// declared application/json (415), which no page of another origin can
// send without the server's consent (a CORS preflight, never granted).
func (s *Server) checkAdmin(w http.ResponseWriter, r *http.Request) error {
	if s.adminHash == nil {
		return errorf(http.StatusForbidden,
			"admin routes are off: set server.admin_reload: true and a token (server.admin_token_file)")
	}
	if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
		return errorf(http.StatusForbidden, "admin requests from a page of another origin (Origin %q) are refused", o)
	}
	if !s.tokenOK(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="gpusearch admin"`)
		return errorf(http.StatusUnauthorized, "admin requests need the admin token: Authorization: Bearer TOKEN")
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errorf(http.StatusUnsupportedMediaType, "admin requests take Content-Type: application/json")
	}
	return nil
}

// tokenOK reports, in time independent of the token, whether an
// Authorization header carries the admin token.
func (s *Server) tokenOK(authorization string) bool {
	scheme, tok, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], s.adminHash) == 1
}

// sameOrigin reports whether an Origin header names the host a request
// was sent to.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}
