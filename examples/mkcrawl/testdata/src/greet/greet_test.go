package greet

// TestOnly is in a test file, so the crawl leaves it out.
func TestOnly() {}
