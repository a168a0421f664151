package greet

// OnlyWindows builds on windows only, so the crawl leaves it out.
func OnlyWindows() {}
