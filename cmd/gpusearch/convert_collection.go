package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/collection"
)

func init() { subcommands = append(subcommands, newConvertCollectionCmd) }

func newConvertCollectionCmd() *cobra.Command {
	var format, out string
	var asHTML bool
	cmd := &cobra.Command{
		Use:   "convert-collection --format cranfield|cacm|rfc --out DIR SRC_DIR",
		Short: "Convert a test collection into a crawl, a queries file and TREC qrels",
		Long: `Convert a test collection into DIR/crawl/<docno>.txt (one file a document),
DIR/queries.txt ("qid<TAB>text") and DIR/qrels.txt (TREC qrels), ready for
gpusearch index, search --queries and eval. Formats: cranfield (SRC_DIR holds
cran.all.1400, cran.qry, cranqrel), cacm (cacm.all, query.text, qrels.text),
rfc (Debian's doc-rfc tree, /usr/share/doc/RFC: a known-item set, each RFC's
title as the query for that RFC). Package collection documents each
conversion.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(collection.Formats, format) {
				return usagef("--format must be one of %s", strings.Join(collection.Formats, ", "))
			}
			if out == "" {
				return usagef("convert-collection needs --out DIR")
			}
			c, err := collection.Read(format, args[0])
			if err != nil {
				return err
			}
			write := c.Write
			if asHTML {
				write = c.WriteHTML
			}
			if err := write(out); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s: %d documents, %d queries (%d with relevant documents) written to %s\n",
				format, len(c.Docs), len(c.Queries), c.QueriesWithJudgments(), out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "", "source format: "+strings.Join(collection.Formats, ", "))
	fl.StringVar(&out, "out", "", "output folder (its crawl/ must be new or empty)")
	fl.BoolVar(&asHTML, "html", false, "write each document as <docno>.html, with the source's title (rfc: the RFC's title) in <title> and the text in <pre>")
	return cmd
}
