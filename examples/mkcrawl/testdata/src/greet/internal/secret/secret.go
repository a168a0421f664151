// Package secret is internal, so the crawl leaves it out.
package secret

// Key is never rendered.
func Key() {}
