package testindex

import (
	"fmt"

	"github.com/gpusearch/gpusearch/index"
)

// SameTexts reports how the stored texts of the indexes in two
// directories differ: each document's title and text, and the pieces
// TextSpan gives for tokens across it (so where the texts are cut).
// textpieces.bin itself may differ between two such indexes: a merge
// keeps its largest input's dictionary, a build samples its own.
func SameTexts(got, want string) error {
	g, err := index.Open(got)
	if err != nil {
		return err
	}
	defer g.Close()
	w, err := index.Open(want)
	if err != nil {
		return err
	}
	defer w.Close()
	if g.NumDocs() != w.NumDocs() || g.Store() != w.Store() || g.PiecedText() != w.PiecedText() {
		return fmt.Errorf("%d documents storing %s, want %d storing %s", g.NumDocs(), g.Store(), w.NumDocs(), w.Store())
	}
	for d := range uint32(w.NumDocs()) {
		gd, err := g.Document(d, true)
		if err != nil {
			return err
		}
		wd, err := w.Document(d, true)
		if err != nil {
			return err
		}
		if gd != wd {
			return fmt.Errorf("document %d: %.60q, want %.60q", d, gd, wd)
		}
		if !w.PiecedText() {
			continue
		}
		for tok := uint32(0); tok <= w.DocLen(d); tok += 37 {
			gs, err := g.TextSpan(d, tok, tok)
			if err != nil {
				return err
			}
			ws, err := w.TextSpan(d, tok, tok)
			if err != nil {
				return err
			}
			if gs != ws {
				return fmt.Errorf("document %d, token %d: span %.40q, want %.40q", d, tok, gs.Text, ws.Text)
			}
		}
	}
	return nil
}
