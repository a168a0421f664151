// Package tool is under cmd, so the crawl leaves it out.
package tool

// Run is never rendered.
func Run() {}
