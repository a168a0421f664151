package indexer

import (
	"context"
	"fmt"

	"github.com/gpusearch/gpusearch/indexer/extract"
)

// Document is one crawl file that Build would make a document of.
type Document struct {
	URL  string       // the document's URL (or path relative to the crawl)
	Path string       // the file to read: the file, or a symlink's target inside the crawl
	Size int64        // size of the file in bytes when it was walked
	Kind extract.Kind // how its text is extracted
	id   fileID       // the file the walk saw at Path
}

// Documents walks crawlDir as Build does and returns its documents in the
// order of opts.Order, which is docid order for a build in which every file
// can be read, and the report of the files it passed over. It stops with
// ctx's error when ctx ends.
func Documents(ctx context.Context, crawlDir string, opts Options) ([]Document, Report, error) {
	opts = opts.withDefaults()
	var rep Report
	switch opts.Order {
	case "url", "crawl", "random":
	default:
		return nil, rep, fmt.Errorf("indexer: unknown docid order %q (want url, crawl or random)", opts.Order)
	}
	switch opts.Oversize {
	case "truncate", "skip":
	default:
		return nil, rep, fmt.Errorf("indexer: unknown oversize policy %q (want truncate or skip)", opts.Oversize)
	}
	files, err := walk(ctx, crawlDir, opts, &rep)
	if err != nil {
		return nil, rep, err
	}
	orderFiles(files, opts)
	docs := make([]Document, len(files))
	for i, f := range files {
		docs[i] = Document{URL: f.url, Path: f.path, Size: f.size, Kind: f.kind, id: f.id}
	}
	return docs, rep, nil
}

// Text reads the document and returns its extracted text as Build sees it:
// the first maxBytes bytes of the file (truncated reports a longer file),
// and n, the number of bytes read. A document whose Text fails is left out
// by Build, later docids closing the gap. Text never blocks on a file that
// is no longer the regular file Documents listed (a named pipe, say): it
// fails with an error wrapping ErrChanged.
func (d Document) Text(maxBytes int64) (text []byte, n int64, truncated bool, err error) {
	if maxBytes <= 0 {
		maxBytes = Options{}.withDefaults().MaxDocBytes
	}
	_, text, n, truncated, _, err = docFile{path: d.Path, kind: d.Kind, id: d.id}.text(maxBytes)
	return text, n, truncated, err
}
