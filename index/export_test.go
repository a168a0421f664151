package index

// SetSegmentTerms sets the terms per lexicon segment for a test and
// returns the function that restores it.
func SetSegmentTerms(n uint64) (restore func()) {
	old := segmentTerms
	segmentTerms = n
	return func() { segmentTerms = old }
}
