// Package config loads gpusearch's YAML configuration (configs/default.yaml
// documents every key). Loading starts from Default, so a file needs only
// the keys it changes; unknown keys are an error, not silently ignored.
// Command-line flags override what the file says.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/gpusearch/gpusearch/index/bm25"
)

// Config is the whole configuration.
type Config struct {
	Index   Index       `yaml:"index"`
	BM25    bm25.Params `yaml:"bm25"`
	Search  Search      `yaml:"search"`
	Server  Server      `yaml:"server"`
	GPU     GPU         `yaml:"gpu"`
	Cluster Cluster     `yaml:"cluster"`
	Broker  Broker      `yaml:"broker"`
}

// Cluster is a node's or broker's place in a cluster whose membership is
// kept in etcd (package cluster); without endpoints serve runs alone.
type Cluster struct {
	// Endpoints are etcd's client URLs; empty: no cluster.
	Endpoints []string `yaml:"endpoints"`
	// Prefix is the key prefix of this cluster's registrations.
	Prefix string `yaml:"prefix"`
	// NodeID names the node in the cluster; "": hostname:port of
	// AdvertiseURL.
	NodeID string `yaml:"node_id"`
	// AdvertiseURL is how brokers reach the node; "": http:// and
	// server.addr.
	AdvertiseURL string `yaml:"advertise_url"`
	// Collection names the collection the node's index belongs to; "":
	// the index's own (a shard records its collection's identity).
	Collection string `yaml:"collection"`
	// LeaseTTL is how long a dead node stays registered (whole seconds,
	// at least etcd's minimum, 2s by default).
	LeaseTTL time.Duration `yaml:"lease_ttl"`
	// DialTimeout bounds connecting to etcd.
	DialTimeout time.Duration `yaml:"dial_timeout"`
}

// Enabled reports whether the config names etcd endpoints.
func (c Cluster) Enabled() bool { return len(c.Endpoints) > 0 }

// Broker configures `gpusearch broker`, which answers the search API over
// the cluster's shards (it reads server.* for its limits and timeouts).
type Broker struct {
	Addr string `yaml:"addr"`
	// Collection is the collection to serve; "": the newest one every
	// shard of which has a live replica.
	Collection string `yaml:"collection"`
	// ShardTimeout bounds one shard's answer, retries and hedges included.
	ShardTimeout time.Duration `yaml:"shard_timeout"`
	// Hedge sends a second request to another replica of a shard when
	// the first takes longer than that shard's running p95.
	Hedge bool `yaml:"hedge"`
	// HedgeMin is the least a request waits before it is hedged.
	HedgeMin time.Duration `yaml:"hedge_min"`
	// DownFor is how long a replica that could not be reached is avoided
	// (then one request tries it again).
	DownFor time.Duration `yaml:"down_for"`
	// CacheEntries is the broker's result cache size; 0 turns it off.
	CacheEntries int `yaml:"cache_entries"`
	// MaxConnsPerReplica bounds the keep-alive connections kept open
	// to each replica.
	MaxConnsPerReplica int `yaml:"max_conns_per_replica"`
}

// Index configures `gpusearch index`.
type Index struct {
	DocIDCodec     string `yaml:"docid_codec"`
	FreqCodec      string `yaml:"freq_codec"`
	Order          string `yaml:"order"`
	Seed           uint64 `yaml:"seed"`
	Workers        int    `yaml:"workers"`
	MemoryBudgetMB int64  `yaml:"memory_budget_mb"`
	MaxDocBytes    int64  `yaml:"max_doc_bytes"`
	Oversize       string `yaml:"oversize"`
	TempDir        string `yaml:"temp_dir"`
	Store          string `yaml:"store"`
	Positions      bool   `yaml:"positions"`
	PositionsCodec string `yaml:"positions_codec"`
	// TitleWeight folds each title into the index w more times
	// (indexer.Options.TitleWeight); an index property, recorded in
	// meta.json, not a query-time one.
	TitleWeight TitleWeight `yaml:"title_weight"`
	Merge       Merge       `yaml:"merge"`
}

// TitleWeight is index.title_weight: an integer, refusing a fractional
// value, which YAML decoding would otherwise cut (1.5 to 1) without a word.
type TitleWeight int

// UnmarshalYAML decodes an integer and refuses any other value.
func (w *TitleWeight) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return fmt.Errorf("index.title_weight (line %d) is %q: want an integer from 0 to %d", n.Line, n.Value, bm25.MaxTitleWeight)
	}
	var v int
	if err := n.Decode(&v); err != nil {
		return err
	}
	*w = TitleWeight(v)
	return nil
}

// Merge is the tiered merge policy that `gpusearch index --update` runs
// after its commit and `gpusearch merge` runs (indexer.MergePolicy): when
// a tier (segments of TierRatio^t to TierRatio^(t+1) live documents, and
// one tier of those under FloorShare of all live documents) holds
// SegmentsPerTier segments, they merge into one; a segment with
// more than MaxDeletedShare of its documents deleted is merged too; no
// merge writes more than MaxMergeDocs live documents (what a merge holds
// in memory grows with its documents).
type Merge struct {
	Policy          string  `yaml:"policy"` // tiered, or off
	SegmentsPerTier int     `yaml:"segments_per_tier"`
	TierRatio       float64 `yaml:"tier_ratio"`
	FloorShare      float64 `yaml:"floor_share"` // 0: no floor tier
	MaxDeletedShare float64 `yaml:"max_deleted_share"`
	MaxMergeDocs    int64   `yaml:"max_merge_docs"`
}

// Search holds query defaults shared by the CLI and the server.
type Search struct {
	Mode   string `yaml:"mode"`
	K      int    `yaml:"k"`
	Engine string `yaml:"engine"`
	// SnippetBytes is the length of a hit's snippet in bytes; 0 shows none.
	SnippetBytes int `yaml:"snippet_bytes"`
	// SnippetWorkers is how many goroutines make a page's snippets at
	// once: 1 the request's own, 0 one per core.
	SnippetWorkers int `yaml:"snippet_workers"`
}

// Server configures `gpusearch serve`.
type Server struct {
	Addr          string `yaml:"addr"`
	Index         string `yaml:"index"`
	MaxQueryBytes int    `yaml:"max_query_bytes"`
	MaxTerms      int    `yaml:"max_terms"`
	MaxK          int    `yaml:"max_k"`
	MaxBodyBytes  int64  `yaml:"max_body_bytes"`
	// MaxDocumentBytes bounds the text GET /documents/{docid}?text=1
	// returns; a longer text is cut and flagged.
	MaxDocumentBytes int           `yaml:"max_document_bytes"`
	Timeout          time.Duration `yaml:"timeout"`
	ShutdownTimeout  time.Duration `yaml:"shutdown_timeout"`
	CacheEntries     int           `yaml:"cache_entries"`
	// IndexMemory is where the served index's postings and query tables
	// live: auto, mapped or huge (index.ParseMemory).
	IndexMemory string `yaml:"index_memory"`
	// AdminReload serves POST /admin/reload; it then needs AdminToken or
	// AdminTokenFile, whatever the listen address.
	AdminReload bool `yaml:"admin_reload"`
	// AdminToken is the bearer token admin requests must send; prefer
	// AdminTokenFile, which keeps it out of the config.
	AdminToken string `yaml:"admin_token"`
	// AdminTokenFile holds the admin token (surrounding space trimmed),
	// read when the server starts.
	AdminTokenFile string `yaml:"admin_token_file"`
	// Hosts are more names the Host header may carry besides the
	// defaults (localhost, the loopback addresses and the listen host;
	// any IP address on a non-loopback bind); "*" allows any.
	Hosts []string `yaml:"hosts"`
	// IndexRoot is the directory reloads choose indexes under and paths
	// are shown relative to; "" is the directory that holds Index.
	IndexRoot         string        `yaml:"index_root"`
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	ReadTimeout       time.Duration `yaml:"read_timeout"`
	WriteTimeout      time.Duration `yaml:"write_timeout"`
	IdleTimeout       time.Duration `yaml:"idle_timeout"`
	MaxHeaderBytes    int           `yaml:"max_header_bytes"`
	// AccessLog logs a line per request (method, route, status, bytes,
	// time, client); off, only errors and lifecycle events are logged.
	AccessLog     bool   `yaml:"access_log"`
	BitmapCacheMB int64  `yaml:"bitmap_cache_mb"`
	Policy        string `yaml:"policy"`
	// CPUWorkers is how many queries engine=auto runs on the CPU at once
	// (0: beside a GPU, one per 16 cores; without one, one per core).
	CPUWorkers int           `yaml:"cpu_workers"`
	Deadline   time.Duration `yaml:"deadline"`
	// GCPercent is the Go garbage collector's GOGC for serve and bench
	// load (0: the runtime's own, from the GOGC environment variable or
	// 100); a GOGC environment variable always wins.
	GCPercent int `yaml:"gc_percent"`
	// MsearchMaxLines is the most queries one POST /msearch may carry.
	MsearchMaxLines int `yaml:"msearch_max_lines"`
	// MsearchMaxBytes is the largest POST /msearch body (max_body_bytes
	// caps every body first).
	MsearchMaxBytes int64 `yaml:"msearch_max_bytes"`
	// WatchInterval is how often serve reads the served index's commit
	// point, meta.json, and reloads the index when it names another
	// generation (a `gpusearch index` or `index --update` committed); 0
	// turns the watch off.
	WatchInterval time.Duration `yaml:"watch_interval"`
}

// GPU configures the CUDA back end.
type GPU struct {
	Devices        []int `yaml:"devices"`
	MemoryBudgetMB int64 `yaml:"memory_budget_mb"`
	// Batch is the most queries the scheduler hands a GPU at once.
	Batch int `yaml:"batch"`
	// Workers is the number of scheduler workers per GPU.
	Workers int `yaml:"workers"`
	// Wait is how the host thread waits for the GPU: auto, spin, yield or
	// block (gpu.DeviceOptions.Wait).
	Wait string `yaml:"wait"`
	// Window is how long a GPU worker waits for more queries when it
	// holds fewer than Batch, counted from its oldest one's arrival, so
	// that requests arriving close together run as one batch (0, the
	// default: none; the waiting queue batches itself under load, and on
	// the H100 machine 200us cost 19-20% at 16 clients and gained nothing
	// at 128 or 1024, docs/server.md).
	Window time.Duration `yaml:"window"`
	// CachePolicy is the GPU list cache's policy, lru or lfu: when the
	// index does not fit memory_budget_mb (with a quarter of it left for
	// scratch), short lists stay resident and long ones live in a cache
	// of the rest of the budget (docs/gpu-cache.md).
	CachePolicy string `yaml:"cache_policy"`
	// CacheMB, when positive, turns the list cache on with that size
	// whatever the budget (0: only when the index does not fit).
	CacheMB int64 `yaml:"cache_mb"`
	// LongListKB is the size from which a list is long, cached rather
	// than resident (docids and frequencies as encoded on the device).
	LongListKB int64 `yaml:"long_list_kb"`
}

// Default is the configuration used when no file is given; it matches
// configs/default.yaml (a test checks that they agree).
func Default() Config {
	return Config{
		Index: Index{
			DocIDCodec:     "fastpfor",
			FreqCodec:      "fastpfor",
			Order:          "url",
			Seed:           1,
			MemoryBudgetMB: 512,
			MaxDocBytes:    4 << 20,
			Oversize:       "truncate",
			Store:          "text",
			Positions:      true,
			Merge:          Merge{Policy: "tiered", SegmentsPerTier: 2, TierRatio: 8, FloorShare: 0.1, MaxDeletedShare: 0.1, MaxMergeDocs: 4_000_000},
		},
		BM25:   bm25.DefaultParams(),
		Search: Search{Mode: "andor", K: 10, Engine: "auto", SnippetBytes: 160, SnippetWorkers: 1},
		Server: Server{
			Addr:              "127.0.0.1:8080",
			Index:             "index",
			MaxQueryBytes:     1024,
			MaxTerms:          32,
			MaxK:              1000,
			MaxBodyBytes:      1 << 20,
			MaxDocumentBytes:  1 << 20,
			Timeout:           5 * time.Second,
			ShutdownTimeout:   10 * time.Second,
			CacheEntries:      10000,
			IndexMemory:       "auto",
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    64 << 10,
			Hosts:             []string{},
			AccessLog:         true,
			BitmapCacheMB:     256,
			Policy:            "hybrid",
			Deadline:          500 * time.Millisecond,
			GCPercent:         400,
			MsearchMaxLines:   1000,
			MsearchMaxBytes:   1 << 20,
			WatchInterval:     2 * time.Second,
		},
		GPU:     GPU{Devices: []int{0}, MemoryBudgetMB: 0, Batch: 128, Workers: 3, Wait: "auto", CachePolicy: "lru", LongListKB: 64},
		Cluster: Cluster{Endpoints: []string{}, Prefix: "/gpusearch", LeaseTTL: 5 * time.Second, DialTimeout: 2 * time.Second},
		Broker: Broker{Addr: "127.0.0.1:8090", ShardTimeout: 2 * time.Second, Hedge: true, HedgeMin: time.Millisecond,
			DownFor: time.Second, CacheEntries: 10000, MaxConnsPerReplica: 256},
	}
}

// Load reads a YAML file over Default; an empty path gives Default.
func Load(path string) (Config, error) {
	c := Default()
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if err := Parse(data, &c); err != nil {
		return c, fmt.Errorf("config: %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes YAML into c, keeping c's values for absent keys and
// rejecting unknown keys, then validates the result.
func Parse(data []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return c.Validate()
}

// Validate checks values that have a fixed set of choices or a range.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(oneOf(c.Index.Order, "url", "crawl", "random"), "index.order %q: want url, crawl or random", c.Index.Order)
	check(oneOf(c.Index.Oversize, "truncate", "skip"), "index.oversize %q: want truncate or skip", c.Index.Oversize)
	check(c.Index.MemoryBudgetMB > 0, "index.memory_budget_mb must be positive")
	check(oneOf(c.Index.Merge.Policy, "tiered", "off"), "index.merge.policy %q: want tiered or off", c.Index.Merge.Policy)
	check(c.Index.Merge.SegmentsPerTier >= 2, "index.merge.segments_per_tier must be at least 2")
	check(c.Index.Merge.TierRatio > 1, "index.merge.tier_ratio must be above 1")
	check(c.Index.Merge.FloorShare >= 0 && c.Index.Merge.FloorShare < 1, "index.merge.floor_share must be in [0, 1)")
	check(c.Index.Merge.MaxDeletedShare > 0 && c.Index.Merge.MaxDeletedShare <= 1, "index.merge.max_deleted_share must be in (0, 1]")
	check(c.Index.Merge.MaxMergeDocs > 0, "index.merge.max_merge_docs must be positive")
	check(c.Index.MaxDocBytes > 0, "index.max_doc_bytes must be positive")
	check(oneOf(c.Index.Store, "none", "titles", "text"), "index.store %q: want none, titles or text", c.Index.Store)
	check(c.Index.TitleWeight >= 0 && int(c.Index.TitleWeight) <= bm25.MaxTitleWeight, "index.title_weight=%d: want an integer from 0 (plain BM25) to %d", c.Index.TitleWeight, bm25.MaxTitleWeight)
	check(c.Server.MaxDocumentBytes > 0, "server.max_document_bytes must be positive")
	check(c.Index.Workers >= 0, "index.workers must be >= 0 (0 = every core)")
	check(c.BM25.K1 > 0 && c.BM25.B >= 0 && c.BM25.B <= 1, "bm25: need k1 > 0 and 0 <= b <= 1")
	check(oneOf(c.Search.Mode, "and", "or", "andor"), "search.mode %q: want and, or or andor", c.Search.Mode)
	check(c.Search.K > 0, "search.k must be positive")
	// Engine names live in package query's registry, which config may not
	// import: api.New checks the name against it.
	check(c.Search.Engine != "", "search.engine is empty: want auto or an engine name")
	check(c.Search.SnippetBytes >= 0 && c.Search.SnippetBytes <= 4096, "search.snippet_bytes=%d: want 0 (no snippets) to 4096", c.Search.SnippetBytes)
	check(c.Search.SnippetWorkers >= 0 && c.Search.SnippetWorkers <= 1024, "search.snippet_workers=%d: want 0 (one per core) to 1024", c.Search.SnippetWorkers)
	check(c.Server.MaxQueryBytes > 0 && c.Server.MaxTerms > 0 && c.Server.MaxK > 0 && c.Server.MaxBodyBytes > 0,
		"server limits must be positive")
	check(c.Server.Timeout > 0, "server.timeout must be positive")
	check(c.Server.ReadHeaderTimeout > 0 && c.Server.ReadTimeout > 0 && c.Server.IdleTimeout > 0,
		"server.read_header_timeout, read_timeout and idle_timeout must be positive")
	check(c.Server.WriteTimeout > c.Server.Timeout,
		"server.write_timeout (%s) must be longer than server.timeout (%s), or answers are cut", c.Server.WriteTimeout, c.Server.Timeout)
	check(c.Server.MaxHeaderBytes > 0, "server.max_header_bytes must be positive")
	check(oneOf(c.Server.IndexMemory, "auto", "mapped", "huge"), "server.index_memory %q: want auto, mapped or huge", c.Server.IndexMemory)
	errs = append(errs, c.Server.validateAdmin())
	check(oneOf(c.Server.Policy, "cpu", "gpu", "best", "hybrid"), "server.policy %q: want cpu, gpu, best or hybrid", c.Server.Policy)
	check(c.Server.Deadline > 0, "server.deadline must be positive")
	check(c.Server.WatchInterval >= 0, "server.watch_interval must not be negative (0 turns the watch off)")
	check(c.Server.GCPercent >= 0, "server.gc_percent must be >= 0 (0 = the Go runtime's)")
	check(c.Server.MsearchMaxLines > 0 && c.Server.MsearchMaxBytes > 0, "server.msearch_max_lines and msearch_max_bytes must be positive")
	errs = append(errs, c.GPU.Validate(), c.Cluster.validate(), c.Broker.validate())
	return errors.Join(errs...)
}

// validate checks the cluster section.
func (c Cluster) validate() error {
	var errs []error
	if !strings.HasPrefix(c.Prefix, "/") || strings.HasSuffix(c.Prefix, "/") {
		errs = append(errs, fmt.Errorf("cluster.prefix %q: want /name, without a trailing slash", c.Prefix))
	}
	if c.LeaseTTL < time.Second {
		errs = append(errs, fmt.Errorf("cluster.lease_ttl %s: want at least 1s", c.LeaseTTL))
	}
	if c.DialTimeout <= 0 {
		errs = append(errs, errors.New("cluster.dial_timeout must be positive"))
	}
	for _, e := range c.Endpoints {
		if u, err := url.Parse(e); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("cluster.endpoints: %q: want http://host:port", e))
		}
	}
	if u, err := url.Parse(c.AdvertiseURL); c.AdvertiseURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		errs = append(errs, fmt.Errorf("cluster.advertise_url %q: want http://host:port", c.AdvertiseURL))
	}
	return errors.Join(errs...)
}

// validate checks the broker section.
func (b Broker) validate() error {
	var errs []error
	if b.ShardTimeout <= 0 {
		errs = append(errs, errors.New("broker.shard_timeout must be positive"))
	}
	if b.HedgeMin < 0 || b.DownFor < 0 {
		errs = append(errs, errors.New("broker.hedge_min and broker.down_for must not be negative"))
	}
	if b.CacheEntries < 0 {
		errs = append(errs, errors.New("broker.cache_entries must not be negative (0 turns the cache off)"))
	}
	if b.MaxConnsPerReplica <= 0 {
		errs = append(errs, errors.New("broker.max_conns_per_replica must be positive"))
	}
	return errors.Join(errs...)
}

// MinAdminToken is the shortest admin token accepted, in bytes: shorter
// ones can be guessed.
const MinAdminToken = 16

// validateAdmin checks that a served admin route has exactly one token
// source, and that a token given inline is long enough.
func (s Server) validateAdmin() error {
	switch {
	case s.AdminToken != "" && s.AdminTokenFile != "":
		return errors.New("server.admin_token and server.admin_token_file: give one, not both")
	case s.AdminToken != "" && len(s.AdminToken) < MinAdminToken:
		return fmt.Errorf("server.admin_token is %d bytes: want at least %d", len(s.AdminToken), MinAdminToken)
	case s.AdminReload && s.AdminToken == "" && s.AdminTokenFile == "":
		return errors.New("server.admin_reload needs server.admin_token_file or server.admin_token: admin requests must carry a token")
	}
	return nil
}

// Validate checks the GPU section's values.
func (g GPU) Validate() error {
	var errs []error
	if g.Batch <= 0 {
		errs = append(errs, errors.New("gpu.batch must be positive"))
	}
	if g.Workers <= 0 {
		errs = append(errs, errors.New("gpu.workers must be positive"))
	}
	if g.Window < 0 || g.Window > time.Second {
		errs = append(errs, fmt.Errorf("gpu.window %s: want 0 (no waiting) to 1s", g.Window))
	}
	if !oneOf(g.Wait, "auto", "spin", "yield", "block") {
		errs = append(errs, fmt.Errorf("gpu.wait %q: want auto, spin, yield or block", g.Wait))
	}
	if !oneOf(g.CachePolicy, "lru", "lfu") {
		errs = append(errs, fmt.Errorf("gpu.cache_policy %q: want lru or lfu", g.CachePolicy))
	}
	if g.CacheMB < 0 || g.MemoryBudgetMB < 0 {
		errs = append(errs, errors.New("gpu.cache_mb and gpu.memory_budget_mb must not be negative"))
	}
	if g.LongListKB <= 0 {
		errs = append(errs, errors.New("gpu.long_list_kb must be positive"))
	}
	return errors.Join(errs...)
}

func oneOf(s string, choices ...string) bool {
	for _, c := range choices {
		if s == c {
			return true
		}
	}
	return false
}
