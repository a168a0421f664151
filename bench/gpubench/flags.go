package gpubench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/bench/args"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// AddFlags declares bench gpu decode's flags on fs.
func (o *DecodeOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Index, "index", "", "also decode this index's docid and frequency columns (GPU codecs only)")
	fs.StringSliceVar(&o.Codecs, "codecs", []string{"gpu-bp128", "gpu-bp256", "gpu-vbyte128", "gpu-vbyte1024", "gpu-pfordelta", "gpu-rice"}, "formats to measure")
	fs.IntVar(&o.MinLog, "min-log", 16, "shortest synthetic list: 2^min-log integers")
	fs.IntVar(&o.MaxLog, "max-log", 25, "longest synthetic list: 2^max-log integers")
	fs.IntVar(&o.Repeats, "repeats", 11, "timed samples per measurement (the median is reported)")
	fs.IntVar(&o.CPURepeats, "cpu-repeats", 3, "timed CPU decodes per measurement (the median is reported)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the synthetic lists")
	fs.IntVar(&o.Device, "device", 0, "CUDA device ordinal (default: the config's first)")
	fs.Int64Var(&o.CopyMB, "copy-mb", 1024, "size of the device-to-device copy that measures bandwidth")
	fs.IntVar(&o.TopLists, "top-lists", 100, "with --index: also decode the longest lists, one launch each")
}

// Complete takes the config's memory budget and first device (unless
// --device is set in fs) and checks the sizes and formats.
func (o *DecodeOptions) Complete(fs *pflag.FlagSet, gc config.GPU) error {
	if !fs.Changed("device") && len(gc.Devices) > 0 {
		o.Device = gc.Devices[0]
	}
	if o.MinLog < 1 || o.MaxLog > 28 || o.MinLog > o.MaxLog || o.Repeats < 1 || o.CPURepeats < 1 {
		return errors.New("bench gpu decode: need 1 <= --min-log <= --max-log <= 28 and positive repeats")
	}
	for _, c := range o.Codecs {
		if !gpu.Decodable(c) {
			return fmt.Errorf("bench gpu decode: %q has no GPU decoder", c)
		}
	}
	o.MemoryBudgetMB = gc.MemoryBudgetMB
	return nil
}

// QueriesFlags are bench gpu queries' command line: the harness's
// options and what QueriesFlags.Run opens.
type QueriesFlags struct {
	QueriesOptions
	Index, Queries, Mode, CPUList, Batch string
	Device                               int
}

// AddFlags declares bench gpu queries' flags on fs.
func (f *QueriesFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Index, "index", "index", "index directory")
	fs.StringVar(&f.Queries, "queries", "", "queries file (required)")
	fs.StringVar(&f.Mode, "mode", "and,or", "comma-separated modes")
	fs.StringVar(&f.CPUList, "cpu", "exhaustive,bmw,daat", "comma-separated CPU engines to compare with")
	fs.StringVar(&f.Batch, "batch", "1,8,32,128", "comma-separated batch sizes for throughput")
	fs.IntVar(&f.K, "k", 10, "results per query")
	fs.IntVar(&f.Callers, "callers", 1, "goroutines calling SearchBatch at once in the throughput runs")
	fs.IntVar(&f.Device, "device", 0, "CUDA device ordinal")
	fs.StringVar(&f.TopK, "topk", "radix", "top-k method of single OR queries: radix (radix select) or tree (the paper's max tree)")
	fs.Int64Var(&f.BigPostings, "big-postings", 1000000, "a query is big when its lists hold more postings than this")
	fs.DurationVar(&f.MinTime, "min-time", time.Second, "least measured time per engine and mode")
	fs.BoolVar(&f.NoGraphs, "no-graphs", false, "launch every GPU kernel on its own instead of each run's launches as one CUDA graph")
}

// Complete checks the sizes and parses the lists.
func (f *QueriesFlags) Complete() error {
	if f.Queries == "" {
		return errors.New("bench gpu queries: --queries is required")
	}
	if f.K <= 0 || f.Callers <= 0 || f.MinTime < 0 || f.BigPostings < 0 {
		return errors.New("bench gpu queries: --k and --callers must be positive, --min-time and --big-postings not negative")
	}
	var err error
	if f.Batches, err = batchSizes(f.Batch); err != nil {
		return err
	}
	f.CPUNames = args.List(f.CPUList)
	for _, name := range f.CPUNames {
		if _, err := query.Lookup(name); err != nil {
			return err
		}
	}
	f.Modes, err = args.Modes(f.Mode)
	return err
}

// Run opens the index, the GPU engine and the CPU engines and measures.
func (f *QueriesFlags) Run(ctx context.Context) (*QueriesReport, error) {
	ix, err := index.Open(f.Index)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	e, err := gpu.NewEngine(ix, gpu.Options{Device: f.Device, TopK: f.TopK, NoGraphs: f.NoGraphs})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	o := f.QueriesOptions
	if o.Texts, err = args.Texts(f.Queries); err != nil {
		return nil, err
	}
	o.CPU = make([]query.Engine, len(o.CPUNames))
	for i, name := range o.CPUNames {
		if o.CPU[i], err = query.New(ix, name); err != nil {
			return nil, err
		}
	}
	rep, err := Queries(ctx, ix, e, o)
	if err != nil {
		return nil, err
	}
	rep.Device, rep.Index.Reencoded = e.Device(), e.Reencoded()
	if err := e.GraphsBroken(); err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the driver refused a CUDA graph, so the engine launched one kernel at a time: %v", err))
	}
	return rep, nil
}

// batchSizes parses --batch: positive sizes, comma-separated.
func batchSizes(s string) ([]int, error) {
	var out []int
	for _, f := range args.List(s) {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			return nil, fmt.Errorf("bench gpu queries: bad batch size %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// CacheFlags are bench gpu cache's command line.
type CacheFlags struct {
	CacheOptions
	Index, Queries, Mode, PolicyList, FractionList string
	Latency                                        bool
	Device                                         int
}

// AddFlags declares bench gpu cache's flags on fs.
func (f *CacheFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Index, "index", "index", "index directory")
	fs.StringVar(&f.Queries, "queries", "", "query log, one query a line, in order (required)")
	fs.StringVar(&f.Mode, "mode", "and,or", "comma-separated modes (and, or)")
	fs.IntVar(&f.K, "k", 10, "results per query")
	fs.StringVar(&f.PolicyList, "policies", strings.Join(gpu.CachePolicies, ","), "comma-separated cache policies")
	fs.StringVar(&f.FractionList, "fractions", "0.25,0.5,0.75,1", "cache sizes, as shares of the long lists' bytes (1: all of them, the hit rate's bound: misses are first uses)")
	fs.Float64Var(&f.Warmup, "warmup", 0.25, "share of the log that only warms the cache")
	fs.Int64Var(&f.LongListBytes, "long-list-bytes", gpu.DefaultLongListBytes, "a list of at least this many bytes (docids and frequencies) is long: cached")
	fs.BoolVar(&f.Latency, "latency", false, "also measure GPU engines' latency with each cache against a resident one (a cuda build and a GPU)")
	fs.IntVar(&f.Device, "device", 0, "CUDA device ordinal, with --latency")
}

// Complete checks the flags and parses the lists.
func (f *CacheFlags) Complete() error {
	if f.Queries == "" {
		return errors.New("bench gpu cache: --queries is required")
	}
	if f.K <= 0 || f.Warmup < 0 || f.Warmup >= 1 || f.LongListBytes <= 0 {
		return errors.New("bench gpu cache: --k and --long-list-bytes must be positive, --warmup in [0, 1)")
	}
	f.Policies = args.List(f.PolicyList)
	for _, p := range f.Policies {
		if !slices.Contains(gpu.CachePolicies, p) {
			return fmt.Errorf("bench gpu cache: unknown policy %q (want %s)", p, strings.Join(gpu.CachePolicies, ", "))
		}
	}
	f.Fractions = nil
	for _, s := range args.List(f.FractionList) {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x <= 0 || x > 1 {
			return fmt.Errorf("bench gpu cache: bad fraction %q (want (0, 1])", s)
		}
		f.Fractions = append(f.Fractions, x)
	}
	var err error
	if f.Modes, err = args.Modes(f.Mode); err != nil {
		return err
	}
	for _, m := range f.Modes {
		if m == query.AndOr {
			return errors.New("bench gpu cache: --mode and or or (andor's second pass depends on the first's answers)")
		}
	}
	return nil
}

// Run opens the index, simulates the caches on the log and, with
// --latency, measures GPU engines.
func (f *CacheFlags) Run(ctx context.Context) (*CacheReport, error) {
	ix, err := index.Open(f.Index)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	o := f.CacheOptions
	if o.Texts, err = args.Texts(f.Queries); err != nil {
		return nil, err
	}
	var dev *gpu.DeviceInfo
	if f.Latency {
		o.Open = func(policy string, cacheMB int64) (CacheEngine, error) {
			e, err := gpu.NewEngine(ix, gpu.Options{Device: f.Device, CachePolicy: policy, CacheMB: cacheMB,
				LongListBytes: f.LongListBytes})
			if err != nil {
				return nil, err
			}
			info := e.Device()
			dev = &info
			return e, nil
		}
	}
	rep, err := Cache(ctx, ix, o)
	if err != nil {
		return nil, err
	}
	rep.Device = dev
	return rep, nil
}

// MultiFlags are bench gpu multi's command line.
type MultiFlags struct {
	MultiOptions
	Index, Shards, Queries, Mode, Batch, DeviceList, SetupList string
	Devices                                                    []int
	setups                                                     []string
}

// The setups bench gpu multi knows.
const (
	SetupWhole        = "whole"       // the whole index on the first device
	SetupShardsOne    = "shards-1gpu" // every shard on the first device
	SetupShardsSpread = "shards"      // shard i on device i mod the devices
)

// AddFlags declares bench gpu multi's flags on fs.
func (f *MultiFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Index, "index", "", "the whole index (for the whole setup)")
	fs.StringVar(&f.Shards, "shards", "", "the same documents as a sharded collection (gpusearch split or index --shards)")
	fs.StringVar(&f.DeviceList, "devices", "0,1", "CUDA device ordinals: the first holds the whole index; shard i goes to the i-th mod their number")
	fs.StringVar(&f.SetupList, "setups", strings.Join([]string{SetupWhole, SetupShardsOne, SetupShardsSpread}, ","), "setups to measure, in order (the first is the others' reference): "+SetupWhole+", "+SetupShardsOne+", "+SetupShardsSpread)
	fs.StringVar(&f.Queries, "queries", "", "queries file (required)")
	fs.StringVar(&f.Mode, "mode", "and,or", "comma-separated modes")
	fs.IntVar(&f.K, "k", 10, "results per query")
	fs.StringVar(&f.Batch, "batch", "1,32,256,2048", "comma-separated batch sizes for throughput")
	fs.IntVar(&f.Callers, "callers", 3, "goroutines calling SearchBatch at once (the scheduler's GPU workers)")
	fs.DurationVar(&f.Deadline, "deadline", 500*time.Millisecond, "a batch size counts when its slowest batch finished within this")
	fs.DurationVar(&f.MinTime, "min-time", time.Second, "least measured time per batch size")
}

// Complete checks the flags and parses the lists.
func (f *MultiFlags) Complete() error {
	if f.Queries == "" {
		return errors.New("bench gpu multi: --queries is required")
	}
	if f.K <= 0 || f.Callers <= 0 || f.Deadline <= 0 || f.MinTime < 0 {
		return errors.New("bench gpu multi: --k, --callers and --deadline must be positive, --min-time not negative")
	}
	var err error
	if f.Batches, err = batchSizes(f.Batch); err != nil {
		return err
	}
	f.Devices = nil
	for _, s := range args.List(f.DeviceList) {
		d, err := strconv.Atoi(s)
		if err != nil || d < 0 {
			return fmt.Errorf("bench gpu multi: bad device %q", s)
		}
		f.Devices = append(f.Devices, d)
	}
	if len(f.Devices) == 0 {
		return errors.New("bench gpu multi: --devices names no device")
	}
	f.setups = args.List(f.SetupList)
	for _, s := range f.setups {
		switch s {
		case SetupWhole:
			if f.Index == "" {
				return errors.New("bench gpu multi: the whole setup needs --index")
			}
		case SetupShardsOne, SetupShardsSpread:
			if f.Shards == "" {
				return fmt.Errorf("bench gpu multi: the %s setup needs --shards", s)
			}
		default:
			return fmt.Errorf("bench gpu multi: unknown setup %q", s)
		}
	}
	if len(f.setups) == 0 {
		return errors.New("bench gpu multi: --setups names no setup")
	}
	f.Modes, err = args.Modes(f.Mode)
	return err
}

// Run opens the index and the shards and measures each setup's GPU
// engines (registered as "gpu": a cuda build).
func (f *MultiFlags) Run(ctx context.Context) (*MultiReport, error) {
	var whole *index.Index
	var shards []*index.Index
	var err error
	if f.Index != "" {
		if whole, err = index.Open(f.Index); err != nil {
			return nil, err
		}
		defer whole.Close()
	}
	if f.Shards != "" {
		if shards, _, err = index.OpenSharded(f.Shards); err != nil {
			return nil, err
		}
		defer func() {
			for _, s := range shards {
				s.Close()
			}
		}()
	}
	o := f.MultiOptions
	if o.Texts, err = args.Texts(f.Queries); err != nil {
		return nil, err
	}
	for _, name := range f.setups {
		s := MultiSetup{Name: name}
		switch name {
		case SetupWhole:
			s.Shards, s.Devices = 1, f.Devices[:1]
			s.Open = func() (query.BatchEngine, error) {
				return batchEngine(query.Open(whole, "gpu", query.Options{GPU: query.GPUOptions{Device: f.Devices[0]}}))
			}
		case SetupShardsOne, SetupShardsSpread:
			devices := f.Devices
			if name == SetupShardsOne {
				devices = f.Devices[:1]
			}
			s.Shards, s.Devices = len(shards), devices
			s.Open = func() (query.BatchEngine, error) {
				return batchEngine(query.OpenSharded(shards, "gpu", query.Options{GPU: query.GPUOptions{Devices: devices}}))
			}
		}
		o.Setups = append(o.Setups, s)
	}
	ix := whole
	if ix == nil {
		ix = shards[0]
	}
	return Multi(ctx, ix, o)
}

// batchEngine is e as a query.BatchEngine, or an error.
func batchEngine(e query.Engine, err error) (query.BatchEngine, error) {
	if err != nil {
		return nil, err
	}
	be, ok := e.(query.BatchEngine)
	if !ok {
		closeEngine(e)
		return nil, fmt.Errorf("bench gpu multi: engine %T answers no batches", e)
	}
	return be, nil
}
