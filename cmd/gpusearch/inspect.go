package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/index"
)

func init() { subcommands = append(subcommands, newInspectCmd) }

// inspection is what `inspect --json` prints.
type inspection struct {
	Dir          string           `json:"dir"`
	Version      int              `json:"version"`
	Documents    uint64           `json:"documents"`
	Terms        uint64           `json:"terms"`
	Postings     uint64           `json:"postings"`
	Blocks       uint64           `json:"blocks"`
	BlockSize    int              `json:"block_size"`
	Bytes        int64            `json:"bytes"`
	FileBytes    map[string]int64 `json:"file_bytes"`
	BitsPerDocID float64          `json:"bits_per_docid"`
	BitsPerFreq  float64          `json:"bits_per_freq"`
	DocIDCodec   string           `json:"docid_codec"`
	FreqCodec    string           `json:"freq_codec"`
	Order        string           `json:"order"`
	AvgDocLength float64          `json:"avg_doc_length"`
	K1           float32          `json:"k1"`
	B            float32          `json:"b"`
	// TitleWeight is the title weight the index was built with (0: none).
	TitleWeight uint32 `json:"title_weight"`
	// Store is what the document store keeps (none, titles or text),
	// StoreBytes its size, included in Bytes.
	Store            string  `json:"store"`
	StoreBytes       int64   `json:"store_bytes"`
	StoreBytesPerDoc float64 `json:"store_bytes_per_doc"`
	// PositionsCodec is the positions' codec ("" without positions),
	// PositionsBytes their size, included in Bytes.
	PositionsCodec string    `json:"positions_codec"`
	PositionsBytes int64     `json:"positions_bytes"`
	TopTerms       []topTerm `json:"top_terms"`
	// Shard is the part of a sharded collection a shard holds (absent
	// for an index that is not a shard); CollectionBytes is the size of
	// its collection statistics, included in Bytes.
	Shard           *index.ShardInfo `json:"shard,omitempty"`
	CollectionBytes int64            `json:"collection_bytes"`
}

// collectionInspection is what `inspect --json` prints for a sharded
// collection's directory: its manifest and each shard's inspection.
type collectionInspection struct {
	Dir      string         `json:"dir"`
	Manifest index.Manifest `json:"manifest"`
	Shards   []inspection   `json:"shards"`
}

type topTerm struct {
	Term string `json:"term"`
	DF   uint32 `json:"df"`
	CF   uint64 `json:"cf"`
}

func newInspectCmd() *cobra.Command {
	var dir string
	var asJSON bool
	var top int
	cmd := &cobra.Command{
		Use:   "inspect --index DIR",
		Short: "Check an index (or every shard of a sharded collection) and describe it: counts, sizes, bits per posting, codecs, top terms",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if index.IsSharded(dir) {
				return inspectCollection(dir, top, asJSON)
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			in := inspect(ix, top)
			if asJSON {
				return writeJSON(os.Stdout, in)
			}
			printInspection(os.Stdout, in)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "index", "index", "index directory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&top, "top", 20, "how many of the most frequent terms to list")
	return cmd
}

func inspect(ix *index.Index, top int) inspection {
	m := ix.Meta()
	in := inspection{
		Dir: ix.Dir(), Version: m.Version, Documents: m.Docs, Terms: m.Terms, Postings: m.Postings,
		Blocks: m.Blocks, BlockSize: m.BlockSize, Bytes: m.Bytes(), FileBytes: map[string]int64{},
		BitsPerDocID: m.BitsPerDocID(), BitsPerFreq: m.BitsPerFreq(),
		DocIDCodec: m.DocIDCodec, FreqCodec: m.FreqCodec, Order: m.Order,
		AvgDocLength: m.AvgDocLength, K1: m.K1, B: m.B, TitleWeight: m.TitleWeight,
		Store: ix.Store(), StoreBytes: m.StoreBytes(), PositionsBytes: m.PositionsBytes(),
	}
	if c := ix.PositionsCodec(); c != nil {
		in.PositionsCodec = c.Name()
	}
	if m.Docs > 0 {
		in.StoreBytesPerDoc = float64(in.StoreBytes) / float64(m.Docs)
	}
	for name, f := range m.Files {
		in.FileBytes[name] = f.Size
	}
	in.TopTerms = topTerms(ix, top)
	if info, ok := ix.Shard(); ok {
		in.Shard = &info
		in.CollectionBytes = m.Files["collection.bin"].Size
	}
	return in
}

// inspectCollection opens and checks every shard of the sharded
// collection in dir and describes each.
func inspectCollection(dir string, top int, asJSON bool) error {
	shards, man, err := index.OpenSharded(dir)
	if err != nil {
		return err
	}
	ci := collectionInspection{Dir: dir, Manifest: man}
	for _, ix := range shards {
		ci.Shards = append(ci.Shards, inspect(ix, top))
		ix.Close()
	}
	if asJSON {
		return writeJSON(os.Stdout, ci)
	}
	fmt.Printf("sharded collection %s: %s, %d documents in %d shards\n", dir, man.Collection, man.Docs, len(man.Shards))
	for _, in := range ci.Shards {
		printInspection(os.Stdout, in)
	}
	return nil
}

// topTerms lists ix's top terms by document frequency, ties in term
// order. A segmented index's frequencies add up its segments', deleted
// postings included, as its other counts do.
func topTerms(ix *index.Index, top int) []topTerm {
	var terms []topTerm
	if parts := ix.Segments(); parts == nil {
		terms = make([]topTerm, ix.NumTerms())
		for i := range terms {
			t := ix.Term(i)
			terms[i] = topTerm{t.Term, t.DF, t.CF}
		}
	} else {
		at := map[string]int{}
		for _, p := range parts {
			for i := range p.NumTerms() {
				t := p.Term(i)
				j, ok := at[t.Term]
				if !ok {
					j = len(terms)
					at[t.Term] = j
					terms = append(terms, topTerm{Term: t.Term})
				}
				terms[j].DF += t.DF
				terms[j].CF += t.CF
			}
		}
	}
	sort.Slice(terms, func(i, j int) bool {
		if terms[i].DF != terms[j].DF {
			return terms[i].DF > terms[j].DF
		}
		return terms[i].Term < terms[j].Term
	})
	return terms[:min(top, len(terms))]
}

func printInspection(w io.Writer, in inspection) {
	fmt.Fprintf(w, "index %s (format v%d)\n", in.Dir, in.Version)
	fmt.Fprintf(w, "  documents     %d (average length %.1f tokens)\n", in.Documents, in.AvgDocLength)
	fmt.Fprintf(w, "  terms         %d\n", in.Terms)
	fmt.Fprintf(w, "  postings      %d in %d blocks of %d\n", in.Postings, in.Blocks, in.BlockSize)
	fmt.Fprintf(w, "  codecs        docids %s (%.2f bits/docid), freqs %s (%.2f bits/freq)\n", in.DocIDCodec, in.BitsPerDocID, in.FreqCodec, in.BitsPerFreq)
	fmt.Fprintf(w, "  docid order   %s\n", in.Order)
	fmt.Fprintf(w, "  bm25          k1=%g b=%g title weight %d\n", in.K1, in.B, in.TitleWeight)
	fmt.Fprintf(w, "  size          %.2f MB\n", float64(in.Bytes)/1e6)
	if s := in.Shard; s != nil {
		fmt.Fprintf(w, "  shard         %d of %d of collection %s: docids %d.. of %d; collection statistics %.1f KB\n",
			s.Index, s.Count, s.Collection, s.FirstDoc, s.CollectionDocs, float64(in.CollectionBytes)/1e3)
	}
	fmt.Fprintf(w, "  store         %s: %.2f MB, %.0f bytes/document\n", in.Store, float64(in.StoreBytes)/1e6, in.StoreBytesPerDoc)
	if in.PositionsCodec != "" {
		fmt.Fprintf(w, "  positions     %s: %.2f MB\n", in.PositionsCodec, float64(in.PositionsBytes)/1e6)
	} else {
		fmt.Fprintf(w, "  positions     none (phrase queries are refused)\n")
	}
	fmt.Fprintf(w, "  top terms    ")
	for _, t := range in.TopTerms {
		fmt.Fprintf(w, " %s(%d)", t.Term, t.DF)
	}
	fmt.Fprintln(w)
}
