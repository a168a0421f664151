package testindex

import (
	"fmt"
	"slices"

	"github.com/gpusearch/gpusearch/index"
)

// SameTexts reports how the stored texts of the indexes in two
// directories differ: each document's title and text, and the windows
// TextWindow gives for tokens across it (so the tokens stored).
// textwords.bin itself may differ between two such indexes: its
// lexicons' ranks break ties by the order words were first met.
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
	if g.NumDocs() != w.NumDocs() || g.Store() != w.Store() || g.WordText() != w.WordText() {
		return fmt.Errorf("%d documents storing %s, want %d storing %s", g.NumDocs(), g.Store(), w.NumDocs(), w.Store())
	}
	var gt, wt *index.TextTerms
	if w.WordText() && g.WordText() {
		if gt, err = g.TextTerms(nil); err == nil {
			wt, err = w.TextTerms(nil)
		}
		if err != nil {
			return err
		}
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
		if !w.WordText() {
			continue
		}
		for tok := uint32(0); tok <= w.DocLen(d); tok += 37 {
			var gw, ww index.TextWindow
			if err := g.TextWindow(d, tok, tok, 100, 100, gt, &gw); err != nil {
				return err
			}
			if err := w.TextWindow(d, tok, tok, 100, 100, wt, &ww); err != nil {
				return err
			}
			if string(gw.Text) != string(ww.Text) || gw.First != ww.First || gw.AtStart != ww.AtStart ||
				gw.AtEnd != ww.AtEnd || !slices.EqualFunc(gw.Tokens, ww.Tokens, sameToken) {
				return fmt.Errorf("document %d, token %d: window %.40q, want %.40q", d, tok, gw.Text, ww.Text)
			}
		}
	}
	return nil
}

// sameToken compares two window tokens' places and terms (their surface
// ranks may differ between stores).
func sameToken(a, b index.WindowToken) bool {
	return a.Start == b.Start && a.End == b.End && a.Term == b.Term
}
