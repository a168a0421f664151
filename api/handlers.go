package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/gpusearch/gpusearch/index"
)

func (s *Server) handleDocument(w http.ResponseWriter, r *http.Request) {
	raw := mux.Vars(r)["docid"]
	id, err := strconv.ParseUint(raw, 10, 32)
	if err != nil {
		writeError(w, s.log, badParam("docid %q: want a non-negative integer below 2^32", raw))
		return
	}
	g, err := s.acquire()
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	defer s.done(g)
	ix, d, ok := g.locate(uint32(id))
	if !ok {
		writeError(w, s.log, errorf(http.StatusNotFound, "no document %d: %s", id, g.docRange()))
		return
	}
	withText := false
	if v := r.URL.Query().Get("text"); v != "" {
		if withText, err = strconv.ParseBool(v); err != nil {
			writeError(w, s.log, badParam("text %q: want 1 or 0", v))
			return
		}
	}
	if withText && g.ix.Store() != index.StoreText {
		writeError(w, s.log, errorf(http.StatusConflict,
			"the index stores no text (index.store: %s): rebuild it with gpusearch index --store text", g.ix.Store()))
		return
	}
	doc, err := ix.Document(d, withText)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	resp := DocumentResponse{DocID: uint32(id), URL: doc.URL, Title: doc.Title, Length: ix.DocLen(d)}
	if withText {
		text, cut := truncateUTF8(doc.Text, s.cfg.Server.MaxDocumentBytes)
		resp.Text, resp.Truncated, resp.TextBytes = &text, cut, len(doc.Text)
	}
	w.Header().Set("Cache-Control", cacheRevalidate)
	writeJSON(w, http.StatusOK, resp)
}

// truncateUTF8 cuts s to at most n bytes at a character's start, and says
// whether it cut.
func truncateUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	g, err := s.acquire()
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	defer s.done(g)
	m := g.meta()
	resp := StatsResponse{
		Index: IndexStats{
			Dir: s.root.show(g.dir), Generation: m.Generation, Shards: g.shardStats(), Docs: m.Docs, Terms: m.Terms, Postings: m.Postings, Blocks: m.Blocks,
			BlockSize: m.BlockSize, DocIDCodec: m.DocIDCodec, FreqCodec: m.FreqCodec,
			BitsPerDocID: m.BitsPerDocID(), BitsPerFreq: m.BitsPerFreq(), Bytes: m.Bytes(),
			AvgDocLength: m.AvgDocLength, Order: m.Order, Memory: g.ix.Memory().String(), LoadedAt: g.loaded.UTC().Format(time.RFC3339),
		},
		Server: ServerStats{
			UptimeSeconds: time.Since(s.started).Seconds(),
			Reloads:       s.reloads.Load(),
			GPU:           "ok",
			Cache: CacheStats{
				Capacity: g.cache.Cap(), Entries: g.cache.Len(),
				Hits: s.hits.Load(), Misses: s.misses.Load(), HitRate: s.hitRatio(),
			},
		},
	}
	if g.gpuErr != nil {
		resp.Server.GPU = g.gpuErr.Error()
	}
	if d, ok := g.gpu.(deviceReporter); ok {
		if c := d.DeviceUsage().ListCache; c.On {
			lc := &ListCacheStats{Hits: c.Hits, Misses: c.Misses, StreamedBytes: c.StreamedBytes, Evictions: c.Evictions}
			if c.Hits+c.Misses > 0 {
				lc.HitRate = float64(c.Hits) / float64(c.Hits+c.Misses)
			}
			resp.Server.GPUListCache = lc
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleHealthz answers "ok": the server only serves once an index is
// loaded, and a reload never leaves it without one.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok")
}

// handleReload admits an admin request (checkAdmin), reads its body,
// {"index": DIR} with DIR under the index root, or nothing for the
// configured index, and swaps that index in. Its answers name directories
// relative to the index root only.
func (s *Server) handleReload(w http.ResponseWriter, r *http.Request) {
	if err := s.checkAdmin(w, r); err != nil {
		writeError(w, s.log, err)
		return
	}
	body, err := io.ReadAll(r.Body) // capped by guard at max_body_bytes
	if err != nil {
		var mb *http.MaxBytesError
		if !errors.As(err, &mb) && !errors.Is(err, os.ErrDeadlineExceeded) {
			err = badParam("reading the body: %v", err)
		}
		writeError(w, s.log, err)
		return
	}
	var req ReloadRequest
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeError(w, s.log, badParam("reload body: want {\"index\": \"DIR\"} or nothing: %v", err))
			return
		}
		if dec.More() {
			writeError(w, s.log, badParam("reload body: want one JSON object"))
			return
		}
	}
	dir := s.cfg.Server.Index
	if req.Index != "" {
		if dir, err = s.root.resolve(req.Index); err != nil {
			var he *httpError
			if errors.As(err, &he) && he.status == http.StatusConflict {
				he.msg += " (the previous index keeps serving)"
			}
			writeError(w, s.log, err)
			return
		}
	}
	resp, err := s.Reload(dir)
	if err != nil {
		writeError(w, s.log, errorf(http.StatusConflict, "%s (the previous index keeps serving)", s.root.hide(err.Error(), dir)))
		return
	}
	writeJSON(w, http.StatusOK, resp)
}
