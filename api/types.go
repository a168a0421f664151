package api

import (
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// SearchResponse is the JSON answer of GET /search, also printed by
// `gpusearch search --json`.
type SearchResponse struct {
	Query  string      `json:"query"`
	Mode   string      `json:"mode"`
	Engine string      `json:"engine"`          // the engine that answered
	TookUS int64       `json:"took_us"`         // server: analysis, cache, engine, URLs, titles, snippets; CLI: the engine
	Start  int         `json:"start,omitempty"` // rank offset of the first hit
	Cached bool        `json:"cached,omitempty"`
	Hits   []Hit       `json:"hits"`
	Stats  query.Stats `json:"stats"`
}

// Hit is one ranked document. Title is absent when the index stores no
// titles; Snippet when it stores no text (index.store), or snippets=0, or
// search.snippet_bytes is 0.
type Hit struct {
	DocID       uint32   `json:"docid"`
	URL         string   `json:"url"`
	Score       float32  `json:"score"`
	Title       string   `json:"title,omitempty"`
	Snippet     string   `json:"snippet,omitempty"`      // about search.snippet_bytes of the text, "…" where cut
	Highlights  [][2]int `json:"highlights,omitempty"`   // byte ranges of Snippet the query matched
	SnippetHTML string   `json:"snippet_html,omitempty"` // with highlight=html: escaped, matches in <mark>
}

// DocumentResponse is the answer of GET /documents/{docid}: with
// ?text=1, the stored text, cut at server.max_document_bytes.
type DocumentResponse struct {
	DocID     uint32  `json:"docid"`
	URL       string  `json:"url"`
	Title     string  `json:"title"`                // empty when the index stores none
	Length    uint32  `json:"length"`               // tokens after analysis
	Text      *string `json:"text,omitempty"`       // the extracted text, asked for with ?text=1
	TextBytes int     `json:"text_bytes,omitempty"` // the whole text's length in bytes
	Truncated bool    `json:"truncated,omitempty"`  // Text is cut at max_document_bytes
}

// StatsResponse is the answer of GET /stats.
type StatsResponse struct {
	Index  IndexStats  `json:"index"`
	Server ServerStats `json:"server"`
}

// IndexStats describe the index being served.
type IndexStats struct {
	Dir string `json:"dir,omitempty"` // relative to server.index_root; absent outside it
	// Generation is the commit served: the index's generation; for a
	// sharded collection's directory, the collection's identity, a colon
	// and its shards' generations, comma-separated.
	Generation string `json:"generation"`
	// Shards are the shards served, for an index that is a shard or a
	// sharded collection; absent otherwise.
	Shards       []ShardStats `json:"shards,omitempty"`
	Docs         uint64       `json:"docs"`
	Terms        uint64       `json:"terms"`
	Postings     uint64       `json:"postings"`
	Blocks       uint64       `json:"blocks"`
	BlockSize    int          `json:"block_size"`
	DocIDCodec   string       `json:"docid_codec"`
	FreqCodec    string       `json:"freq_codec"`
	BitsPerDocID float64      `json:"bits_per_docid"`
	BitsPerFreq  float64      `json:"bits_per_freq"`
	Bytes        int64        `json:"bytes"`
	AvgDocLength float64      `json:"avg_doc_length"`
	Order        string       `json:"order"`
	// Memory is where the postings and query tables live: huge (read
	// into memory on huge pages) or mapped (server.index_memory).
	Memory   string `json:"memory"`
	LoadedAt string `json:"loaded_at"` // RFC 3339
}

// ShardStats describe one shard served: its part of the collection, its
// documents and its generation.
type ShardStats struct {
	index.ShardInfo
	Docs       uint64 `json:"docs"`
	Generation string `json:"generation"`
}

// ServerStats describe the server since it started.
type ServerStats struct {
	UptimeSeconds float64    `json:"uptime_s"`
	Reloads       int64      `json:"reloads"` // successful index swaps
	GPU           string     `json:"gpu"`     // "ok", or why engine=gpu answers 503
	Cache         CacheStats `json:"cache"`
	// GPUListCache is the GPU engine's list cache, when the index does
	// not fit its memory budget.
	GPUListCache *ListCacheStats `json:"gpu_list_cache,omitempty"`
}

// ListCacheStats describe the GPU engine's list cache (docs/gpu-cache.md):
// accesses to long lists found on the device (hits) and copied in
// (misses), the bytes copied, and evictions.
type ListCacheStats struct {
	Hits          int64   `json:"hits"`
	Misses        int64   `json:"misses"`
	HitRate       float64 `json:"hit_rate"`
	StreamedBytes int64   `json:"streamed_bytes"`
	Evictions     int64   `json:"evictions"`
}

// CacheStats describe the result cache; HitRate is hits/(hits+misses), 0
// before the first lookup.
type CacheStats struct {
	Capacity int     `json:"capacity"` // 0: the cache is off
	Entries  int     `json:"entries"`
	Hits     int64   `json:"hits"`
	Misses   int64   `json:"misses"`
	HitRate  float64 `json:"hit_rate"`
}

// ReloadRequest is the optional body of POST /admin/reload; an empty body
// or an empty Index reloads the configured directory.
type ReloadRequest struct {
	Index string `json:"index"`
}

// ReloadResponse is the answer of a successful reload.
type ReloadResponse struct {
	Index    string `json:"index,omitempty"`    // relative to server.index_root
	Previous string `json:"previous,omitempty"` // the same; both absent outside it
	Docs     uint64 `json:"docs"`
	TookMS   int64  `json:"took_ms"`
}

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error string `json:"error"`
}
