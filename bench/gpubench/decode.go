// Package gpubench holds the GPU benchmarks behind gpusearch bench gpu:
// decoding (Decode) and query processing (Queries). In a build without
// CUDA they fail as the gpu package does, with gpu.ErrNoCUDA.
package gpubench

import (
	"cmp"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/gpuformat" // the GPU formats
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
)

// DecodeOptions are bench gpu decode's settings.
type DecodeOptions struct {
	Index          string   // also decode this index's columns
	Codecs         []string // formats to measure
	MinLog, MaxLog int      // synthetic lists of 2^MinLog to 2^MaxLog integers
	Repeats        int      // timed GPU samples per measurement (the median is reported)
	CPURepeats     int      // timed CPU decodes per measurement
	Seed           uint64   // of the synthetic lists
	Device         int      // CUDA device ordinal
	MemoryBudgetMB int64
	CopyMB         int64 // size of the copy that measures bandwidth
	TopLists       int   // with Index: also decode the longest lists, one launch each
	Progress       io.Writer
}

// DecodeReport is bench gpu decode's JSON.
type DecodeReport struct {
	Device    gpu.DeviceInfo `json:"device"`
	PTX       string         `json:"ptx"`
	Bandwidth Bandwidth      `json:"bandwidth"`
	Results   []DecodeResult `json:"results"`
	Index     []DecodeResult `json:"index,omitempty"`
	Notes     []string       `json:"notes"`
	Elapsed   float64        `json:"elapsed_s"`
}

// Bandwidth is the device's measured copy bandwidth, the bound a decode
// is held against.
type Bandwidth struct {
	CopyBytes  int64   `json:"copy_bytes"`
	MemcpyGBs  float64 `json:"memcpy_gbs"`
	KernelGBs  float64 `json:"kernel_copy_gbs"`
	BoundGBs   float64 `json:"bound_gbs"`
	PeakGBs    float64 `json:"peak_gbs"`
	L2Bytes    int64   `json:"l2_bytes"`
	RotateMinB int64   `json:"rotation_min_bytes"`
}

// DecodeResult is one format decoding one list or column to one output.
type DecodeResult struct {
	Codec     string  `json:"codec"`
	Dataset   string  `json:"dataset"`
	Log2N     int     `json:"log2_n,omitempty"`
	Values    int     `json:"values"`
	Output    string  `json:"output"` // docids or gaps
	BPI       float64 `json:"bpi"`
	GPUms     float64 `json:"gpu_ms"`
	GPUMis    float64 `json:"gpu_mis"`
	CPUMis    float64 `json:"cpu_mis"`
	Speedup   float64 `json:"speedup"`
	Bytes     int64   `json:"bytes_moved"`
	GBs       float64 `json:"gbs"`
	Fraction  float64 `json:"bandwidth_fraction"`
	BoundMis  float64 `json:"bound_mis"`
	Rotations int     `json:"rotations"`
	Launches  int     `json:"launches_per_sample"`
}

// Decode measures GPU decoding of the first paper's Uniform lists, and of
// an index's columns with o.Index, against the device's copy bandwidth
// and the CPU's reference decoders.
func Decode(o DecodeOptions) (*DecodeReport, error) {
	began := time.Now()
	logw := progressTo(o.Progress)
	d, err := gpu.OpenDevice(gpu.DeviceOptions{Ordinal: o.Device, MemoryBudgetMB: o.MemoryBudgetMB})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	info := d.Info()
	rep := &DecodeReport{Device: info, PTX: d.PTXSource(), Notes: []string{
		"gpu_ms: median device time of one decode (CUDA events around back-to-back launches over rotating input and output buffers, divided by launches)",
		"bytes_moved: encoded blocks + per-block offsets, counts and bases read, plus 4 bytes per value written; gbs = bytes_moved / gpu time",
		"bandwidth_fraction = gbs / bound_gbs, bound_gbs = the faster of cuMemcpyDtoD and a 16-byte-load copy kernel, counting bytes read + written",
		"cpu_mis: the same format's CPU reference decoder (codec DecodeBlock per block, plus the block prefix sums for docids), one core, median",
		"bpi: bits per integer of the encoded blocks alone; the offsets live in the index's skip table",
	}}
	fmt.Fprintf(logw, "bench gpu decode: %s (%d SMs, L2 %d MB), kernels from %s\n", info.Name, info.SMs, info.L2Bytes>>20, rep.PTX)
	if rep.Bandwidth, err = measureBandwidth(d, o); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "copy bandwidth: memcpy %.0f GB/s, kernel %.0f GB/s (read+write)\n", rep.Bandwidth.MemcpyGBs, rep.Bandwidth.KernelGBs)
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	for lg := o.MinLog; lg <= o.MaxLog; lg++ {
		list := uniformList(rng, 1<<lg, 1<<29)
		for _, name := range o.Codecs {
			c, err := codecplugins.Lookup(name)
			if err != nil {
				return nil, err
			}
			h := gpu.EncodeList(c, list)
			rs, err := benchColumn(d, o, rep.Bandwidth, &h, []gpu.Output{gpu.DocIDs, gpu.Gaps})
			if err != nil {
				return nil, fmt.Errorf("bench gpu decode: %s 2^%d: %w", name, lg, err)
			}
			for _, r := range rs {
				r.Dataset, r.Log2N = "uniform", lg
				rep.Results = append(rep.Results, r)
				fmt.Fprintf(logw, "  %-14s 2^%d %-6s %10.0f M ints/s GPU (%4.1f%% of bound), %6.0f CPU\n", name, lg, r.Output, r.GPUMis, 100*r.Fraction, r.CPUMis)
			}
		}
	}
	if o.Index != "" {
		if rep.Index, err = benchIndex(d, o, rep.Bandwidth, logw); err != nil {
			return nil, err
		}
	}
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
}

// measureBandwidth times a large device-to-device copy, by the driver and
// by a kernel, and takes the faster as the bound.
func measureBandwidth(d *gpu.Device, o DecodeOptions) (Bandwidth, error) {
	info := d.Info()
	n := o.CopyMB << 20
	bw := Bandwidth{CopyBytes: n, PeakGBs: info.PeakGBs, L2Bytes: info.L2Bytes, RotateMinB: rotationBytes(info)}
	src, err := d.Alloc(n)
	if err != nil {
		return bw, err
	}
	defer src.Free()
	dst, err := d.Alloc(n)
	if err != nil {
		return bw, err
	}
	defer dst.Free()
	if err := src.Fill32(0x5a5a5a5a); err != nil {
		return bw, err
	}
	for _, kernel := range []bool{false, true} {
		var times []time.Duration
		for i := range o.Repeats + 2 {
			t, err := d.TimeCopy(dst, src, n, kernel)
			if err != nil {
				return bw, err
			}
			if i >= 2 { // two warm-up copies
				times = append(times, t)
			}
		}
		gbs := 2 * float64(n) / latency.Median(times).Seconds() / 1e9
		if kernel {
			bw.KernelGBs = gbs
		} else {
			bw.MemcpyGBs = gbs
		}
	}
	bw.BoundGBs = max(bw.MemcpyGBs, bw.KernelGBs)
	return bw, nil
}

// rotationBytes is how much input and output a timed sample cycles
// through: four times the L2 cache, so that no decode reads what the
// previous one left in L2.
func rotationBytes(info gpu.DeviceInfo) int64 { return 4 * max(info.L2Bytes, 8<<20) }

// benchColumn times the GPU and CPU decode of one column in each output.
func benchColumn(d *gpu.Device, o DecodeOptions, bw Bandwidth, h *gpu.HostColumn, outs []gpu.Output) ([]DecodeResult, error) {
	n := h.Values()
	nb := h.NumBlocks()
	outBytes := 4 * int64(nb) * int64(h.BlockSize)
	per := int64(len(h.Data)) + outBytes
	rot := int(min(1024, max(2, (bw.RotateMinB+per-1)/per)))
	var cols []*gpu.Column
	var outsBuf []*gpu.Buffer
	defer func() {
		for _, c := range cols {
			c.Free()
		}
		for _, b := range outsBuf {
			b.Free()
		}
	}()
	for range rot {
		c, err := d.UploadColumn(h)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
		b, err := d.Alloc(outBytes)
		if err != nil {
			return nil, err
		}
		outsBuf = append(outsBuf, b)
	}
	// At least 8 launches per sample, whole passes over the rotation.
	launches := rot * ((8 + rot - 1) / rot)
	moved := int64(len(h.Data)) + int64(nb)*(8+4+4) + 4*int64(n)
	var res []DecodeResult
	for _, out := range outs {
		jobs := make([]gpu.DecodeJob, launches)
		for i := range jobs {
			jobs[i] = gpu.DecodeJob{Col: cols[i%rot], Count: nb, Out: outsBuf[i%rot], Output: out}
		}
		if _, err := d.TimeDecodes(jobs); err != nil { // warm-up: JIT, first touch
			return nil, err
		}
		var times []time.Duration
		for range o.Repeats {
			t, err := d.TimeDecodes(jobs)
			if err != nil {
				return nil, err
			}
			times = append(times, t/time.Duration(launches))
		}
		t := latency.Median(times)
		cpu, err := cpuDecodeTime(h, out, o.CPURepeats)
		if err != nil {
			return nil, err
		}
		r := DecodeResult{
			Codec: h.Codec, Values: n, Output: out.String(), BPI: 8 * float64(len(h.Data)) / float64(max(n, 1)),
			GPUms: t.Seconds() * 1e3, GPUMis: float64(n) / t.Seconds() / 1e6, CPUMis: float64(n) / cpu.Seconds() / 1e6,
			Bytes: moved, GBs: float64(moved) / t.Seconds() / 1e9, Rotations: rot, Launches: launches,
		}
		r.Speedup = r.GPUMis / r.CPUMis
		r.Fraction = r.GBs / bw.BoundGBs
		r.BoundMis = bw.BoundGBs * 1e9 / (float64(moved) / float64(max(n, 1))) / 1e6
		res = append(res, r)
	}
	return res, nil
}

// cpuDecodeTime is the median time of the CPU reference decode of the
// whole column, one core.
func cpuDecodeTime(h *gpu.HostColumn, out gpu.Output, reps int) (time.Duration, error) {
	dst := make([]uint32, h.NumBlocks()*h.BlockSize)
	var times []time.Duration
	for range reps {
		start := time.Now()
		if err := h.Decode(dst, nil, out); err != nil {
			return 0, err
		}
		times = append(times, time.Since(start))
	}
	return latency.Median(times), nil
}

// benchIndex decodes a real index's columns: each whole column in one
// launch, and the longest lists one launch each (the first paper's Table 4
// decodes the lists of query terms, which are long).
func benchIndex(d *gpu.Device, o DecodeOptions, bw Bandwidth, logw io.Writer) ([]DecodeResult, error) {
	ix, err := index.Open(o.Index)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	dh, fh := gpu.IndexColumns(ix)
	var res []DecodeResult
	for _, c := range []struct {
		h    *gpu.HostColumn
		name string
		outs []gpu.Output
	}{{&dh, "index-docids", []gpu.Output{gpu.DocIDs, gpu.Gaps}}, {&fh, "index-freqs", []gpu.Output{gpu.Gaps}}} {
		if !gpu.Decodable(c.h.Codec) {
			fmt.Fprintf(logw, "  %s: codec %s has no GPU decoder, skipped (gpusearch convert --codec gpu-bp256)\n", c.name, c.h.Codec)
			continue
		}
		rs, err := benchColumn(d, o, bw, c.h, c.outs)
		if err != nil {
			return nil, fmt.Errorf("bench gpu decode: %s: %w", c.name, err)
		}
		for _, r := range rs {
			r.Dataset = c.name
			res = append(res, r)
			fmt.Fprintf(logw, "  %-14s %s %-6s %10.0f M ints/s GPU (%4.1f%% of bound), %6.0f CPU\n", r.Codec, c.name, r.Output, r.GPUMis, 100*r.Fraction, r.CPUMis)
		}
	}
	if !gpu.Decodable(dh.Codec) || o.TopLists <= 0 {
		return res, nil
	}
	r, err := benchTopLists(d, o, ix, &dh)
	if err != nil {
		return nil, err
	}
	res = append(res, r)
	fmt.Fprintf(logw, "  %-14s %s %-6s %10.0f M ints/s GPU, %6.0f CPU\n", r.Codec, r.Dataset, r.Output, r.GPUMis, r.CPUMis)
	return res, nil
}

// benchTopLists decodes the index's longest lists to docids, one launch
// per list, from the resident column.
func benchTopLists(d *gpu.Device, o DecodeOptions, ix *index.Index, dh *gpu.HostColumn) (DecodeResult, error) {
	terms := make([]index.TermInfo, ix.NumTerms())
	for i := range terms {
		terms[i] = ix.Term(i)
	}
	slices.SortFunc(terms, func(a, b index.TermInfo) int { return cmp.Compare(b.DF, a.DF) })
	terms = terms[:min(len(terms), o.TopLists)]
	col, err := d.UploadColumn(dh)
	if err != nil {
		return DecodeResult{}, err
	}
	defer col.Free()
	bs := ix.BlockSize()
	var jobs []gpu.DecodeJob
	var outs []*gpu.Buffer
	defer func() {
		for _, b := range outs {
			b.Free()
		}
	}()
	values, blocks := 0, 0
	for _, t := range terms {
		nb := t.NumBlocks(bs)
		b, err := d.Alloc(4 * int64(nb*bs))
		if err != nil {
			return DecodeResult{}, err
		}
		outs = append(outs, b)
		jobs = append(jobs, gpu.DecodeJob{Col: col, First: int(t.FirstBlock), Count: nb, Out: b, Output: gpu.DocIDs})
		values += int(t.DF)
		blocks += nb
	}
	if _, err := d.TimeDecodes(jobs); err != nil {
		return DecodeResult{}, err
	}
	var times []time.Duration
	for range o.Repeats {
		t, err := d.TimeDecodes(jobs)
		if err != nil {
			return DecodeResult{}, err
		}
		times = append(times, t)
	}
	t := latency.Median(times)
	// CPU: the same lists' blocks, decoded to docids.
	sel := make([]uint32, 0, blocks)
	for _, term := range terms {
		for b := range term.NumBlocks(bs) {
			sel = append(sel, term.FirstBlock+uint32(b))
		}
	}
	dst := make([]uint32, len(sel)*bs)
	var cpu []time.Duration
	for range o.CPURepeats {
		start := time.Now()
		if err := dh.Decode(dst, sel, gpu.DocIDs); err != nil {
			return DecodeResult{}, err
		}
		cpu = append(cpu, time.Since(start))
	}
	var enc uint64
	for _, b := range sel {
		enc += dh.Offsets[b+1] - dh.Offsets[b]
	}
	return DecodeResult{
		Codec: dh.Codec, Dataset: fmt.Sprintf("index-top%d-lists", len(terms)), Values: values, Output: "docids",
		BPI: 8 * float64(enc) / float64(max(values, 1)), GPUms: t.Seconds() * 1e3,
		GPUMis: float64(values) / t.Seconds() / 1e6, CPUMis: float64(values) / latency.Median(cpu).Seconds() / 1e6,
		Speedup: latency.Median(cpu).Seconds() / t.Seconds(), Launches: len(jobs),
	}, nil
}

// uniformList is the Uniform model of Anh and Moffat, as the first paper
// generates it: n distinct integers drawn uniformly from [0, universe),
// sorted.
func uniformList(rng *rand.Rand, n int, universe uint32) []uint32 {
	set := make([]uint64, (universe+63)/64)
	for k := 0; k < n; {
		x := rng.Uint32N(universe)
		if set[x/64]&(1<<(x%64)) == 0 {
			set[x/64] |= 1 << (x % 64)
			k++
		}
	}
	l := make([]uint32, 0, n)
	for i, w := range set {
		for w != 0 {
			l = append(l, uint32(64*i+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return l
}

// Print writes the results as the first paper's Table 3:
// one row per format and output, one column per list length, in millions
// of integers per second, then each longest list's share of the bound.
func (rep *DecodeReport) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s: copy bound %.0f GB/s (memcpy %.0f, kernel %.0f), M ints/s\t\n", rep.Device.Name, rep.Bandwidth.BoundGBs, rep.Bandwidth.MemcpyGBs, rep.Bandwidth.KernelGBs)
	var logs []int
	for _, r := range rep.Results {
		if !slices.Contains(logs, r.Log2N) {
			logs = append(logs, r.Log2N)
		}
	}
	head := []string{"format", "output", "bpi"}
	for _, l := range logs {
		head = append(head, fmt.Sprintf("2^%d", l))
	}
	head = append(head, "CPU@max", "x", "%bound")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	type key struct{ codec, out string }
	rows := map[key][]DecodeResult{}
	var order []key
	for _, r := range rep.Results {
		k := key{r.Codec, r.Output}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = append(rows[k], r)
	}
	for _, k := range order {
		rs := rows[k]
		last := rs[len(rs)-1]
		cells := []string{k.codec, k.out, fmt.Sprintf("%.2f", last.BPI)}
		for _, r := range rs {
			cells = append(cells, fmt.Sprintf("%.0f", r.GPUMis))
		}
		cells = append(cells, fmt.Sprintf("%.0f", last.CPUMis), fmt.Sprintf("%.0f", last.Speedup), fmt.Sprintf("%.0f%%", 100*last.Fraction))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	for _, r := range rep.Index {
		fmt.Fprintf(tw, "%s\t%s %s\t%.2f\tGPU %.0f\tCPU %.0f\tx%.0f\t\n", r.Codec, r.Dataset, r.Output, r.BPI, r.GPUMis, r.CPUMis, r.Speedup)
	}
	tw.Flush()
}
