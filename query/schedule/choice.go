package schedule

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Choice is a CPU engine that runs each query on one of several engines:
// the one whose cost model (Model.CPUAlgorithms) predicts it fastest for
// the query's features. No one CPU algorithm wins everywhere: on the
// synthetic 2x10^6-document index, term-at-a-time over dense
// accumulators answers OR queries of a few thousand postings 2-3x faster
// than Block-Max WAND, which wins by as much on queries of millions
// (docs/scheduling.md). Every engine it picks from returns the exact
// top k, so the choice changes only the time.
type Choice struct {
	ix      *index.Index
	model   *Model
	engines []query.Engine // by index in model.CPUAlgorithms
}

// NewChoice makes the engines m.CPUAlgorithms names over ix.
func NewChoice(ix *index.Index, m *Model) (*Choice, error) {
	if len(m.CPUAlgorithms) == 0 {
		return nil, errors.New("schedule: the cost model holds no CPU engines to choose from (refit it with gpusearch bench fit)")
	}
	c := &Choice{ix: ix, model: m}
	for _, a := range m.CPUAlgorithms {
		e, err := query.New(ix, a.Engine)
		if err != nil {
			return nil, fmt.Errorf("schedule: cost model: %w", err)
		}
		c.engines = append(c.engines, e)
	}
	return c, nil
}

// Search implements query.Engine.
func (c *Choice) Search(ctx context.Context, q query.Query) (query.Result, error) {
	return c.engineFor(FeaturesOf(c.ix, q)).Search(ctx, q)
}

// engineFor is the engine chosen for a query with features f.
func (c *Choice) engineFor(f Features) query.Engine {
	return c.engines[c.model.CPUChoice(f)]
}

// NewCPU makes the CPU engine m asks for over ix: a Choice when m holds
// several engines' costs, else the engine CPUEngineName names.
func NewCPU(ix *index.Index, m *Model) (query.Engine, error) {
	if len(m.CPUAlgorithms) > 0 {
		return NewChoice(ix, m)
	}
	return query.New(ix, m.CPUEngineName())
}
