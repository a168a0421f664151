package query

import (
	"fmt"

	"github.com/gpusearch/gpusearch/index"
)

// Algorithms lists the CPU algorithms New accepts besides "cpu".
var Algorithms = []string{"exhaustive"}

// New returns the CPU engine named name over ix: "cpu" (the best algorithm
// for each mode) or one of Algorithms.
func New(ix *index.Index, name string) (Engine, error) {
	switch name {
	case "cpu", "exhaustive":
		return NewExhaustive(ix), nil
	}
	return nil, fmt.Errorf("query: unknown engine %q (want cpu or one of %v)", name, Algorithms)
}
