// Package skipme is named in the test's skip list.
package skipme

// Skipped is never rendered.
func Skipped() {}
