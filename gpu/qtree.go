package gpu

import "fmt"

// The top-k methods of a single OR pass (Options.TopK). A wave of OR
// passes always uses the radix select.
const (
	// TopKRadix is the radix select (kernels/query.cu, "Top-k"): two
	// passes over the accumulators, then a sort of the boundary.
	TopKRadix = "radix"
	// TopKTree is the paper's max tree (kernels/query.cu, "Top-k by max
	// tree"): one pass builds the group maxima, then one CTA extracts the
	// maximum k times.
	TopKTree = "tree"
)

// Geometry of the max tree, as TREE_GROUP and TREE_RUNS in query.cu: a
// group's maximum covers treeGroup documents, and the selecting CTA holds
// at most treeRuns maxima of treeGroup groups each.
const (
	treeGroup = 512
	treeRuns  = 1024
)

// treeGroups is the number of max-tree groups over n documents.
func treeGroups(n int64) int64 { return (n + treeGroup - 1) / treeGroup }

// checkTopK validates an Options.TopK value; "" means TopKRadix.
func checkTopK(m string) (string, error) {
	switch m {
	case "", TopKRadix:
		return TopKRadix, nil
	case TopKTree:
		return TopKTree, nil
	}
	return "", fmt.Errorf("gpu: unknown top-k method %q (want %s or %s)", m, TopKRadix, TopKTree)
}

// topKTree queues the max-tree top-k over the pass's accumulators, which
// it spends.
func (e *qengine) topKTree(s stream, sc *scratch, slot devPtr) error {
	n := int64(e.docs)
	groups := treeGroups(n)
	grid := int(max(1, min(int64(e.gridCap), groups)))
	if err := launchTopkTreeBuild(s, grid, qTile, sc.acc, uint64(n), sc.lvl1, uint64(groups)); err != nil {
		return err
	}
	return launchTopkTreeSelect(s, 1, qBig, sc.acc, uint64(n), sc.lvl1, uint64(groups), slot, slot+devPtr(sc.hdrBytes()),
		uint64(sc.resultCap))
}
