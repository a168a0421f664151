//go:build ignore

// regroup writes a compressed corpus's words back as text, grouped into
// a few long files: one line per document, documents in docid order,
// dealt into N files of consecutive documents. Compressed again with
// `gpusearch compress --raw`, it gives the same words in few long
// documents (docs/analytics.md's rd16, the shape of TADOC's dataset B).
//
//	go run scripts/analytics/regroup.go -n 16 COMPRESSED_DIR OUT_CRAWL
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gpusearch/gpusearch/analytics"
)

func main() {
	n := flag.Int("n", 16, "files to write")
	flag.Parse()
	if flag.NArg() != 2 || *n < 1 {
		log.Fatal("usage: go run scripts/analytics/regroup.go [-n FILES] COMPRESSED_DIR OUT_CRAWL")
	}
	c, err := analytics.Open(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(flag.Arg(1), 0o755); err != nil {
		log.Fatal(err)
	}
	docs := c.Decompress()
	per := (len(docs) + *n - 1) / *n
	for i := 0; i*per < len(docs); i++ {
		f, err := os.Create(filepath.Join(flag.Arg(1), fmt.Sprintf("part%02d.txt", i)))
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for _, doc := range docs[i*per : min((i+1)*per, len(docs))] {
			for j, word := range doc {
				if j > 0 {
					w.WriteByte(' ')
				}
				w.WriteString(c.Dict[word])
			}
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
