package indexer

// SetWalkedHook makes every walk call f when it has listed the crawl, so
// that a test can change the crawl between the walk and the parse; the
// returned function removes it.
func SetWalkedHook(f func()) (restore func()) {
	walked = f
	return func() { walked = nil }
}
