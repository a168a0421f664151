package gpu

import (
	"context"
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/query"
)

// TestEngineDeclinesPhrases: a batch holding a phrase query is declined,
// before any device work, with an error wrapping ErrPhraseUnsupported (the
// scheduler sends such queries to the CPU).
func TestEngineDeclinesPhrases(t *testing.T) {
	var e qengine // declining needs no device
	qs := []query.Query{
		{Terms: []string{"a"}, Mode: query.Or, K: 10},
		{Terms: []string{"a", "b"}, Phrases: [][]string{{"a", "b"}}, Mode: query.And, K: 10},
	}
	if _, _, err := e.search(context.Background(), qs, false); !errors.Is(err, query.ErrPhraseUnsupported) {
		t.Fatalf("search with a phrase: error %v, want ErrPhraseUnsupported", err)
	}
}
