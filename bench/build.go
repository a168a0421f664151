package bench

import (
	"path/filepath"
	"syscall"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/gen"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// IndexSummary is what index --json and bench index print: the build
// report with the index's size, bits per posting, speeds and peak memory.
type IndexSummary struct {
	indexer.Report
	IndexBytes     int64   `json:"index_bytes"`
	BitsPerDocID   float64 `json:"bits_per_docid"`
	BitsPerFreq    float64 `json:"bits_per_freq"`
	DocsPerSec     float64 `json:"docs_per_sec"`
	InputMBPerSec  float64 `json:"input_mb_per_sec"`
	PeakRSSMB      float64 `json:"peak_rss_mb"`
	MemoryBudgetMB int64   `json:"memory_budget_mb"`
	Seconds        float64 `json:"seconds"`
}

// SummarizeIndex summarizes a build of the index in dir.
func SummarizeIndex(rep indexer.Report, dir string) IndexSummary {
	s := IndexSummary{Report: rep, Seconds: rep.Elapsed.Seconds(), PeakRSSMB: peakRSSMB()}
	if m, err := index.ReadMeta(dir); err == nil {
		s.IndexBytes, s.BitsPerDocID, s.BitsPerFreq = m.Bytes(), m.BitsPerDocID(), m.BitsPerFreq()
	}
	if sec := rep.Elapsed.Seconds(); sec > 0 {
		s.DocsPerSec = float64(rep.Documents) / sec
		s.InputMBPerSec = float64(rep.InputBytes) / 1e6 / sec
	}
	return s
}

// GenSummary is what gen index --json prints: the generation report with
// the index's size, bits per posting and peak memory.
type GenSummary struct {
	gen.Report
	IndexBytes   int64   `json:"index_bytes"`
	BitsPerDocID float64 `json:"bits_per_docid"`
	BitsPerFreq  float64 `json:"bits_per_freq"`
	PeakRSSMB    float64 `json:"peak_rss_mb"`
	Order        string  `json:"order"`
	Codec        string  `json:"codec"`
}

// SummarizeGen summarizes a generation of the index in dir, or of the
// sharded collection there: its shards' sizes added up, bits per
// posting over all of their postings.
func SummarizeGen(rep gen.Report, dir string) GenSummary {
	s := GenSummary{Report: rep, PeakRSSMB: peakRSSMB()}
	if len(rep.Shards) == 0 {
		if m, err := index.ReadMeta(dir); err == nil {
			s.IndexBytes, s.BitsPerDocID, s.BitsPerFreq = m.Bytes(), m.BitsPerDocID(), m.BitsPerFreq()
			s.Order, s.Codec = m.Order, m.DocIDCodec
		}
		return s
	}
	var postings uint64
	var docBits, freqBits float64
	for _, sh := range rep.Shards {
		m, err := index.ReadMeta(filepath.Join(dir, sh.Dir))
		if err != nil {
			return s
		}
		s.IndexBytes += m.Bytes()
		docBits += m.BitsPerDocID() * float64(m.Postings)
		freqBits += m.BitsPerFreq() * float64(m.Postings)
		postings += m.Postings
		s.Order, s.Codec = m.Order, m.DocIDCodec
	}
	if postings > 0 {
		s.BitsPerDocID, s.BitsPerFreq = docBits/float64(postings), freqBits/float64(postings)
	}
	return s
}

// CompressSummary is what compress --json prints: the corpus's
// description, its size against the text's and the words', plain and
// gzipped, and the documents the crawl walk left out.
type CompressSummary struct {
	analytics.Meta
	CompressedBytes  int64   `json:"compressed_bytes"`
	RatioText        float64 `json:"ratio_vs_text"`
	RatioGzipText    float64 `json:"ratio_vs_gzip_text"`
	RatioWords       float64 `json:"ratio_vs_words"`
	RatioGzipWords   float64 `json:"ratio_vs_gzip_words"`
	UnreadableDocs   int     `json:"unreadable_documents"`
	UnsupportedFiles int     `json:"unsupported_files"`
}

// SummarizeCompress summarizes a compression of a crawl into m.
func SummarizeCompress(m analytics.Meta, rep analytics.CompressReport) CompressSummary {
	b := m.CompressedBytes()
	return CompressSummary{
		Meta: m, CompressedBytes: b,
		RatioText: ratio(m.TextBytes, b), RatioGzipText: ratio(m.GzipTextBytes, b),
		RatioWords: ratio(m.WordTextBytes, b), RatioGzipWords: ratio(m.GzipWordBytes, b),
		UnreadableDocs: rep.Unreadable, UnsupportedFiles: rep.Walk.Unsupported.Count,
	}
}

// ratio is a over b, 0 when b is.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// peakRSSMB is the process's peak resident memory in MB (0 where it
// cannot be read).
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// ShardsSummary is what index --shards --json and split --json print:
// the build's summary (for split, of the split alone) over all the
// shards, and each shard's.
type ShardsSummary struct {
	IndexSummary
	Collection      string         `json:"collection"`
	Shards          []ShardSummary `json:"shards"`
	CollectionBytes int64          `json:"collection_bytes"` // every shard's collection.bin
	SplitSeconds    float64        `json:"split_seconds"`
}

// ShardSummary is one shard of a ShardsSummary.
type ShardSummary struct {
	Dir             string `json:"dir"`
	FirstDoc        uint32 `json:"first_doc"`
	Docs            uint64 `json:"docs"`
	Terms           uint64 `json:"terms"`
	Bytes           int64  `json:"bytes"`
	CollectionBytes int64  `json:"collection_bytes"`
}

// SummarizeShards summarizes a sharded build or split: sizes and bits
// per posting over all the shards.
func SummarizeShards(rep indexer.ShardsReport) ShardsSummary {
	s := ShardsSummary{IndexSummary: IndexSummary{Report: rep.Report, Seconds: rep.Elapsed.Seconds(), PeakRSSMB: peakRSSMB()},
		Collection: rep.Manifest.Collection, SplitSeconds: rep.Split.Seconds()}
	var postings uint64
	var docBits, freqBits float64
	for j, m := range rep.Shards {
		sh := ShardSummary{Docs: m.Docs, Terms: m.Terms, Bytes: m.Bytes(), CollectionBytes: m.Files["collection.bin"].Size}
		if j < len(rep.Manifest.Shards) {
			sh.Dir, sh.FirstDoc = rep.Manifest.Shards[j].Dir, rep.Manifest.Shards[j].FirstDoc
		}
		s.Shards = append(s.Shards, sh)
		s.IndexBytes += sh.Bytes
		s.CollectionBytes += sh.CollectionBytes
		postings += m.Postings
		docBits += m.BitsPerDocID() * float64(m.Postings)
		freqBits += m.BitsPerFreq() * float64(m.Postings)
	}
	s.Postings, s.Documents = postings, int(rep.Manifest.Docs)
	if postings > 0 {
		s.BitsPerDocID, s.BitsPerFreq = docBits/float64(postings), freqBits/float64(postings)
	}
	if sec := rep.Elapsed.Seconds(); sec > 0 {
		s.DocsPerSec = float64(rep.Documents) / sec
		s.InputMBPerSec = float64(rep.InputBytes) / 1e6 / sec
	}
	return s
}
