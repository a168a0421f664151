// Package api is gpusearch's HTTP server: the REST routes of docs/rest.md's
// contract, a server-rendered search page, Prometheus metrics, request
// logs, a result cache and index reloads without downtime.
//
// Routes (gorilla/mux):
//
//	GET  /                   search page (html/template): form, hits with titles and snippets, paging
//	GET  /search             ranked query: q, mode, k, engine, start, snippets, highlight
//	POST /msearch            newline-delimited /search queries, answered in order (msearch.go)
//	GET  /documents/{docid}  one document's URL, title and length (?text=1: its stored text), or 404
//	GET  /stats              index and server statistics, cache hit rate
//	GET  /healthz            "ok" while an index is loaded (always, once serving)
//	GET  /metrics            Prometheus text format, from the injected registry
//	POST /admin/reload       open, check and swap in an index directory
//
// Errors are JSON {"error":"..."}, never stored (Cache-Control: no-store):
// 400 for a bad parameter or a limit (the message names the limit, as in
// configs/default.yaml), 401 for an admin request without the token, 403
// for an admin route that is off or a page of another origin, 404 for an
// unknown document or route, 405 for a wrong method (with Allow), 408 for
// a body slower than server.read_timeout, 409 for a reload whose index
// cannot be opened, 413 for a body over max_body_bytes, 415 for an admin
// body not declared application/json, 421 for a Host the server does not
// answer to, 431 for headers over max_header_bytes, 503 when the GPU is
// asked for and is not there or a search outlived server.timeout. One
// function, writeError, makes every error response; anything it does not
// recognise is a 500, which only a server fault (a damaged index discovered
// while decoding, a bug) can reach, never bad input.
//
// Who is let in (guard.go, admin.go). Every request passes guard before
// routing: headers over max_header_bytes, a Host that is not one of the
// server's names (localhost, the loopback addresses, the listen host,
// server.hosts, and any IP address on a non-loopback bind; a page that DNS
// rebinding brought here sends its own name) and a declared body over
// max_body_bytes are refused, and bodies are capped on every route. Every
// answer says nosniff, X-Frame-Options: DENY, Referrer-Policy: no-referrer
// (page URLs hold the query) and a Content-Security-Policy that loads
// nothing (the page: its one inline style, by hash). The admin route is off
// unless server.admin_reload, and then takes only requests with the token
// (Authorization: Bearer, compared as SHA-256 sums in constant time), a
// body declared application/json (which a page of another origin cannot
// send without a CORS preflight, never granted) and no foreign Origin. The
// http.Server cuts slow clients at read_header_timeout, read_timeout,
// write_timeout and idle_timeout. net/http itself answers, in plain text,
// a request it cannot parse (400) and headers past max_header_bytes +
// 1 MiB (431): it has no hook to answer those in JSON.
//
// Paths (paths.go). Reloads name directories under server.index_root (by
// default the directory holding server.index), relative to it or absolute
// inside it; a name outside is refused before the file system is asked,
// and a missing directory gets the same answer as one a symbolic link
// takes outside, so nothing tells what exists outside the root. /stats,
// reload answers and reload errors show paths relative to the root, and
// leave out an index outside it.
//
// Index swaps. The served index, its engines and its result cache form a
// generation, held in an atomic.Pointer. A request takes a reference on the
// current generation and keeps it to the end, so it sees one index from
// start to finish; a reload builds a new generation, swaps the pointer and
// drops the server's reference on the old one, which closes its index when
// the last request using it ends. Reloads are serialised; a directory that
// fails index.Open's checks is refused and the old generation keeps serving.
//
// Engines. Requests name engines of package query's registry, opened
// over each loaded index with the server's options (server.bitmap_cache_mb
// for "bitmap", the first of gpu.devices for "gpu"): "cpu" (the best CPU
// algorithm per mode) at load, the others on first use. "gpu" is the
// engine registered under that name, which the program links (gpusearch
// serve imports query/gpuengine; package api does not import package gpu);
// it opens at load, and while it cannot (no GPU, no CUDA build, or no GPU
// engine linked) every engine=gpu request answers 503 with the reason.
// "auto" is the engine Options.Auto builds over the CPU and GPU engines,
// the CPU engine when it is nil. The "engine" field of a response names the
// engine that answered: "auto" when Options.Auto built one (gpusearch
// serve's scheduler), else "cpu" for engine=auto.
//
// Cache. A bounded LRU of result lists per generation (so a reload can
// never serve the old index's hits), keyed by the analyzed terms in query
// order (scores are summed in that order), the mode, the engine that
// answers and the depth start+k. server.cache_entries = 0 turns it off.
// Hits and misses are counted on /stats and /metrics (with the hit ratio).
// A cached answer keeps the stats of the search that produced it; its
// took_us is the time of the request that read it. Titles and snippets
// (Describe, package snippet) are made after the cache, for the page of
// hits asked for only, so one entry serves every page and highlighting.
//
// Limits (configs/default.yaml): max_query_bytes on q, max_terms on the
// distinct analyzed terms, max_k on k and on start+k, max_body_bytes on
// request bodies, max_header_bytes on the request line and headers,
// timeout as the deadline of the engine's context.
//
// Logs: one slog line per request (method, route, path, status, bytes,
// duration); the query text is not logged, since logs often travel further
// than the queries' owners would like.
package api
