package query

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// ErrNoGPU reports that a GPU engine was asked for where no GPU or CUDA
// build is available. Packages that provide GPU engines wrap it, so callers
// test for it with errors.Is without importing them.
var ErrNoGPU = errors.New("no GPU available")

// Needs are what an engine needs besides an index.
type Needs struct {
	// GPU: a GPU and a CUDA build, placed by Options.GPU. Without them
	// Open fails with an error that wraps ErrNoGPU.
	GPU bool
	// Cache: memory for a cache that outlives queries, bounded by
	// Options.CacheBytes.
	Cache bool
}

// Options configure the engine Open makes; an engine reads the fields its
// Needs name.
type Options struct {
	// CacheBytes bounds an engine's cache (Needs.Cache); 0 caches nothing.
	CacheBytes int64
	// GPU places an engine that needs a GPU.
	GPU GPUOptions
}

// GPUOptions place a GPU engine.
type GPUOptions struct {
	Device         int    // CUDA device ordinal
	MemoryBudgetMB int64  // device memory the engine may use; 0: all free memory
	Wait           string // how the host waits for the device: auto, spin, yield or block
	// CachePolicy is the list cache's policy (lru or lfu) when the index
	// does not fit the budget; CacheMB, when positive, turns the cache on
	// with that size whatever the budget.
	CachePolicy string
	CacheMB     int64
	// LongListKB is the size from which a list is long (cached); 0: the
	// engine's default.
	LongListKB int64
	// Devices, when set, places the engines of a sharded collection
	// (OpenSharded): shard i's on Devices[i % len(Devices)], Device
	// otherwise.
	Devices []int
}

// DefaultOptions are the options New opens engines with: a
// DefaultBitmapCacheBytes cache, device 0.
var DefaultOptions = Options{CacheBytes: DefaultBitmapCacheBytes}

// Driver makes one kind of engine over an index.
type Driver struct {
	Needs Needs
	Open  func(ix *index.Index, o Options) (Engine, error)
}

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes d available under name. It panics if name is empty or
// taken or d has no Open, as database/sql's Register does: registration
// happens in init functions, where a clash is a programming error.
func Register(name string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if name == "" || d.Open == nil {
		panic(fmt.Sprintf("query: Register(%q) without a name or an Open", name))
	}
	if _, dup := drivers[name]; dup {
		panic(fmt.Sprintf("query: Register called twice for engine %q", name))
	}
	drivers[name] = d
}

// Engines returns the names of the registered engines, sorted.
func Engines() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	names := make([]string, 0, len(drivers))
	for name := range drivers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the driver registered under name, or an error that lists
// the known names.
func Lookup(name string) (Driver, error) {
	driversMu.RLock()
	d, ok := drivers[name]
	driversMu.RUnlock()
	if !ok {
		return Driver{}, fmt.Errorf("query: unknown engine %q (known: %s)", name, strings.Join(Engines(), ", "))
	}
	return d, nil
}

// Open makes the engine registered under name over ix, with o. Over a
// segmented index (ix.Segments) it opens the engine on each segment and
// merges their answers (Segmented); over GPU engines the result also
// answers batches and reports the devices' usage.
func Open(ix *index.Index, name string, o Options) (Engine, error) {
	d, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if ix.Segments() != nil {
		return openSegmented(ix, name, d, o)
	}
	return d.Open(ix, o)
}

// New makes the engine registered under name over ix, with DefaultOptions.
func New(ix *index.Index, name string) (Engine, error) {
	return Open(ix, name, DefaultOptions)
}

// DeviceUsage accounts for an engine's runs on its device: each run is
// one launch sequence, ending in the download of its results.
type DeviceUsage struct {
	Runs int64
	// Held is the host's time inside runs.
	Held time.Duration
	// Busy is the device's time from each run's first operation to the
	// start of its last download. Runs on different streams overlap, so
	// Busy (and Held) can exceed the wall time.
	Busy time.Duration
	// ListCache counts the list cache of an engine that streams long lists
	// under a memory budget; zero without one.
	ListCache ListCacheUsage
}

// ListCacheUsage counts a GPU list cache's accesses to long lists: those
// found on the device, those copied in (and their bytes), and evictions.
type ListCacheUsage struct {
	On                                     bool // the engine has a list cache
	Hits, Misses, StreamedBytes, Evictions int64
}

// Add returns the sum of u and o, field by field.
func (u DeviceUsage) Add(o DeviceUsage) DeviceUsage {
	u.Runs += o.Runs
	u.Held += o.Held
	u.Busy += o.Busy
	u.ListCache.On = u.ListCache.On || o.ListCache.On
	u.ListCache.Hits += o.ListCache.Hits
	u.ListCache.Misses += o.ListCache.Misses
	u.ListCache.StreamedBytes += o.ListCache.StreamedBytes
	u.ListCache.Evictions += o.ListCache.Evictions
	return u
}

// A DeviceEngine is an engine that runs on a device and accounts for its
// runs there.
type DeviceEngine interface {
	Engine
	DeviceUsage() DeviceUsage
}
